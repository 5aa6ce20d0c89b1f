import Foundation
import Logging
import SeedDBCore

/// Deploys seeds to their working copies and records what it deployed.
///
/// ```swift
/// let deployer = try Deployer(logger: logger)
/// let report = try deployer.deploy(seed)   // cheap when up to date
/// ```
///
/// Every operation has the same shape: *observe* (the settings entry, the working copy,
/// who uses it), *plan* (``DeployPlanner``, a pure function), *execute*
/// (``DeployExecutor``, which undoes every completed step when a later one fails). The
/// check that runs when nothing needs doing reads the settings file and `lstat`s the
/// working copy, nothing more; a run with work to do takes the deploy lock beside the
/// working copy and observes again under it.
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
        settings(at: paths(for: seed))
    }

    /// The settings store of the working copy at `paths`.
    func settings(at paths: SeedPaths) -> SettingsStore {
        SettingsStore(path: paths.settingsFile, logger: logger, policy: configuration.files)
    }

    /// Deploys `seed` if it is not installed, its version changed, or its working copy is
    /// gone; otherwise returns at once with ``DeployAction/unchanged``.
    ///
    /// - Throws: ``SeedDBError``; on any failure the working copy and the settings are
    ///   left as they were.
    @discardableResult
    public func deploy(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try run(seed, .deploy)
    }

    /// Replaces the working copy with the seed whatever the versions say.
    @discardableResult
    public func reseed(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try run(seed, .reseed)
    }

    /// Restores the previous generation kept by the last replace and records its version.
    /// The previous generation is consumed: a second rollback has nothing to restore.
    /// Preserved tables and the app's own tables are carried from the current copy as on
    /// any replace.
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` (exit 66) when there is no previous
    ///   generation; otherwise as ``deploy(_:)``.
    @discardableResult
    public func rollback(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try requirePrevious(seed)
        return try run(seed, .rollback)
    }

    /// Refuses a rollback with nothing to restore, before anything is created.
    private func requirePrevious(_ seed: Seed) throws(SeedDBError) {
        let paths = paths(for: seed)
        let previous = try settings(at: paths).snapshot(only: seed.name).entries[seed.name.rawValue]?.previous
        guard previous != nil, try FileSystem.fileType(at: paths.previousGeneration) == .regular else {
            throw SeedDBError(.seedUnavailable, "no previous generation of \(paths.workingCopy) to roll back to")
        }
    }

    /// What ``deploy(_:)`` (or ``reseed(_:)`` when `force`) would do, changing nothing.
    ///
    /// Checks what the run would need to write (the working copy's directory and the
    /// settings file), so a dry run fails with the same error a real run would.
    public func plan(_ seed: Seed, force: Bool = false) throws(SeedDBError) -> DeployReport {
        try dryRun(seed, force ? .reseed : .deploy)
    }

    /// What ``rollback(_:)`` would do, changing nothing.
    public func planRollback(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try requirePrevious(seed)
        return try dryRun(seed, .rollback)
    }

    private func dryRun(_ seed: Seed, _ kind: DeployRequest.Kind) throws(SeedDBError) -> DeployReport {
        let (vouched, signature) = kind == .rollback ? (seed, nil) : try authenticate(seed)
        let paths = paths(for: vouched)
        let observed = try observe(vouched, paths: paths)
        try requireNoDowngrade(signature, entry: observed.entry, seed: vouched)
        if let problem = observed.problem {
            logger.warning("\(problem.warning(in: paths.settingsFile))")
        }
        let seed = observed.seed
        let plan = DeployPlanner.plan(observed.observation, request(kind))
        if plan.action.copies {
            try FileSystem.requireWritableDirectory(paths.directory)
            try FileSystem.requireWritableDirectory(paths.settingsDirectory)
        }
        let to = kind == .rollback ? observed.entry.previous?.version ?? seed.version : seed.version
        return DeployReport(
            name: seed.name, action: plan.action, from: observed.entry.record?.version, to: to,
            workingCopy: paths.workingCopy, strategy: plan.strategy)
    }

    /// The state of `seed`, read without a lock and without changing anything.
    public func status(_ seed: Seed) throws(SeedDBError) -> SeedStatus {
        let paths = paths(for: seed)
        let observed = try observe(seed, paths: paths)
        return SeedStatus(
            name: seed.name, currentVersion: observed.seed.version, recordedVersion: observed.entry.record?.version,
            workingCopy: paths.workingCopy, exists: observed.workingCopy.exists,
            state: DeployDecision.state(recorded: observed.entry.record?.version, current: observed.seed.version, workingCopyExists: observed.workingCopy.exists),
            settingsProblem: observed.problem,
            leftovers: observed.workingCopy.leftovers(),
            signature: observed.entry.record == nil ? nil : observed.entry.signature)
    }

    /// Runs `PRAGMA integrity_check` on the seed and on the working copy, and decides what
    /// the results amount to (``VerifyReport/failure``). A working copy that is gone while
    /// a version is recorded is ``IntegrityResult/missing``; one never deployed (nothing
    /// recorded, no file) is ``IntegrityResult/notDeployed``, not a failure.
    /// A compressed seed is decompressed to a temporary file in `$TMPDIR` to be checked.
    public func verify(_ seed: Seed) throws(SeedDBError) -> VerifyReport {
        let signature = try verifySignature(seed)
        let source = SeedSource(path: seed.source)
        _ = try source.inspect()
        let paths = paths(for: seed)
        let workingCopy = try WorkingCopy.inspect(paths)
        let copyCheck: IntegrityResult
        if workingCopy.exists {
            copyCheck = SQLiteFile.integrity(of: paths.workingCopy, access: .shared, full: true)
        } else {
            let recorded = try settings(at: paths).snapshot(only: seed.name).entries[seed.name.rawValue]?.record
            copyCheck = recorded == nil ? .notDeployed : .missing
        }
        let seedCheck = try source.withPlainFile { path in SQLiteFile.integrity(of: path, access: .immutable, full: true) }
        return VerifyReport(name: seed.name, source: seed.source, workingCopyPath: paths.workingCopy, seed: seedCheck, workingCopy: copyCheck, signature: signature)
    }

    // MARK: - Observe, plan, execute

    /// The request a run of `kind` makes, from the configuration.
    func request(_ kind: DeployRequest.Kind) -> DeployRequest {
        DeployRequest(kind: kind, strategy: configuration.strategy, keepPrevious: configuration.keepPrevious, integrity: configuration.integrity)
    }

    /// Observes, plans and, when there is work, executes under the deploy lock.
    private func run(_ seed: Seed, _ kind: DeployRequest.Kind) throws(SeedDBError) -> DeployReport {
        // Before anything is looked at or copied: only what a trusted key signed.
        let (seed, signature) = kind == .rollback ? (seed, nil) : try authenticate(seed)
        let paths = paths(for: seed)
        // What the quick look hashed (`version: auto`, a new seed) is not hashed again.
        var hashed: SourceDigest?
        if kind == .deploy {
            // The startup hot path: one settings read and one lstat; no lock, no hashing,
            // no SQLite (with `version: auto`, one stat of the seed).
            let quick = try observe(seed, paths: paths, quick: true)
            try requireNoDowngrade(signature, entry: quick.entry, seed: seed)
            if quick.problem == nil, DeployPlanner.plan(quick.observation, request(kind)) == .nothing, quick.workingCopy.leftovers().isEmpty {
                if quick.isNewDigest {
                    // Same content under a new identity (touched, copied): remember it.
                    try settings(at: paths).update(timeout: configuration.wait) { $0[seed.name.rawValue]?.source = quick.sourceDigest }
                }
                return report(quick, .unchanged, paths: paths)
            }
            hashed = quick.sourceDigest
        }
        return try withDeployLock(paths) { (lock, deadline) throws(SeedDBError) in
            var observed = try observe(seed, paths: paths, lock: lock, known: hashed)
            try requireNoDowngrade(signature, entry: observed.entry, seed: seed)
            try observed.workingCopy.requireReplaceable()
            var plan = DeployPlanner.plan(observed.observation, request(kind))
            guard plan.action.copies else { return report(observed, .unchanged, paths: paths) }
            var target = try target(observed, kind, paths: paths)
            (target.signature, target.manifest) = (signature, seed.manifest)
            let executor = DeployExecutor(deployer: self, target: target, lock: lock, deadline: deadline)
            do throws(SeedDBError) {
                return try executor.run(plan)
            } catch let error where error.underlying is WriterLock.SwapRefused && configuration.strategy == .auto {
                // Other connections keep the database busy: the plan is made again, live.
                logger.debug("\(paths.workingCopy) is in use; replacing it live")
                observed.observation.usage.connectionsBusy = true
                plan = DeployPlanner.plan(observed.observation, request(kind))
                return try executor.run(plan)
            }
        }
    }

    /// What a run observed of one seed.
    struct Observed {
        /// The seed, `version: auto` resolved.
        var seed: Seed
        /// The settings entry.
        var entry: SettingsEntry
        /// What is wrong with the settings file, if anything.
        var problem: SettingsSnapshot.Problem?
        /// The working copy.
        var workingCopy: WorkingCopy
        /// The seed file's identity and digest, when known (always for `version: auto`;
        /// for a fixed version, only when the settings remember the seed as it is now).
        var sourceDigest: SourceDigest?
        /// Whether ``sourceDigest`` differs from what the settings remember.
        var isNewDigest: Bool
        /// The planner's input.
        var observation: DeployObservation
    }

    /// Reads the settings entry (once), inspects the working copy and, under the lock,
    /// who uses it.
    ///
    /// - Parameters:
    ///   - quick: Decode only this seed's entry (the startup check); otherwise every entry
    ///     is checked, so a damaged one is reported.
    ///   - lock: The deploy lock, when held: use is observed only then.
    ///   - known: A digest of the seed file this run already computed.
    /// - Throws: ``SeedDBError`` `conflictingSeed` when the name is recorded for the other
    ///   location.
    func observe(_ seed: Seed, paths: SeedPaths, quick: Bool = false, lock: FileLock? = nil, known: SourceDigest? = nil) throws(SeedDBError) -> Observed {
        let store = settings(at: paths)
        let snapshot = quick ? try store.snapshot(only: seed.name) : try store.snapshot()
        let entry = snapshot.entries[seed.name.rawValue] ?? SettingsEntry()
        let workingCopy = try WorkingCopy.inspect(paths)
        try requireSameLocation(seed, entry: entry, workingCopy: workingCopy)
        let resolved = try resolve(seed, entry: entry, workingCopyExists: workingCopy.exists, lookingAtSeed: !quick, known: known)
        let checked = entry.checked.flatMap { memo in
            resolved.source.map(\.sha256) == memo.sha256 || seed.expectedSHA256 == memo.sha256 ? memo.integrity : nil
        }
        let observation = DeployObservation(
            recorded: entry.record?.version, previousRecorded: entry.previous != nil,
            workingCopyExists: workingCopy.exists,
            previousExists: lock == nil ? false : try FileSystem.fileType(at: paths.previousGeneration) == .regular,
            current: resolved.seed.version, alreadyChecked: checked,
            usage: try lock.map { (lock) throws(SeedDBError) in try workingCopy.usage(lock: lock) } ?? .idle)
        return Observed(
            seed: resolved.seed, entry: entry, problem: snapshot.problem, workingCopy: workingCopy,
            sourceDigest: resolved.source, isNewDigest: resolved.isNewDigest, observation: observation)
    }

    /// Refuses a seed whose name is recorded for the other location: one record per
    /// working copy. Entries written before locations were recorded count as the location
    /// whose working copy exists.
    private func requireSameLocation(_ seed: Seed, entry: SettingsEntry, workingCopy: WorkingCopy) throws(SeedDBError) {
        guard entry.record != nil || entry.previous != nil else { return }
        let other: SeedLocation = seed.location == .data ? .cache : .data
        let recorded: SeedLocation?
        if let location = entry.location {
            recorded = location
        } else if workingCopy.exists {
            recorded = seed.location
        } else {
            var elsewhere = seed
            elsewhere.location = other
            recorded = try WorkingCopy.inspect(paths(for: elsewhere)).exists ? other : nil
        }
        guard let recorded, recorded != seed.location else { return }
        throw SeedDBError(.conflictingSeed, "working copy \(NameRules.quoted(seed.name.rawValue)) of \(seed.app) is recorded in the \(recorded.rawValue) location, not \(seed.location.rawValue); to move it, purge it from the \(recorded.rawValue) location, then deploy")
    }

    /// The target of a run of `kind`: the seed, or the previous generation for a rollback.
    private func target(_ observed: Observed, _ kind: DeployRequest.Kind, paths: SeedPaths) throws(SeedDBError) -> DeployTarget {
        var target = DeployTarget(
            paths: paths, source: observed.seed.source, version: observed.seed.version,
            expectedSHA256: observed.seed.expectedSHA256, seedFile: SeedFileKnowledge(observed.sourceDigest),
            preservedTables: observed.seed.preservedTables, merge: kind == .rollback ? MergePolicies() : observed.seed.merge,
            isRollback: kind == .rollback, location: observed.seed.location,
            entry: observed.entry, settingsBackup: try settings(at: paths).backup(), workingCopy: observed.workingCopy)
        if kind == .rollback {
            guard let previous = observed.entry.previous else {
                throw SeedDBError(.seedUnavailable, "no previous generation of \(paths.workingCopy) to roll back to")
            }
            target.source = paths.previousGeneration
            target.version = previous.version
            target.expectedSHA256 = nil
            target.seedFile = nil
        }
        return target
    }

    /// A seed with a concrete version, and how it was found.
    struct ResolvedSeed {
        /// The seed, `version: auto` replaced by the content's SHA-256.
        var seed: Seed
        /// The seed file's identity and digest, when known.
        var source: SourceDigest?
        /// Whether `source` differs from what the settings remember.
        var isNewDigest: Bool
    }

    /// Resolves `version: auto` to the seed's SHA-256, and finds what is known of the
    /// seed file's digest, hashing the seed only for `auto` and only when its device,
    /// inode, size, modification or change time differ from the ones remembered: the
    /// check stays O(1) on an unchanged seed.
    ///
    /// A fixed version needs no digest to decide: its seed is looked at (one `stat`) only
    /// when `lookingAtSeed` (under the lock, with work to do), and never hashed here; the
    /// copy hashes it in the same pass when its digest is not known.
    ///
    /// - Parameter known: A digest this run already computed, used if the identity matches.
    func resolve(_ seed: Seed, entry: SettingsEntry, workingCopyExists: Bool, lookingAtSeed: Bool = true, known: SourceDigest? = nil) throws(SeedDBError) -> ResolvedSeed {
        guard seed.version.isAuto else {
            guard lookingAtSeed, let identity = try? FileDigest.identity(ofFileAt: seed.source) else {
                return ResolvedSeed(seed: seed, source: nil, isNewDigest: false)
            }
            let remembered = [entry.source, known].lazy.compactMap { $0 }.first { $0.identity == identity }
            return ResolvedSeed(seed: seed, source: remembered, isNewDigest: false)
        }
        var resolved = seed
        let identity: FileIdentity
        do {
            identity = try FileDigest.identity(ofFileAt: seed.source)
        } catch let error where error.code == .seedUnavailable {
            // The seed is gone: an up-to-date copy stays so, as with a fixed version.
            guard let record = entry.record, workingCopyExists else { throw error }
            resolved.version = record.version
            return ResolvedSeed(seed: resolved, source: entry.source, isNewDigest: false)
        }
        if let cached = entry.source, cached.identity == identity {
            resolved.version = try SeedVersion(cached.sha256.hex)
            return ResolvedSeed(seed: resolved, source: cached, isNewDigest: false)
        }
        let digest: SHA256Digest
        if let known, known.identity == identity {
            digest = known.sha256
        } else {
            digest = try FileDigest.sha256(ofFileAt: seed.source)
        }
        resolved.version = try SeedVersion(digest.hex)
        resolved.expectedSHA256 = resolved.expectedSHA256 ?? digest
        return ResolvedSeed(seed: resolved, source: SourceDigest(identity: identity, sha256: digest), isNewDigest: true)
    }

    private func report(_ observed: Observed, _ action: DeployAction, paths: SeedPaths) -> DeployReport {
        DeployReport(name: observed.seed.name, action: action, from: observed.entry.record?.version, to: observed.seed.version, workingCopy: paths.workingCopy, strategy: nil)
    }

    // MARK: - The deploy lock

    /// Runs `body` holding the deploy lock of the working copy at `paths`, after removing
    /// what killed runs left. When `body` fails, the lock file and the directories this
    /// call created are removed: a failed run leaves nothing behind.
    func withDeployLock<Result>(_ paths: SeedPaths, _ body: (FileLock, ContinuousClock.Instant) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        let deadline = ContinuousClock().now.advanced(by: configuration.wait)
        let files = configuration.files
        try FileSystem.requireSafeForRoot(FileSystem.directory(of: paths.directory), owner: nil, sticky: true)
        let created = try FileSystem.createDirectories(paths.directory, mode: files.directoryMode)
        do throws(SeedDBError) {
            try FileSystem.requireSafeForRoot(paths.directory, owner: files.owner)
            if let owner = files.owner { try FileSystem.setOwner(owner, of: paths.directory) }
            let lock = try FileLock.acquire(paths.lockFile, kind: .exclusive, timeout: configuration.wait, owner: files.owner)
            do throws(SeedDBError) {
                for leftover in try WorkingCopy.inspect(paths).leftovers() { try FileSystem.remove(leftover) }
                let result = try body(lock, deadline)
                lock.close()
                return result
            } catch {
                if lock.created { lock.removeAndClose() } else { lock.close() }
                throw error
            }
        } catch {
            for directory in created.reversed() { _ = FileSystem.removeIfEmpty(directory) }
            throw error
        }
    }

    /// Tells the configured observer that `step` completed.
    func reached(_ step: DeployStep) {
        configuration.stepObserver?(step)
    }
}

extension Deployer {
    /// The conflicts of the last merge attempt of `seed`'s working copy, as the JSON array
    /// `seeddb conflicts` prints (each conflict `{"table", "key", "column", "base", "user",
    /// "seed", "kept"}`); `"[]"` when the last merge had none or none was attempted.
    public func conflicts(_ seed: Seed) throws(SeedDBError) -> String {
        let path = paths(for: seed).conflictsFile
        guard let bytes = try FileSystem.readFile(at: path) else { return "[]" }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "[]" : text
    }
}
