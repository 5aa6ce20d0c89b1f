import Foundation
import Logging
import SeedDBCore
import SystemPackage

/// Deploys seeds to their working copies and records what it deployed.
///
/// ```swift
/// let deployer = try Deployer(logger: logger)
/// let report = try deployer.deploy(seed)   // cheap when up to date
/// ```
///
/// The check that runs when nothing needs doing reads the settings file and `lstat`s the
/// working copy, nothing more. A deploy that has work to do takes an exclusive lock
/// beside the working copy, checks again, and replaces the file so that a crash at any
/// point leaves the complete old or the complete new database, and never a recorded
/// version the file does not hold.
public struct Deployer: Sendable {
    /// Where working copies and settings live.
    public var directories: XDGDirectories
    /// How deploys behave.
    public var configuration: DeployConfiguration
    /// Where warnings (a settings file set aside, …) and debug traces go.
    public var logger: Logger

    /// Creates a deployer.
    public init(directories: XDGDirectories, configuration: DeployConfiguration = DeployConfiguration(), logger: Logger) {
        self.directories = directories
        self.configuration = configuration
        self.logger = logger
    }

    /// Creates a deployer for the current user's XDG directories.
    /// - Throws: ``SeedDBError`` when `$HOME` is needed but is not an absolute path.
    public init(configuration: DeployConfiguration = DeployConfiguration(), logger: Logger) throws(SeedDBError) {
        let environment = ProcessInfo.processInfo.environment
        self.init(
            directories: try XDGDirectories(environment: environment, home: environment["HOME"] ?? NSHomeDirectory()),
            configuration: configuration, logger: logger)
    }

    /// The paths of `seed`'s working copy and settings.
    public func paths(for seed: Seed) -> SeedPaths {
        SeedPaths(seed: seed, directories: directories)
    }

    /// The settings store `seed` is recorded in.
    public func settings(for seed: Seed) -> SettingsStore {
        SettingsStore(path: paths(for: seed).settingsFile, logger: logger)
    }

    /// Deploys `seed` if it is not installed, its version changed, or its working copy is
    /// gone; otherwise returns at once with ``DeployAction/unchanged``.
    ///
    /// - Throws: ``SeedDBError``; on any failure the working copy and the settings are
    ///   left as they were.
    @discardableResult
    public func deploy(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try run(seed, force: false)
    }

    /// Replaces the working copy with the seed whatever the versions say.
    @discardableResult
    public func reseed(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try run(seed, force: true)
    }

    /// What ``deploy(_:)`` (or ``reseed(_:)`` when `force`) would do, changing nothing.
    public func plan(_ seed: Seed, force: Bool = false) throws(SeedDBError) -> DeployReport {
        let current = try currentState(of: seed)
        return report(seed, current.record, DeployDecision.action(
            recorded: current.record?.version, current: seed.version,
            workingCopyExists: current.exists, force: force))
    }

    /// The state of `seed`, read without a lock and without changing anything.
    public func status(_ seed: Seed) throws(SeedDBError) -> SeedStatus {
        let current = try currentState(of: seed)
        return SeedStatus(
            name: seed.name, currentVersion: seed.version, recordedVersion: current.record?.version,
            workingCopy: paths(for: seed).workingCopy, exists: current.exists,
            state: DeployDecision.state(recorded: current.record?.version, current: seed.version, workingCopyExists: current.exists),
            settingsProblem: current.problem)
    }

    /// Runs `PRAGMA integrity_check` on the seed and on the working copy.
    public func verify(_ seed: Seed) throws(SeedDBError) -> VerifyReport {
        _ = try SeedSource(path: seed.source).inspect()
        let workingCopy = paths(for: seed).workingCopy
        let copyCheck = try FileSystem.fileType(at: workingCopy) == .regular
            ? SQLiteFile.check(workingCopy, access: .shared, full: true)
            : VerifyReport.notDeployed
        return VerifyReport(
            name: seed.name,
            seed: SQLiteFile.check(seed.source, access: .immutable, full: true),
            workingCopy: copyCheck)
    }

    // MARK: - Deploying

    private struct CurrentState {
        var record: DeployRecord?
        var exists: Bool
        var problem: SettingsSnapshot.Problem?
    }

    /// The recorded state and whether the working copy exists: one read, one `lstat`.
    private func currentState(of seed: Seed) throws(SeedDBError) -> CurrentState {
        let snapshot = try settings(for: seed).snapshot()
        let exists = try FileSystem.fileType(at: paths(for: seed).workingCopy) == .regular
        return CurrentState(record: snapshot.records[seed.name.rawValue], exists: exists, problem: snapshot.problem)
    }

    private func report(_ seed: Seed, _ record: DeployRecord?, _ action: DeployAction) -> DeployReport {
        DeployReport(name: seed.name, action: action, from: record?.version, to: seed.version, workingCopy: paths(for: seed).workingCopy)
    }

    private func run(_ seed: Seed, force: Bool) throws(SeedDBError) -> DeployReport {
        if !force {
            // The startup hot path: no lock, no hashing, no SQLite, no look at the seed.
            let quick = try currentState(of: seed)
            if quick.problem == nil, DeployDecision.action(recorded: quick.record?.version, current: seed.version, workingCopyExists: quick.exists) == .unchanged {
                return report(seed, quick.record, .unchanged)
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: configuration.wait)
        let paths = paths(for: seed)
        try FileSystem.createDirectories(paths.directory)
        let lock = try FileLock.acquire(paths.lockFile, kind: .exclusive, timeout: configuration.wait)
        defer { lock.release() }
        try FileSystem.removeStaleTemporaryFiles(in: paths.directory, stem: seed.name.rawValue)

        // Another process may have finished the job while this one waited for the lock.
        let existing = try FileSystem.fileType(at: paths.workingCopy)
        try requireReplaceable(existing, at: paths.workingCopy)
        let record = try settings(for: seed).snapshot().records[seed.name.rawValue]
        let action = DeployDecision.action(recorded: record?.version, current: seed.version, workingCopyExists: existing == .regular, force: force)
        guard action.copies else { return report(seed, record, action) }

        try replace(seed, paths: paths, oldCopyExists: existing == .regular, withdrawing: record != nil, until: deadline)
        return report(seed, record, action)
    }

    /// A working copy path must be free or hold a regular file: never follow or replace a
    /// symbolic link, directory, FIFO or device someone put there.
    private func requireReplaceable(_ type: FileType?, at path: String) throws(SeedDBError) {
        guard let type, type != .regular else { return }
        let kind: String
        switch type {
        case .symbolicLink: kind = "a symbolic link"
        case .directory: kind = "a directory"
        case .fifo: kind = "a FIFO"
        case .socket: kind = "a socket"
        default: kind = "a device or special file"
        }
        throw SeedDBError(.cannotCreate, "cannot replace working copy \(path): it is \(kind), not a regular file; remove it and deploy again")
    }

    /// Copies, checks and swaps in the seed, then records it. Runs under the deploy lock.
    private func replace(_ seed: Seed, paths: SeedPaths, oldCopyExists: Bool, withdrawing: Bool, until deadline: ContinuousClock.Instant) throws(SeedDBError) {
        let source = SeedSource(path: seed.source)
        let header = try source.inspect()
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: paths.directory, stem: seed.name.rawValue)
        var swapped = false
        defer { if !swapped { try? FileSystem.remove(temporary) } }
        reached(.temporaryCreated)

        let copy: SeedSource.CopyResult
        do {
            copy = try descriptor.closeAfter { () throws(SeedDBError) -> SeedSource.CopyResult in
                let copy = try source.copy(to: descriptor, destinationPath: temporary)
                reached(.copied)
                try FileSystem.sync(descriptor, path: temporary)
                reached(.synced)
                return copy
            }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot write", temporary)
        }
        if let expected = seed.expectedSHA256, expected != copy.digest {
            throw SeedDBError(.invalidSeed, "invalid seed \(seed.source): SHA-256 is \(copy.digest), expected \(expected)")
        }
        if let declared = header.declaredSize, declared != copy.size {
            throw SeedDBError(.invalidSeed, "invalid seed \(seed.source): its header declares \(declared) bytes but \(copy.size) were read (truncated, or changed while copying)")
        }
        let check = SQLiteFile.check(temporary, access: .immutable, full: false)
        guard check == "ok" else {
            throw SeedDBError(.invalidSeed, "invalid seed \(seed.source): quick_check failed: \(check)")
        }

        let swap = { () throws in
            if withdrawing {
                try settings(for: seed).update(timeout: remaining(until: deadline)) { $0[seed.name.rawValue]?.record = nil }
                reached(.withdrawn)
            }
            for sidecar in paths.sqliteSidecars { try FileSystem.remove(sidecar) }
            reached(.sidecarsRemoved)
            try FileSystem.rename(temporary, to: paths.workingCopy)
            swapped = true
            reached(.renamed)
            try FileSystem.syncDirectory(paths.directory)
            reached(.directorySynced)
        }
        do {
            if oldCopyExists {
                try WorkingCopyGuard.withExclusiveAccess(paths.workingCopy, timeout: remaining(until: deadline), logger: logger, swap)
            } else {
                try swap()
            }
        } catch {
            throw SeedDBError.io(error, "cannot replace", paths.workingCopy)
        }

        let record = DeployRecord(version: seed.version, sha256: copy.digest, size: copy.size, deployedAt: Date().ISO8601Format())
        try settings(for: seed).update(timeout: remaining(until: deadline)) { $0[seed.name.rawValue, default: SettingsEntry()].record = record }
        reached(.recorded)
        logger.debug("deployed \(seed.name) \(seed.version) to \(paths.workingCopy)")
    }

    private func reached(_ step: DeployStep) {
        configuration.stepObserver?(step)
    }

    private func remaining(until deadline: ContinuousClock.Instant) -> Duration {
        max(deadline - ContinuousClock().now, .zero)
    }
}
