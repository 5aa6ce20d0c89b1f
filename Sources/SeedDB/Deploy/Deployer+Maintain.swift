import Foundation
import GRDB
import SeedDBCore

/// What `maintain` runs on a working copy.
public enum MaintenancePolicy: String, Sendable, CaseIterable {
    /// `VACUUM`: rebuilds the file, reclaiming free pages (the default).
    case vacuum
    /// `PRAGMA optimize`: refreshes the query planner's statistics; cheap.
    case optimize
}

/// What `maintain` did to one working copy.
public struct MaintenanceReport: Sendable, Hashable {
    /// What happened.
    public enum Action: String, Sendable {
        /// `VACUUM` ran.
        case vacuumed
        /// `PRAGMA optimize` ran.
        case optimized
        /// The last run is recent enough, or the working copy is a link to a read-only seed
        /// (``MaintenanceReport/seedLink``).
        case skipped
    }

    /// The working copy's file name.
    public var name: SeedName
    /// What happened.
    public var action: Action
    /// When maintenance last ran (now, unless skipped), ISO-8601 UTC; `nil` if never.
    public var lastRun: String?
    /// The working copy's path.
    public var workingCopy: String
    /// For a read-only seed: the seed file the working copy is a link to, which is the
    /// package's and never maintained; `nil` for a copy.
    public var seedLink: String? = nil
}

extension Deployer {
    /// Runs `policy` on the working copy when the last run is older than `every`, and
    /// records the time in the settings store. Like a swap, it waits (at most
    /// ``DeployConfiguration/wait``) while the database is in use.
    ///
    /// - Parameters:
    ///   - seed: The seed whose working copy to maintain.
    ///   - every: The interval; `.zero` runs it now.
    ///   - policy: What to run (`VACUUM` or `PRAGMA optimize`).
    ///   - now: The time compared with the last run, and recorded.
    ///   - dryRun: Report what would be done, and change nothing.
    /// A read-only seed's working copy (a link to the package's file, ``Seed/readOnly``) is
    /// never maintained: the report says ``MaintenanceReport/Action/skipped``.
    ///
    /// - Throws: ``SeedDBError`` `invalidArgument` (64) when `now` is not a time a record
    ///   can hold (a UTC time in the years 1 to 9999, which the record's ISO 8601 stamp
    ///   writes and reads back), on every path, a dry run's and a read-only seed's too;
    ///   `seedUnavailable` (66) when there is no working copy; `cannotCreate` (73) when
    ///   something SeedDB did not make is at its path, as a deploy refuses it, and, as
    ///   root, when another account could write the app's directory or the one that holds
    ///   it (a dry run too, as the run's lock checks them); `inUse` (75) when the database
    ///   stays in use.
    public func maintain(_ seed: Seed, every: Duration, policy: MaintenancePolicy, now: Date = Date(), dryRun: Bool = false) throws(SeedDBError) -> MaintenanceReport {
        // 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z; not a number fails both comparisons.
        let whole = now.timeIntervalSince1970.rounded(.down)
        guard whole >= -62_135_596_800, whole <= 253_402_300_799 else {
            throw SeedDBError(.invalidArgument, "cannot maintain at \(now.timeIntervalSince1970) seconds since 1970: a record holds a UTC time in the years 1 to 9999")
        }
        let seconds = Int64(whole)
        let paths = paths(for: seed)
        let workingCopy = try WorkingCopy.inspect(paths, seedLinks: recordedSeedLinks(seed))
        if case .foreign(let what) = workingCopy.state { throw WorkingCopy.blocked(paths.workingCopy, what: what, operation: "maintain") }
        guard workingCopy.exists else {
            throw SeedDBError(.seedUnavailable, "nothing to maintain: working copy \(paths.workingCopy) does not exist; deploy it first")
        }
        if workingCopy.seedLinkTarget != nil {
            // The seed file is the package's: nothing of SeedDB's to vacuum or optimize.
            let entry = try settings(at: paths).snapshot(only: seed.name).entry(of: seed.name)
            return MaintenanceReport(name: seed.name, action: .skipped, lastRun: entry?.maintainedAt, workingCopy: paths.workingCopy, seedLink: workingCopy.seedLinkTarget)
        }
        let due = { (entry: SettingsEntry) -> Bool in
            guard every > .zero, let last = entry.maintainedAt.flatMap({ try? Date($0, strategy: .iso8601) }) else { return true }
            return now.timeIntervalSince(last) >= every.seconds
        }
        let done: MaintenanceReport.Action = policy == .vacuum ? .vacuumed : .optimized
        if dryRun {
            // The directories the run's lock checks before it reads the record, due or not
            // (`--owner`'s own included).
            try requireDirectoriesAsTheLockChecks(paths)
            let entry = try settings(at: paths).snapshot(only: seed.name).entry(of: seed.name) ?? SettingsEntry()
            guard due(entry) else { return MaintenanceReport(name: seed.name, action: .skipped, lastRun: entry.maintainedAt, workingCopy: paths.workingCopy) }
            try effects.files.requireWritableDirectory(paths.settingsDirectory, owner: configuration.files.owner)
            return MaintenanceReport(name: seed.name, action: done, lastRun: entry.maintainedAt, workingCopy: paths.workingCopy)
        }
        return try withDeployLock(paths) { (lock, deadline) throws(SeedDBError) in
            let entry = try settings(at: paths).snapshot().entry(of: seed.name) ?? SettingsEntry()
            guard due(entry) else {
                return MaintenanceReport(name: seed.name, action: .skipped, lastRun: entry.maintainedAt, workingCopy: paths.workingCopy)
            }
            try lock.waitUntilNoHandle(until: deadline) {
                SeedDBError(.inUse, "cannot maintain \(paths.workingCopy): database in use by another process")
            }
            try SQLiteFile.mapping("cannot maintain", paths.workingCopy) {
                let queue = try SQLiteFile.open(paths.workingCopy, access: .readWrite, timeout: deadline.timeLeft, label: "SeedDB.maintain")
                defer { try? queue.close() }
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: policy == .vacuum ? "VACUUM" : "PRAGMA optimize")
                }
            }
            let stamp = UTCTimestamp.extended(secondsSinceEpoch: seconds)
            try settings(at: paths).update(timeout: max(deadline - ContinuousClock().now, .zero)) { table in
                table[seed.name.rawValue, default: SettingsEntry()].maintainedAt = stamp
            }
            return MaintenanceReport(name: seed.name, action: done, lastRun: stamp, workingCopy: paths.workingCopy)
        }
    }
}
