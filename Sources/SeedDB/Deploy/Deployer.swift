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
        return report(seed, from: current.record?.version, DeployDecision.action(
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

    // MARK: - Shared by the operations

    struct CurrentState {
        var record: DeployRecord?
        var exists: Bool
        var problem: SettingsSnapshot.Problem?
    }

    /// The recorded state and whether the working copy exists: one read, one `lstat`.
    func currentState(of seed: Seed) throws(SeedDBError) -> CurrentState {
        let snapshot = try settings(for: seed).snapshot()
        let exists = try FileSystem.fileType(at: paths(for: seed).workingCopy) == .regular
        return CurrentState(record: snapshot.records[seed.name.rawValue], exists: exists, problem: snapshot.problem)
    }

    func report(_ seed: Seed, from: SeedVersion?, to: SeedVersion? = nil, _ action: DeployAction, strategy: DeployStrategy? = nil) -> DeployReport {
        DeployReport(name: seed.name, action: action, from: from, to: to ?? seed.version, workingCopy: paths(for: seed).workingCopy, strategy: strategy)
    }

    func reached(_ step: DeployStep) {
        configuration.stepObserver?(step)
    }

    func deadline() -> ContinuousClock.Instant {
        ContinuousClock().now.advanced(by: configuration.wait)
    }

    func remaining(until deadline: ContinuousClock.Instant) -> Duration {
        max(deadline - ContinuousClock().now, .zero)
    }
}
