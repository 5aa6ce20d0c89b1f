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
        /// The last run is recent enough.
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
}

extension Deployer {
    /// Runs `policy` on the working copy when the last run is older than `every`, and
    /// records the time in the settings store. Like a swap, it waits (at most
    /// ``DeployConfiguration/wait``) while the database is in use.
    ///
    /// - Parameters:
    ///   - every: The interval; `.zero` runs it now.
    /// - Throws: ``SeedDBError`` `seedUnavailable` (66) when there is no working copy,
    ///   `inUse` (75) when the database stays in use.
    public func maintain(_ seed: Seed, every: Duration, policy: MaintenancePolicy, now: Date = Date()) throws(SeedDBError) -> MaintenanceReport {
        let paths = paths(for: seed)
        guard try FileSystem.fileType(at: paths.workingCopy) == .regular else {
            throw SeedDBError(.seedUnavailable, "nothing to maintain: working copy \(paths.workingCopy) does not exist; deploy it first")
        }
        return try underDeployLock(seed) { (lock, entry, _, deadline) throws(SeedDBError) in
            if every > .zero, let last = entry.maintainedAt.flatMap({ try? Date($0, strategy: .iso8601) }),
               now.timeIntervalSince(last) < every.seconds {
                return MaintenanceReport(name: seed.name, action: .skipped, lastRun: entry.maintainedAt, workingCopy: paths.workingCopy)
            }
            try lock.waitUntilFree(.readers, until: deadline) {
                SeedDBError(.inUse, "cannot maintain \(paths.workingCopy): database in use by another process")
            }
            try run(policy, on: paths.workingCopy, timeout: remaining(until: deadline))
            let stamp = now.ISO8601Format()
            try settings(for: seed).update(timeout: remaining(until: deadline)) { table in
                table[seed.name.rawValue, default: SettingsEntry()].maintainedAt = stamp
            }
            return MaintenanceReport(name: seed.name, action: policy == .vacuum ? .vacuumed : .optimized, lastRun: stamp, workingCopy: paths.workingCopy)
        }
    }

    private func run(_ policy: MaintenancePolicy, on path: String, timeout: Duration) throws(SeedDBError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(max(timeout.seconds, 0))
        configuration.label = "SeedDB.maintain"
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: policy == .vacuum ? "VACUUM" : "PRAGMA optimize")
            }
        } catch let error as DatabaseError {
            throw SQLiteFile.error(error, "cannot maintain", path)
        } catch {
            throw SeedDBError.io(error, "cannot maintain", path)
        }
    }
}
