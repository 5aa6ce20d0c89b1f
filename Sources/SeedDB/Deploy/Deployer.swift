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
        SettingsStore(path: paths(for: seed).settingsFile, logger: logger, policy: configuration.files)
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
    ///
    /// A damaged settings file is reported as a warning, and left as it is.
    public func plan(_ seed: Seed, force: Bool = false) throws(SeedDBError) -> DeployReport {
        let current = try currentState(of: seed, wholeFile: true)
        if let problem = current.problem {
            logger.warning("\(problem) in \(paths(for: seed).settingsFile); a deploy would set it aside")
        }
        let seed = try resolve(seed, current).seed
        return report(seed, from: current.record?.version, DeployDecision.action(
            recorded: current.record?.version, current: seed.version,
            workingCopyExists: current.exists, force: force))
    }

    /// The state of `seed`, read without a lock and without changing anything.
    public func status(_ seed: Seed) throws(SeedDBError) -> SeedStatus {
        let current = try currentState(of: seed, wholeFile: true)
        let seed = try resolve(seed, current).seed
        return SeedStatus(
            name: seed.name, currentVersion: seed.version, recordedVersion: current.record?.version,
            workingCopy: paths(for: seed).workingCopy, exists: current.exists,
            state: DeployDecision.state(recorded: current.record?.version, current: seed.version, workingCopyExists: current.exists),
            settingsProblem: current.problem)
    }

    /// Runs `PRAGMA integrity_check` on the seed and on the working copy, and decides what
    /// the results amount to (``VerifyReport/failure``). A working copy that is gone while
    /// a version is recorded is ``IntegrityResult/missing``; one never deployed (nothing
    /// recorded, no file) is ``IntegrityResult/notDeployed``, not a failure.
    /// A compressed seed is decompressed to a temporary file in `$TMPDIR` to be checked.
    public func verify(_ seed: Seed) throws(SeedDBError) -> VerifyReport {
        let source = SeedSource(path: seed.source)
        _ = try source.inspect()
        let workingCopy = paths(for: seed).workingCopy
        let current = try currentState(of: seed)
        let copyCheck: IntegrityResult
        if current.exists {
            copyCheck = SQLiteFile.integrity(of: workingCopy, access: .shared, full: true)
        } else {
            copyCheck = current.record == nil ? .notDeployed : .missing
        }
        let seedCheck = try source.withPlainFile { path in SQLiteFile.integrity(of: path, access: .immutable, full: true) }
        return VerifyReport(name: seed.name, source: seed.source, workingCopyPath: workingCopy, seed: seedCheck, workingCopy: copyCheck)
    }

    // MARK: - Shared by the operations

    struct CurrentState {
        var entry: SettingsEntry
        var exists: Bool
        var problem: SettingsSnapshot.Problem?
        var record: DeployRecord? { entry.record }
    }

    /// The recorded state and whether the working copy exists: one read, one `lstat`.
    ///
    /// - Parameter wholeFile: Check every entry of the settings (for `status`), not just
    ///   this seed's (the startup check).
    func currentState(of seed: Seed, wholeFile: Bool = false) throws(SeedDBError) -> CurrentState {
        let paths = paths(for: seed)
        let store = SettingsStore(path: paths.settingsFile, logger: logger, policy: configuration.files)
        let snapshot = wholeFile ? try store.snapshot() : try store.snapshot(only: seed.name)
        let exists = try FileSystem.fileType(at: paths.workingCopy) == .regular
        return CurrentState(entry: snapshot.entries[seed.name.rawValue] ?? SettingsEntry(), exists: exists, problem: snapshot.problem)
    }

    /// A seed with a concrete version, and how it was found.
    struct ResolvedSeed {
        /// The seed, `version: auto` replaced by the content's SHA-256.
        var seed: Seed
        /// The seed file's identity and digest, for `auto`.
        var source: SourceDigest?
        /// Whether `source` differs from what the settings remember.
        var isNewDigest: Bool
    }

    /// Resolves `version: auto` to the seed's SHA-256, hashing the seed only when its
    /// device, inode, size or modification time differ from the ones remembered: the
    /// check stays O(1) on an unchanged seed.
    func resolve(_ seed: Seed, _ current: CurrentState) throws(SeedDBError) -> ResolvedSeed {
        guard seed.version.isAuto else { return ResolvedSeed(seed: seed, source: nil, isNewDigest: false) }
        var resolved = seed
        let identity: FileIdentity
        do {
            identity = try FileDigest.identity(ofFileAt: seed.source)
        } catch let error where error.code == .seedUnavailable {
            // The seed is gone: an up-to-date copy stays so, as with a fixed version.
            guard let record = current.record, current.exists else { throw error }
            resolved.version = record.version
            return ResolvedSeed(seed: resolved, source: current.entry.source, isNewDigest: false)
        }
        if let cached = current.entry.source, cached.identity == identity {
            resolved.version = try SeedVersion(cached.sha256.hex)
            return ResolvedSeed(seed: resolved, source: cached, isNewDigest: false)
        }
        let digest = try FileDigest.sha256(ofFileAt: seed.source)
        resolved.version = try SeedVersion(digest.hex)
        resolved.expectedSHA256 = resolved.expectedSHA256 ?? digest
        return ResolvedSeed(seed: resolved, source: SourceDigest(identity: identity, sha256: digest), isNewDigest: true)
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
