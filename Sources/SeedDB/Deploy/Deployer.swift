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
/// who uses it), *plan* (`DeployPlanner`, a pure function), *execute*
/// (`DeployExecutor`, which undoes every completed step when a later one fails). The
/// check that runs when nothing needs doing reads the settings file and the working
/// copy's directory (the link and its entries), nothing more; a run with work to do
/// takes the deploy lock beside the working copy and observes again under it.
public struct Deployer: Sendable {
    /// Where working copies and settings live.
    public var directories: XDGDirectories
    /// How deploys behave.
    public var configuration: DeployConfiguration
    /// Where warnings (a settings file set aside, …) and debug traces go.
    public var logger: Logger
    /// Everything a run does to the world: the real machine, or the simulator's model.
    var effects: DeployEffects = .local

    /// Creates a deployer.
    public init(directories: XDGDirectories, configuration: DeployConfiguration = DeployConfiguration(), logger: Logger) {
        self.directories = directories
        self.configuration = configuration
        self.logger = logger
    }

    /// Creates a deployer for the current user's XDG directories.
    /// - Throws: ``SeedDBError`` when `$HOME` is needed but is not an absolute path.
    public init(configuration: DeployConfiguration = DeployConfiguration(), logger: Logger) throws(SeedDBError) {
        self.init(
            directories: try XDGDirectories(
                reading: Syscalls.environmentVariable, home: Syscalls.environmentVariable("HOME") ?? NSHomeDirectory()),
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

    /// Where a run reads and writes the record of the working copy at `paths`: its
    /// settings store, through ``effects``.
    func records(at paths: SeedPaths) -> any DeployRecordStore {
        effects.records(paths, logger, configuration.files)
    }

    /// What a run on the working copy at `paths` works with.
    func context(at paths: SeedPaths) -> DeployContext {
        DeployContext(configuration: configuration, logger: logger, records: records(at: paths), effects: effects)
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

    /// Restores the previous generation kept by the last replace and records its version,
    /// with a hold: while the app still ships the version rolled back from, ``deploy(_:)``
    /// leaves the working copy alone (``DeployAction/held``). The previous generation is
    /// consumed: a second rollback has nothing to restore. What the user wrote since the
    /// replace is carried into the restored content as on any replace: the app's tables,
    /// preserved tables and, with a merging policy, the user's edits of seeded rows.
    ///
    /// A seed read from a manifest (``Seed/manifest``) that has nothing to restore and is
    /// held from the version the manifest ships is reported as ``DeployAction/held``:
    /// a release's rollback run again passes over the seeds it already rolled back.
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` (exit 66) when there is no previous
    ///   generation (but for such a seed); otherwise as ``deploy(_:)``.
    @discardableResult
    public func rollback(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try run(seed, .rollback)
    }

    /// What ``deploy(_:)`` (or ``reseed(_:)`` when `force`) would do, changing nothing.
    ///
    /// Observes and plans exactly as the run does, and checks what the run would need to
    /// write (the working copy's directory and the settings file), so a dry run fails
    /// with the same error a real run would. After a killed run, it reports (with a
    /// warning) how the run would finish or undo that one first: what it does next
    /// depends on what that leaves (nothing, when the killed run was the run asked).
    public func plan(_ seed: Seed, force: Bool = false) throws(SeedDBError) -> DeployReport {
        try dryRun(seed, force ? .reseed : .deploy)
    }

    /// What ``rollback(_:)`` would do, changing nothing.
    public func planRollback(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        try dryRun(seed, .rollback)
    }

    private func dryRun(_ seed: Seed, _ kind: DeployRequest.Kind) throws(SeedDBError) -> DeployReport {
        let (vouched, signature) = kind == .rollback ? (seed, nil) : try authenticate(seed)
        let paths = paths(for: vouched)
        let observed = try observe(vouched, paths: paths, planning: kind)
        if kind != .rollback { try requirePinned(signature, entry: observed.entry, seed: vouched) }
        if let problem = observed.problem {
            logger.warning("\(problem.warning(in: paths.settingsFile))")
        }
        let plan = try decide(observed, kind, paths: paths)
        if kind != .rollback { try requirePinned(signature, finishing: plan, entry: observed.entry, seed: vouched) }
        if kind == .rollback, plan.undoesInterrupted {
            // A rollback undoes a killed run only when it has nothing to roll back: the run
            // undoes it, then fails so.
            logger.warning("\(paths.workingCopy): a run that was interrupted before it installed anything would be undone first")
            throw failure(refusing: .nothingToRollBack, observed, paths: paths)
        }
        // A read-only seed changed behind its link at the recorded version: the link step
        // checks its digest.
        if plan.seedLink?.seedChanged == true { try requireExpectedDigest(observed, signature: signature) }
        if plan.action.copies {
            // (`--owner`'s own directories included, as the run's own checks take them.)
            try requireDirectoriesAsTheLockChecks(paths)
            try effects.files.requireWritableDirectory(paths.settingsDirectory, owner: configuration.files.owner)
            if kind != .rollback {
                _ = try SeedSource(path: observed.seed.source).inspect()
                if !plan.finishesInterrupted {
                    try requireExpectedDigest(observed, signature: signature)
                    try requireConfiguredTables(observed, plan, paths: paths)
                }
            }
            for case .carry(let carry) in plan.steps where carry.merge == .merge {
                do {
                    try rehearseMerge(observed, carry, plan, kind, paths: paths)
                } catch {
                    // As the run words it; but a dry run writes no conflicts file for
                    // `seeddb conflicts` to list.
                    var refusal = DeployExecutor.carryRefusal(error, workingCopy: paths.workingCopy)
                    if refusal.remedy == .conflicts { refusal.remedy = nil }
                    throw refusal
                }
            }
        }
        var planned = report(observed, plan, kind, paths: paths)
        planned.mergeSkipped = plan.skipsMerge && carryPolicies(kind, observed.seed, plan).mergesAnything
        if plan.action.copies, !plan.finishesInterrupted {
            for case .carry(let carry) in plan.steps {
                planned.merging = carry.merge == .merge
                planned.discarded = try wouldDiscard(observed, carry, kind, paths: paths)
                planned.keptPrevious = plan.leavesReplacedContentAsPrevious
                if planned.discarded?.isEmpty == false || carry.discards == .unknown {
                    planned.oldCopyKeptAs = carry.keepsOldCopyIfDiscarded.map(paths.adoptedCopy)
                }
                if carry.discards == .unknown { logger.warning("\(DeployExecutor.unknownChanges(carry, paths: paths, files: effects.files))") }
            }
        }
        warnOfReplacedRun(observed, plan, paths: paths, dryRun: true)
        if plan.finishesWhatWasAsked {
            logger.warning("\(paths.workingCopy): a run that was interrupted would be finished; it is the run asked for, and nothing more would be done")
        } else if plan.finishesInterrupted {
            // What the run then does depends on what the finish leaves: not planned here.
            logger.warning("\(paths.workingCopy): a run that was interrupted would be finished (or undone) first; this reports that, not what the run does after it")
        }
        return kind == .rollback ? planned : signed(planned, signature, pinned: observed.entry.signature)
    }

    /// For a dry run of a seed with an expected digest (`--sha256`, a manifest's
    /// `"sha256"`): refuses a seed whose content has another, as the run would (65, or a
    /// signed manifest's refusal). The digest is the one remembered for the seed's
    /// identity, or the content hashed once (decompressed), as the run's copy hashes it.
    private func requireExpectedDigest(_ observed: Observed, signature: SeedSignature?) throws(SeedDBError) {
        guard let expected = observed.seed.expectedSHA256 else { return }
        let source = observed.seed.source
        let digest = try contentDigest(of: source, identity: try effects.files.identity(of: source), known: observed.sourceDigest)
        guard digest != expected else { return }
        throw DeployTarget.digestMismatch(source: source, signature: signature, manifest: observed.seed.manifest, digest, expected: expected)
    }

    /// For a dry run: refuses a table name of the seed's configuration (a preserved table,
    /// a per-table merge policy) that the run's check would refuse, with the run's line
    /// (78): at a first install, a name the seed lacks; at a carry, a name neither the new
    /// seed nor the old copy has. The seed's tables are read from its content
    /// (decompressed into a temporary file when it is compressed), the old copy read only.
    private func requireConfiguredTables(_ observed: Observed, _ plan: DeployPlan, paths: SeedPaths) throws(SeedDBError) {
        let names = ConfiguredTables.names(preserved: observed.seed.preservedTables, merge: observed.seed.merge)
        var checksSeed = false
        var carry: PlannedStep.Carry?
        for step in plan.steps {
            switch step {
            case .stage(let stage): checksSeed = checksSeed || stage.checksConfiguredTables
            case .carry(let found): carry = found
            default: break
            }
        }
        guard !names.isEmpty, checksSeed || carry != nil else { return }
        let source = observed.seed.source
        let seedTables = try SeedSource(path: source).withPlainFile { (path) throws(SeedDBError) in try effects.database.tableNames(of: path) }
        if checksSeed { try ConfiguredTables.check(names, among: seedTables, missingFrom: "the seed \(source)") }
        guard let carry, let (old, access) = oldCopy(carried: carry, observed, paths: paths) else { return }
        let oldTables = try SQLiteFile.mapping("cannot read the tables of", old) {
            let queue = try SQLiteFile.open(old, access: access, label: "SeedDB.dryRunTables")
            defer { try? queue.close() }
            return try queue.read { try MergeCatalog.tableNames(in: "main", db: $0) }
        }
        do {
            try ConfiguredTables.check(names, among: Array(Set(seedTables + oldTables)).sorted(), missingFrom: "the working copy or the new seed")
        } catch {
            throw SeedDBError(error.code, "cannot carry the user's data into \(paths.workingCopy): \(error.message)")
        }
    }

    /// For a dry run: the seed tables whose changes the run's carry would replace with the
    /// seed's rows (their policy is `off`) that the user changed, compared as the run
    /// compares them (``TableDigest``), the old copy read only; `[]` for a copy nobody
    /// wrote; `nil` where the run does not name them (every table merges, or there is
    /// nothing to compare with: the run warns of that), and for a switch back from a
    /// read-only link whose previous base is kept compressed (the run restores it first;
    /// the dry run does not). Tables a merge could not merge are known only once it ran,
    /// and are not among them.
    private func wouldDiscard(_ observed: Observed, _ carry: PlannedStep.Carry, _ kind: DeployRequest.Kind, paths: SeedPaths) throws(SeedDBError) -> [String]? {
        let discards: CarryRequest.Discards
        switch carry.discards {
        case .none, .unknown: return nil
        case .unwritten: return []
        case .againstDigests(let digests): discards = .againstDigests(digests)
        case .againstBase:
            switch carry.base {
            case .recorded: discards = .againstBase(paths.base)
            case .previous: discards = .againstBase(paths.previousBase)
            case .previousRestored, .missing: return nil
            }
        }
        guard let (old, access) = oldCopy(carried: carry, observed, paths: paths) else { return nil }
        let policies = carry.merge == .merge ? carryPolicies(kind, observed.seed) : MergePolicies()
        return try TableDigest.discarded(
            policies: policies, preserved: observed.seed.preservedTables, discards, inCopyAt: old, access: access,
            workingCopy: paths.workingCopy, wait: configuration.wait)
    }

    /// For a dry run whose merge could refuse (a `fail` policy): runs the merge on a
    /// scratch copy of the new content in `$TMPDIR`, removed afterwards, so the dry run
    /// fails as the run would (65, conflicts). Nothing beside the working copy is written.
    private func rehearseMerge(_ observed: Observed, _ carry: PlannedStep.Carry, _ plan: DeployPlan, _ kind: DeployRequest.Kind, paths: SeedPaths) throws(SeedDBError) {
        let policies = carryPolicies(kind, observed.seed, plan)
        guard policies.default == .fail || policies.tables.values.contains(.fail),
              let old = carry.from == .previousGeneration ? paths.previousGeneration : observed.workingCopy.contentFile else { return }
        let source = SeedSource(path: plan.restoresPrevious ? paths.previousGeneration : observed.seed.source)
        let temporary = FileSystem.trimmedTemporaryDirectory()
        let (descriptor, scratch) = try FileSystem.createTemporaryFile(in: temporary, stem: paths.name.rawValue, permissions: [.ownerReadWrite])
        var scratchBase: String?
        defer { for file in [scratch] + SeedPaths.sqliteSidecars(of: scratch) + [scratchBase].compactMap(\.self) { try? FileSystem.remove(file) } }
        _ = try FileSystem.writing(descriptor, path: scratch) { () throws(SeedDBError) in try source.copy(to: descriptor, destinationPath: scratch, progress: nil) }
        if plan.restoresPrevious { try GenerationFence.unfence(scratch) }
        let base: String?
        switch carry.base {
        case .recorded: base = paths.base
        case .previous: base = paths.previousBase
        case .previousRestored(let digest):
            base = try effects.files.restoredPreviousBase(of: paths, in: temporary, digest: digest, owner: nil) { scratchBase = $0 }
        case .missing: base = nil
        }
        var merge = policies
        for table in observed.seed.preservedTables { merge.tables[table] = .off }
        try SQLiteFile.mapping("cannot rehearse the merge into", scratch) {
            let queue = try SQLiteFile.open(scratch, access: .readWrite, label: "SeedDB.rehearse")
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                // Nothing is created beside the old copy: `immutable` unless it has a `-wal`.
                let oldQuery = Self.readOnlyAccess(old) == .immutable ? "immutable=1" : "mode=ro"
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [SQLiteFile.uri(old, query: oldQuery)])
                if let base {
                    try db.execute(sql: "ATTACH DATABASE ? AS seeddb_base", arguments: [SQLiteFile.uri(base, query: "immutable=1")])
                }
                var threeWay = ThreeWayMerge(policies: merge, logger: logger)
                threeWay.unchangedTables = try TableDigest.unchangedTables(carry.unchangedIfDigests, in: db, workingCopy: paths.workingCopy, logger: logger)
                _ = try threeWay.merge(in: db, base: base == nil ? nil : "seeddb_base", user: "old", into: "main")
            }
        }
    }

    /// What ``requireExpectedDigest(_:signature:)`` refuses (or fails with), as a value:
    /// `status`'s `"refusal"`.
    private func expectedDigestRefusal(_ observed: Observed) -> SeedDBError? {
        do {
            try requireExpectedDigest(observed, signature: nil)
            return nil
        } catch {
            return error
        }
    }

    /// The state of `seed`, read without a lock and without changing anything.
    public func status(_ seed: Seed) throws(SeedDBError) -> SeedStatus {
        let paths = paths(for: seed)
        let observed = try observe(seed, paths: paths)
        // (None for a database found where the record names a read-only seed's link.)
        let recorded = observed.observation.recorded
        // What an app opening the path finds: a removed link is a missing working copy
        // (the next deploy puts it back), and so is a read-only seed's link whose seed
        // file is gone.
        let seedGone = try observed.workingCopy.seedLinkTarget.map { (seed) throws(SeedDBError) in try effects.files.fileType(at: seed) != .regular } ?? false
        let exists = observed.workingCopy.exists && !observed.workingCopy.linkMissing && !seedGone
        var state = DeployDecision.state(recorded: recorded, current: observed.seed.version, workingCopyExists: exists)
        if let held = observed.entry.heldFrom, held == observed.seed.version, recorded != nil, exists {
            state = .held
        }
        // A link SeedDB did not make (`blocked`) to a database: the app opens one there.
        var opens = exists
        if case .foreign = observed.workingCopy.state {
            opens = (try? effects.files.fileType(at: effects.files.resolvingLinks(paths.workingCopy))) == .regular
        }
        // A read-only seed's link recorded at this version whose seed file is not the one
        // recorded: what the run that looks at it refuses, its digest included.
        let seedChanged = state == .upToDate && observed.workingCopy.seedLinkTarget == seed.source
            && observed.observation.readOnlySeed?.changedSinceLinked == true
        var status = SeedStatus(
            name: seed.name, currentVersion: observed.seed.version, recordedVersion: recorded,
            workingCopy: paths.workingCopy, exists: opens,
            state: state, settingsProblem: observed.problem, heldFrom: observed.entry.heldFrom,
            blocked: { if case .foreign(let what) = observed.workingCopy.state { return what } else { return nil } }(),
            leftovers: observed.observation.leftovers,
            adoptedCopies: observed.observation.adoptedCopies.map(paths.adoptedCopy),
            unaccountedGenerations: observed.observation.unaccountedGenerations.map { paths.inDirectory(paths.generationName($0)) },
            signature: observed.entry.record == nil ? nil : observed.entry.signature,
            pinnedKeyID: observed.entry.signature?.keyID,
            // The seed's digest matters only to a deploy that copies it, or looks at a
            // read-only seed's file changed behind its link.
            refusal: signatureCheck(seed, digest: (state != .upToDate && state != .held) || seedChanged).refusal
                ?? readOnlySeedRefusal(seed, linkedTo: observed.workingCopy.seedLinkTarget, recorded: state == .upToDate ? observed.entry : nil, paths: paths)
                ?? (seedChanged ? expectedDigestRefusal(observed) : nil)
                ?? conflictsDirectoryRefusal(observed, paths: paths))
        status.seedLink = observed.workingCopy.seedLinkTarget
        status.interruptedVersion = observed.entry.interrupted?.version
        return status
    }

    /// What the next `deploy` would refuse of a directory at `<name>.conflicts.json`
    /// (``DeployRefusal/conflictsFileIsADirectory``): the planner's refusal of its plan,
    /// planned from what `status` observed, when that plan merges. `nil` when no directory
    /// is there, or the deploy would merge nothing (up to date, an unwritten copy, merging
    /// off) or be refused for something else first.
    private func conflictsDirectoryRefusal(_ observed: Observed, paths: SeedPaths) -> SeedDBError? {
        guard observed.observation.conflictsFileIsADirectory else { return nil }
        do {
            _ = try DeployPlanner.plan(observed.observation, request(.deploy, observed.seed))
            return nil
        } catch .conflictsFileIsADirectory {
            return failure(refusing: .conflictsFileIsADirectory, observed, paths: paths)
        } catch {
            return nil
        }
    }

    /// ``checkSignature(_:digest:)`` as a report, not a gate: who signed the manifest, or
    /// what a deploy would refuse.
    private func signatureCheck(_ seed: Seed, digest: Bool) -> (signature: SeedSignature?, refusal: SeedDBError?) {
        do {
            return (try checkSignature(seed, digest: digest), nil)
        } catch {
            return (nil, error)
        }
    }

    /// Checks what the seed promises and runs `PRAGMA integrity_check` on the seed and on
    /// the working copy, changing nothing (no file is created, not even SQLite's `-shm`),
    /// and decides what the results amount to (``VerifyReport/failure``): what a deploy
    /// would refuse for the signature (``checkSignature(_:digest:)``, the seed's digest
    /// included) is ``VerifyReport/refusal``; a seed whose
    /// SHA-256 is not the expected one fails as a damaged seed would. A working copy that
    /// is gone while a version is recorded is ``IntegrityResult/missing``; one never
    /// deployed (nothing recorded, no file) is ``IntegrityResult/notDeployed``, not a
    /// failure. A compressed seed is decompressed to a temporary file in `$TMPDIR`.
    /// Something SeedDB did not make at the working-copy path (a directory, a foreign link)
    /// is ``IntegrityResult/blocked(_:)``, a failure as a deploy refuses it (73).
    public func verify(_ seed: Seed) throws(SeedDBError) -> VerifyReport {
        let (signature, refusal) = signatureCheck(seed, digest: true)
        let source = SeedSource(path: seed.source)
        // A seed file that is not there is this seed's failure, found beside the others'.
        let seedFound = try FileSystem.fileType(at: seed.source) != nil
        if seedFound { _ = try source.inspect() }
        let paths = paths(for: seed)
        let entry = try settings(at: paths).snapshot(only: seed.name).entry(of: seed.name)
        let workingCopy = try WorkingCopy.inspect(paths, seedLinks: entry.map { Self.seedLinks(seed, entry: $0) } ?? [])
        var readable = workingCopy.readableFile
        // A read-only seed's link whose seed file is gone (a package removed it) opens
        // nothing: the working copy is missing, as `status` says.
        if workingCopy.contentFile == nil, let target = readable, try FileSystem.fileType(at: target) == nil { readable = nil }
        let copyCheck: IntegrityResult
        if case .foreign(let what) = workingCopy.state {
            // Neither missing nor SeedDB's: what a deploy refuses.
            copyCheck = .blocked(what)
        } else if let content = readable {
            copyCheck = SQLiteFile.integrity(of: content, access: Self.readOnlyAccess(content), full: true)
        } else {
            copyCheck = entry?.record == nil ? .notDeployed : .missing
        }
        let (seedCheck, digest): (IntegrityResult, SHA256Digest?) = seedFound ? try source.withPlainFile { (path) throws(SeedDBError) in
            (SQLiteFile.integrity(of: path, access: .immutable, full: true), try FileDigest.sha256(ofFileAt: path))
        } : (.missing, nil)
        var report = VerifyReport(
            name: seed.name, source: seed.source, workingCopyPath: paths.workingCopy, seed: seedCheck, workingCopy: copyCheck, signature: signature,
            refusal: refusal ?? readOnlySeedRefusal(seed, linkedTo: workingCopy.seedLinkTarget, recorded: entry?.record?.version == seed.version ? entry : nil, paths: paths))
        if let expected = seed.expectedSHA256, let digest, expected != digest {
            report.seed = IntegrityResult.damaged(["SHA-256 is \(digest), expected \(expected)"])
        }
        return report
    }

    /// How to read a database without creating anything beside it: `immutable` when it
    /// has no `-wal` (nothing but the file to read, and nobody else's WAL to honour), an
    /// ordinary read-only connection otherwise (its sidecars already exist).
    /// For a dry run: the old copy `carry` reads, and how to open it without creating
    /// anything beside it (the previous generation is fenced and written by nobody, a
    /// working copy with no `-wal` is read as it is); `nil` when there is none.
    private func oldCopy(carried carry: PlannedStep.Carry, _ observed: Observed, paths: SeedPaths) -> (path: String, access: SQLiteFile.Access)? {
        if carry.from == .previousGeneration { return (paths.previousGeneration, .immutable) }
        return observed.workingCopy.contentFile.map { ($0, Self.readOnlyAccess($0)) }
    }

    private static func readOnlyAccess(_ path: String) -> SQLiteFile.Access {
        let sidecars = ["-wal", "-shm"].map { (try? FileSystem.fileType(at: path + $0)) ?? nil }
        return sidecars.allSatisfy { $0 == nil } ? .immutable : .shared
    }

    // MARK: - Observe, plan, execute

    /// The request a run of `kind` makes, from the configuration.
    ///
    /// - Parameter finished: The plan of a killed run this run finished first, if any: a
    ///   previous generation it kept not knowing what the killed merge carried is kept as
    ///   an adopted copy if this run drops it (``DeployPlan/keptPreviousMayHoldUnmerged``).
    func request(_ kind: DeployRequest.Kind, _ seed: Seed, after finished: DeployPlan? = nil) -> DeployRequest {
        var request = DeployRequest(
            kind: kind, strategy: configuration.strategy, keepPrevious: configuration.keepPrevious, integrity: configuration.integrity,
            stamp: UTCTimestamp.basic(secondsSinceEpoch: effects.clock()))
        request.migrates = configuration.migrator != nil
        request.merges = seed.merge.mergesAnything
        // A cache's content can be regenerated: what it replaces is not reported.
        let namesReplaced = seed.location == .data && !seed.readOnly
        request.replacesEdits = seed.merge.replacesAnything && namesReplaced
        if kind == .reseed, let merge = configuration.reseedMerge {
            request.reseedMerges = merge.mergesAnything
            request.reseedReplacesEdits = merge.replacesAnything && namesReplaced
        }
        request.recordsTableDigests = seed.location == .data && !seed.merge.mergesAnything && !seed.readOnly
        request.namesTables = !ConfiguredTables.names(preserved: seed.preservedTables, merge: seed.merge).isEmpty
        request.linksBaseToSeed = configuration.linksBaseToSeed
        request.keepsPreviousAsAdopted = finished?.keptPreviousMayHoldUnmerged ?? false
        request.fromManifest = seed.manifest != nil
        return request
    }

    /// The merge policies a run of `kind` carries the user's edits with: a reseed's own
    /// (``DeployConfiguration/reseedMerge``), else the seed's. A `plan` that restores the
    /// previous generation (a killed live rollback done again first) carries as a rollback
    /// does, with the seed's.
    func carryPolicies(_ kind: DeployRequest.Kind, _ seed: Seed, _ plan: DeployPlan? = nil) -> MergePolicies {
        kind == .reseed && plan?.restoresPrevious != true ? configuration.reseedMerge ?? seed.merge : seed.merge
    }

    /// The plan for what was observed, or the refusal as the error the run fails with.
    ///
    /// - Parameter finished: The plan of a killed run this run finished first, if any
    ///   (``DeployPlan/keptPreviousMayHoldUnmerged``).
    func decide(_ observed: Observed, _ kind: DeployRequest.Kind, paths: SeedPaths, after finished: DeployPlan? = nil) throws(SeedDBError) -> DeployPlan {
        do {
            return try DeployPlanner.plan(observed.observation, request(kind, observed.seed, after: finished))
        } catch {
            throw failure(refusing: error, observed, paths: paths)
        }
    }

    /// The error a run fails with when the planner refuses it with `refusal`; `observed`
    /// names the adopted copies a refused rollback points to (none when `nil`).
    func failure(refusing refusal: DeployRefusal, _ observed: Observed?, paths: SeedPaths) -> SeedDBError {
        switch refusal {
        case .blocked(let what):
            return WorkingCopy.blocked(paths.workingCopy, what: what)
        case .conflictsFileIsADirectory:
            return SeedDBError(.cannotCreate, "cannot merge into \(paths.workingCopy): \(paths.conflictsFile) is a directory, not SeedDB's conflicts file, and SeedDB never replaces it; nothing was changed; move it away and run again")
        case .sidecarBesidePrevious(let sidecar, let size):
            return Self.sidecarBesidePrevious(sidecar, size: size, paths: paths)
        case .nothingToRollBack:
            let adopted = observed?.observation.adoptedCopies.map(paths.adoptedCopy) ?? []
            let hint = adopted.isEmpty ? "" : "; adopted \(adopted.count == 1 ? "copy" : "copies") kept: \(adopted.joined(separator: ", ")) (to restore one, stop the app and copy it over the working copy; seeddb purge --adopted removes them)"
            return SeedDBError(.seedUnavailable, "no previous generation of \(paths.workingCopy) to roll back to\(hint)")
        case .readOnlyNeedsCopy(let path):
            return SeedDBError(.invalidConfiguration, "\(Self.readOnlyPrefix(paths)): \(NameRules.shown(path: path)) is compressed and needs a copy to be opened; ship it uncompressed, or deploy it without read-only; nothing was changed")
        case .readOnlySeedInWALMode(let path):
            return SeedDBError(.invalidConfiguration, "\(Self.readOnlyPrefix(paths)): \(NameRules.shown(path: path)) is in WAL mode, and the app could open it only where it may create its -shm file beside the seed; ship it in rollback-journal mode (PRAGMA journal_mode=DELETE), or deploy it without read-only; nothing was changed")
        case .readOnlySeedWrongSize(let path, let declared, let size):
            var error = SeedSource.wrongSize(NameRules.shown(path: path), declared: declared, read: size, copying: false)
            error.message += "; nothing was changed"
            return error
        case .readOnlySeedUnstable(let path, let why):
            return SeedDBError(.cannotCreate, "\(Self.readOnlyPrefix(paths)): \(NameRules.quoted(path, limit: 200)) is not an absolute, stable path (\(why)); give the absolute path of the seed as shipped; nothing was changed")
        case .readOnlySeedMissing(let path):
            return SeedDBError(.seedUnavailable, "\(Self.readOnlyPrefix(paths)): seed not found: \(NameRules.shown(path: path)) (its link would open nothing); install the seed, or deploy another; nothing was changed")
        case .readOnlySeedWritable(let path, let who):
            return Self.writableSeed(path, by: who, paths: paths)
        case .readOnlySeedChangedBehindLink(let refusal):
            // As a new link's refusal, saying what the app reads meanwhile.
            var error = failure(refusing: refusal, observed, paths: paths)
            error.message = error.messageBeforeNothingWasChanged.text + "; the link \(paths.workingCopy), recorded at this version, already serves this file (renamed into the seed's path since it was recorded), and the app reads it until a seed that can be linked is shipped" + SeedDBError.nothingWasChanged
            return error
        }
    }

    /// The error of a rollback whose previous generation has `sidecar` (`size` bytes)
    /// beside it: the planner's refusal, and the stage's when one appeared since.
    static func sidecarBesidePrevious(_ sidecar: String, size: Int64, paths: SeedPaths) -> SeedDBError {
        SeedDBError(.invalidSeed, "cannot roll back \(paths.workingCopy): \(sidecar) holds \(size) bytes SeedDB did not write beside the previous generation (it keeps none); move that file away, then run again")
    }

    /// The error of a read-only seed at `path` that `who` could write (or put another file
    /// in the place of): a deploy's refusal, and what `status` and `verify` report.
    static func writableSeed(_ path: String, by who: String, paths: SeedPaths) -> SeedDBError {
        SeedDBError(.cannotCreate, "\(readOnlyPrefix(paths)): \(NameRules.shown(path: path)) is writable by \(who), and the app could change the shipped seed through the link; make it read-only to the app's user (not its own file, no group or other write bit, in directories it cannot write); nothing was changed")
    }

    /// What a deploy would refuse of `seed` as a read-only seed, read-only or the seed its
    /// working copy links to (`linkedTo`), as ``readOnlySeed(_:looking:entry:)`` sees it: for a
    /// link already in place, the seed file writable by the app's user (as the startup
    /// check reads it), and, when `recorded` (the entry, when it records the seed's version)
    /// remembers another seed file than the one there, what would refuse a new link (as
    /// ``DeployRefusal/readOnlySeedChangedBehindLink(_:)``); for a link to be made, what the link step refuses of the seed's
    /// header, path and permissions (a compressed seed, one cut short or in WAL mode, a
    /// path that is not absolute and stable, a seed the app's user could write or replace), not a missing seed or one that is not
    /// a regular file (reported as such). `nil` for a copied seed, and when it would not.
    func readOnlySeedRefusal(_ seed: Seed, linkedTo: String?, recorded: SettingsEntry?, paths: SeedPaths) -> SeedDBError? {
        var linked = seed
        linked.readOnly = seed.readOnly || linkedTo == seed.source
        guard let observed = (try? readOnlySeed(linked, looking: true, entry: recorded)) ?? nil else { return nil }
        if linkedTo == seed.source {
            if let writer = observed.writableBy { return Self.writableSeed(seed.source, by: writer, paths: paths) }
            guard observed.changedSinceLinked, !observed.missing, let refusal = observed.refusal else { return nil }
            return failure(refusing: .readOnlySeedChangedBehindLink(refusal), nil, paths: paths)
        }
        guard !observed.missing, let refusal = observed.refusal else { return nil }
        return failure(refusing: refusal, nil, paths: paths)
    }

    /// The report of a ``deploy(_:)`` of `seed` that has nothing to do, found the way the
    /// startup check finds it (one settings read, and one open of the working copy's
    /// directory for its link and entries; no lock, no hashing, no SQLite) and changing
    /// nothing; `nil` when the deploy has work to do, or something to remember (a seed
    /// file touched since its digest was taken, a signature that differs from the one
    /// recorded). It refuses what ``deploy(_:)`` would refuse for the signature, the pin
    /// included, so an unsigned manifest of a pinned seed is never reported up to date.
    /// ``deploy(_:)`` returns the same report. For a caller that answers "up to date" itself and hands
    /// everything else to ``deploy(_:)``, as `seeddb`'s startup does.
    ///
    /// - Throws: ``SeedDBError`` as ``deploy(_:)`` would before it looks at the lock.
    public func upToDateReport(_ seed: Seed) throws(SeedDBError) -> DeployReport? {
        let (seed, signature, paths, quick) = try quickLook(seed, authenticating: true)
        try requirePinned(signature, entry: quick.entry, seed: seed)
        guard !quick.isNewDigest, let plan = try upToDatePlan(quick), !recordsSignature(signature, entry: quick.entry, plan: plan) else { return nil }
        return signed(report(quick, plan, .deploy, paths: paths), signature, pinned: quick.entry.signature)
    }

    /// The plan of a `deploy` the quick look finds nothing to copy for, or `nil` when it
    /// cannot tell (a damaged settings file, leftovers of a killed run to clean up).
    private func upToDatePlan(_ quick: Observed) throws(SeedDBError) -> DeployPlan? {
        guard quick.problem == nil, let plan = try? DeployPlanner.plan(quick.observation, request(.deploy, quick.seed)), !plan.action.copies,
              !plan.finishesInterrupted
        else { return nil }
        // From the quick look's read of the directory: a killed run's temporary files (its
        // held copy of a regular file among them), or the sidecars of a gone generation,
        // are work for a locked run.
        let listing = quick.workingCopy.listing()
        guard !listing.temporaries, listing.heldCopies.isEmpty, Set(listing.sidecarGenerations).isSubset(of: listing.generations) else { return nil }
        // A read-only seed's link is the working copy: with its seed file gone it opens
        // nothing, a seed the app's user could write since is no longer read-only, and
        // another file renamed into its path at this version is not the one recorded; the
        // run that looks at the seed says so (one `stat`, for such a seed only).
        if let seed = quick.workingCopy.seedLinkTarget,
           seedLinkNeedsALook(seed, workingCopy: paths(for: quick.seed).workingCopy, entry: quick.entry, expected: quick.seed.expectedSHA256) { return nil }
        return plan
    }

    /// Observes, plans and, when there is work, executes under the deploy lock.
    private func run(_ seed: Seed, _ kind: DeployRequest.Kind) throws(SeedDBError) -> DeployReport {
        let work: Work
        switch try look(seed, kind) {
        case .answered(let report): return report
        case .work(let found): work = found
        }
        return try locked(work.seed, kind, signature: work.signature, paths: work.paths, hashed: work.quick.sourceDigest) { (done) throws(SeedDBError) in
            try finished(done, work, kind)
        }
    }

    /// A seed the quick look found work for.
    struct Work {
        /// The seed, as a trusted key vouched for it.
        var seed: Seed
        /// Who signed its manifest, when a key is trusted or pinned.
        var signature: SeedSignature?
        /// Its paths.
        var paths: SeedPaths
        /// What the quick look saw.
        var quick: Observed
    }

    /// What the quick look of a run found: its answer, or work for a locked run.
    enum Look {
        case answered(DeployReport)
        case work(Work)
    }

    /// The start of every run: the signature checked, then the startup hot path (one
    /// settings read and one open of the working copy's directory; no lock, no hashing, no SQLite;
    /// with `version: auto`, one stat of the seed), which answers an up-to-date deploy.
    func look(_ seed: Seed, _ kind: DeployRequest.Kind) throws(SeedDBError) -> Look {
        let (seed, signature, paths, quick) = try quickLook(seed, authenticating: kind != .rollback)
        if kind != .rollback { try requirePinned(signature, entry: quick.entry, seed: seed) }
        if kind == .deploy, let plan = try upToDatePlan(quick) {
            if quick.isNewDigest {
                // Same content under a new identity (touched, copied): remember it.
                try records(at: paths).update(timeout: configuration.wait) { $0[seed.name.rawValue]?.source = quick.sourceDigest }
            }
            try rememberSignature(signature, entry: quick.entry, plan: plan, paths: paths)
            // `--owner`/`--mode`: one more lstat, of the content file (or a read-only seed's
            // link), and a repair if it drifted.
            try repairOwnership(quick.workingCopy)
            return .answered(signed(report(quick, plan, kind, paths: paths), signature, pinned: quick.entry.signature))
        }
        if case .foreign(let what) = quick.workingCopy.state { throw WorkingCopy.blocked(paths.workingCopy, what: what) }
        // A read-only seed the plan refuses whatever the disk holds (compressed, at a path
        // that is not absolute and stable) is refused before the lock: the run creates
        // nothing. (A killed run's marker is finished first, under the lock.)
        if kind != .rollback, quick.observation.interrupted == nil, quick.observation.readOnlySeed != nil {
            do {
                _ = try DeployPlanner.plan(quick.observation, request(kind, quick.seed))
            } catch let refusal {
                switch refusal {
                case .readOnlyNeedsCopy, .readOnlySeedUnstable: throw failure(refusing: refusal, quick, paths: paths)
                default: break
                }
            }
        }
        if kind == .rollback {
            // Refused before the lock when there is nothing to roll back (a rollback then
            // creates nothing), once the settings file's own debris is gone (under its lock).
            let observed = try observe(seed, paths: paths)
            do {
                _ = try DeployPlanner.plan(observed.observation, request(kind, observed.seed))
            } catch .nothingToRollBack where !observed.observation.leftovers.isEmpty {
                // What a killed run left in the working copy's directory is removed under
                // the lock: the locked run refuses the same, after removing it.
            } catch {
                if error == .nothingToRollBack { removeStaleSettingsFiles(paths) }
                throw failure(refusing: error, observed, paths: paths)
            }
        }
        return .work(Work(seed: seed, signature: signature, paths: paths, quick: quick))
    }

    /// The quick look of the startup check, with the settings file read once: the seed as
    /// a signed manifest vouches for it when `authenticating` (before anything else is
    /// looked at or copied: only what a trusted key signed), its signature, its paths and
    /// what the quick observation saw.
    private func quickLook(_ seed: Seed, authenticating: Bool) throws(SeedDBError) -> (Seed, SeedSignature?, SeedPaths, Observed) {
        let named = paths(for: seed)
        let snapshot = try records(at: named).snapshot(only: seed.name)
        let (vouched, signature) = authenticating ? try authenticate(seed, snapshot: snapshot) : (seed, nil)
        // The vouched seed has the same app and name: the same paths and settings, unless it
        // is deployed to another location.
        let samePaths = vouched.app.rawValue.hasSameBytes(as: seed.app.rawValue) && vouched.name.rawValue.hasSameBytes(as: seed.name.rawValue)
            && vouched.location == seed.location
        let paths = samePaths ? named : paths(for: vouched)
        let quick = try observe(vouched, paths: paths, quick: true, snapshot: samePaths ? snapshot : nil)
        return (vouched, signature, paths, quick)
    }

    /// The end of a run with work: the signature reported.
    func finished(_ done: DeployReport, _ work: Work, _ kind: DeployRequest.Kind) throws(SeedDBError) -> DeployReport {
        kind == .rollback ? done : signed(done, work.signature, pinned: work.quick.entry.signature)
    }

    /// The `repair-ownership` step of a plan with nothing to copy (an up-to-date or held
    /// copy whose owner or mode drifted), under the deploy lock the caller holds.
    func repairOwnershipWithoutCopy(_ plan: DeployPlan, _ observed: Observed, paths: SeedPaths) throws(SeedDBError) {
        // (The step is planned only where a drift was seen: on a content file or a link.)
        for case .repairOwnership(let drift) in plan.steps {
            try OwnershipRepair.apply(paths, content: observed.workingCopy.contentFile, drift: drift, policy: configuration.files, files: effects.files, logger: logger)
        }
    }

    /// The part of a run with work to do: under the deploy lock, observe, plan, execute
    /// (and first finish an interrupted run).
    private func locked(
        _ seed: Seed, _ kind: DeployRequest.Kind, signature: SeedSignature?, paths: SeedPaths, hashed: SourceDigest?,
        then finish: (DeployReport) throws(SeedDBError) -> DeployReport
    ) throws(SeedDBError) -> DeployReport {
        try withDeployLock(paths) { (lock, deadline) throws(SeedDBError) in
            try finish(try lockedRun(seed, kind, signature: signature, paths: paths, hashed: hashed, lock: lock, deadline: deadline))
        }
    }

    /// Observes, plans and executes under the deploy lock (and first finishes an
    /// interrupted run). A failure after such a finish says so: the finish stays.
    private func lockedRun(
        _ seed: Seed, _ kind: DeployRequest.Kind, signature: SeedSignature?, paths: SeedPaths, hashed: SourceDigest?,
        lock: any DeployLock, deadline: ContinuousClock.Instant
    ) throws(SeedDBError) -> DeployReport {
        var finished: DeployReport?
        do {
            return try lockedPasses(seed, kind, signature: signature, paths: paths, hashed: hashed, lock: lock, deadline: deadline, finished: &finished)
        } catch {
            guard let finished else { throw error }
            let note = "a run that was interrupted was finished first (\(finished.action.rawValue) \(finished.to))"
            let (before, changedNothing) = error.messageBeforeNothingWasChanged
            let message = changedNothing ? before + "; nothing else was changed: " + note : before + "; " + note
            throw SeedDBError(error.code, message, underlying: error.underlying, remedy: error.remedy)
        }
    }

    /// ``lockedRun(_:_:signature:paths:hashed:lock:deadline:)``'s passes: `finished` is
    /// the report of an interrupted run a pass finished.
    private func lockedPasses(
        _ seed: Seed, _ kind: DeployRequest.Kind, signature: SeedSignature?, paths: SeedPaths, hashed: SourceDigest?,
        lock: any DeployLock, deadline: ContinuousClock.Instant, finished: inout DeployReport?
    ) throws(SeedDBError) -> DeployReport {
        var lookAgain = false
        var finishedPlan: DeployPlan?
        // An interrupted run is finished (or undone) first; a copy found written since the
        // run took it for unwritten is looked at again (the next plan merges); then what
        // was asked.
        for _ in 0..<3 {
            lookAgain = false
            let observed = try observe(seed, paths: paths, lock: lock, known: hashed, planning: kind)
            if kind != .rollback { try requirePinned(signature, entry: observed.entry, seed: seed) }
            if finished == nil { warnOfUnfinishedRelease(observed, kind, paths: paths) }
            let plan: DeployPlan
            do {
                plan = try DeployPlanner.plan(observed.observation, request(kind, observed.seed, after: finishedPlan))
            } catch {
                // A rollback with nothing to roll back copies nothing: it removes what
                // killed runs left, as any such run does, then fails; but not a previous
                // generation a killed live run set aside before its commit (the run that
                // finishes that one drops it): a failed rollback destroys nothing. Nor
                // anything a killed live replace left: the run that does it again may
                // stage the copy of its seed it kept.
                if error == .nothingToRollBack, !observed.observation.redoesKilledLiveReplace {
                    removeLeftovers(observed, .nothing, paths: paths, keepingSetAsidePrevious: true)
                }
                throw failure(refusing: error, observed, paths: paths)
            }
            if kind != .rollback { try requirePinned(signature, finishing: plan, entry: observed.entry, seed: seed) }
            // Work to run: a copy, or a killed run to undo (`reinstate`, which copies nothing).
            guard plan.names.contains(where: { $0 != .cleanUp && $0 != .repairOwnership }) else {
                if kind == .deploy { try rememberSignature(signature, entry: observed.entry, plan: plan, paths: paths) }
                removeLeftovers(observed, plan, paths: paths)
                try repairOwnershipWithoutCopy(plan, observed, paths: paths)
                let done = finished ?? report(observed, plan, kind, paths: paths)
                if plan.finishesInterrupted { warnOfFinishedRun(done, at: paths) }
                return done
            }
            warnOfReplacedRun(observed, plan, paths: paths, dryRun: false)
            var target = try target(observed, plan, kind, paths: paths)
            (target.signature, target.manifest) = (signature, seed.manifest)
            let executor = DeployExecutor(context: context(at: paths), target: target, lock: lock, deadline: deadline)
            var done: DeployReport
            do {
                done = try executor.run(plan)
            } catch {
                guard error.underlying is DeployExecutor.WrittenSinceLooked else { throw error }
                logger.debug("\(paths.workingCopy) was written while the run staged; looking again")
                lookAgain = true
                continue
            }
            guard plan.finishesInterrupted else { return done }
            // Undone (`reinstate` said so): what was asked is planned and reported next.
            if plan.undoesInterrupted { continue }
            reportCarry(of: observed.entry.interrupted, in: &done, paths: paths)
            warnOfFinishedRun(done, at: paths)
            if plan.finishesWhatWasAsked { return done }
            finished = done
            finishedPlan = plan
        }
        // Reached only when the copy was written under the run again and again.
        guard let finished, !lookAgain else {
            throw SeedDBError(.inUse, "cannot replace \(paths.workingCopy): it was written while the run staged, more than once; run again")
        }
        return finished
    }

    /// For a run killed after its carry and finished by this one: what the killed run's
    /// carry did, as its marker wrote it down before the switch (the tables carried, the
    /// merge's counts, the tables whose changes it replaced), with the side each conflict
    /// kept from the conflicts file that merge wrote. `done` as it was when the marker
    /// says nothing of a carry.
    func reportCarry(of killed: SettingsEntry.InterruptedRun?, in done: inout DeployReport, paths: SeedPaths) {
        guard let outcome = killed?.carry else { return }
        done.carried = outcome.carried
        done.merge = outcome.merge
        done.discarded = outcome.discarded
        if outcome.merge != nil, let conflicts = try? conflictList(at: paths) {
            done.conflictsKept = conflicts.map(\.kept)
        }
    }

    /// Warns that a run finished a killed one, as `done` reports it.
    func warnOfFinishedRun(_ done: DeployReport, at paths: SeedPaths) {
        logger.warning("\(paths.workingCopy): finished a run that was interrupted (\(done.action) \(done.to))")
    }

    /// Warns that `plan` takes the place of a killed run it does not finish (its marker
    /// stands until this run's own replaces it).
    func warnOfReplacedRun(_ observed: Observed, _ plan: DeployPlan, paths: SeedPaths, dryRun: Bool) {
        guard let killed = observed.entry.interrupted, !plan.finishesInterrupted, plan.withdraw != nil else { return }
        let recorded = killed.replacing.map { "; \($0.version) was recorded" } ?? ""
        logger.warning("\(paths.workingCopy): a run that was interrupted (installing \(killed.version)\(recorded)) \(dryRun ? "would be" : "is") replaced by this one")
    }

    /// Removes what the observation proved disposable and keeps a killed run's held
    /// copies as adopted copies, as `plan` says, in a run that has nothing to copy (a run
    /// that copies does both in its `clean-up` step); and the temporary files a killed
    /// write of the settings left (a run that writes the settings removes those first).
    /// With `keepingSetAsidePrevious`, what a killed run set aside of the previous
    /// generation (``isSetAsidePreviousGeneration(_:of:)``) stays.
    func removeLeftovers(_ observed: Observed, _ plan: DeployPlan, paths: SeedPaths, keepingSetAsidePrevious: Bool = false) {
        context(at: paths).keepHeldCopies(plan.keepsHeldCopies, of: paths)
        removeStaleSettingsFiles(paths)
        for leftover in observed.observation.leftovers where !(keepingSetAsidePrevious && Self.isSetAsidePreviousGeneration(leftover, of: paths)) {
            do {
                try effects.files.remove(leftover)
            } catch {
                logger.warning("could not remove \(leftover): \(error.message)")
            }
        }
    }

    /// Whether `path` is what a run set aside of the previous generation, to be removed
    /// once that run succeeded: the generation (`.<name>.seeddb-<random>.previous.tmp`,
    /// or a journal of it), its merge base (`….previous-base.tmp`) or a sidecar
    /// (`….previous-sidecar.tmp`).
    static func isSetAsidePreviousGeneration(_ path: String, of paths: SeedPaths) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasBytePrefix(FileSystem.temporaryPrefix(paths.name.rawValue)) else { return false }
        let kinds = [".previous.tmp", ".previous-base.tmp", ".previous-sidecar.tmp"]
        return kinds.contains { kind in ([""] + SeedPaths.sqliteSidecarSuffixes).contains { name.hasByteSuffix(kind + $0) } }
    }

    /// Removes the temporary files a killed write of the settings left, under the
    /// settings' write lock; a failure is only warned of.
    private func removeStaleSettingsFiles(_ paths: SeedPaths) {
        do {
            _ = try records(at: paths).removeStaleTemporaryFiles(timeout: configuration.wait)
        } catch {
            logger.warning("could not remove the temporary files beside \(paths.settingsFile): \(error.message)")
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

        /// The version the previous generation on disk holds, as a rollback records it:
        /// the replaced version when a killed live replace made it its snapshot, the
        /// recorded previous generation's otherwise, ``DeployRecord/adoptedVersion``
        /// when nothing records it.
        var restorableVersion: SeedVersion {
            if observation.interrupted?.previousIsSnapshot == true, let replaced = entry.interrupted?.replacing { return replaced.version }
            return entry.previous?.version ?? DeployRecord.adoptedVersion
        }
    }

    /// Reads the settings entry (once), inspects the working copy and, under the lock,
    /// who uses it.
    ///
    /// - Parameters:
    ///   - quick: The startup check: decode only this seed's entry, and look at nothing
    ///     but the working copy's directory (its link and entries); otherwise every entry
    ///     is checked (so a damaged one is reported), and the seed, the previous
    ///     generation and the bases are looked at too.
    ///   - read: The settings the caller read for this `quick` look (only this seed's entry
    ///     decoded), instead of reading them again.
    ///   - lock: The deploy lock, when held: use is observed only then.
    ///   - known: A digest of the seed file this run already computed.
    ///   - kind: The run this observation is planned for and executed (or rehearsed, for a
    ///     dry run); only then are merge bases hashed: `<name>.base` when a merge could use
    ///     it (a replace skips the merge into an untouched copy, a rollback does not), and
    ///     the base an interrupted run wrote down. `status` and the quick looks hash nothing.
    /// - Throws: ``SeedDBError`` `conflictingSeed` when the name is recorded for the other
    ///   location.
    func observe(_ seed: Seed, paths: SeedPaths, quick: Bool = false, snapshot read: SettingsSnapshot? = nil, lock: (any DeployLock)? = nil, known: SourceDigest? = nil, planning kind: DeployRequest.Kind? = nil) throws(SeedDBError) -> Observed {
        let files = effects.files
        precondition(read == nil || quick, "a snapshot of one entry is only for the quick look")
        let snapshot: SettingsSnapshot
        if let read {
            snapshot = read
        } else {
            let store = records(at: paths)
            snapshot = quick ? try store.snapshot(only: seed.name) : try store.snapshot()
        }
        let entry = try snapshot.entry(of: seed.name) ?? SettingsEntry()
        // A run other than a rollback that meets a killed live rollback does that rollback
        // again first (`DeployObservation.redoesKilledLiveRollback`): it looks at the bases
        // as the rollback does (a copy left unwritten still merges against its checked base),
        // a read-only seed's run too.
        let looking = kind != nil && kind != .rollback
            && entry.interrupted.map { $0.isRollback && $0.isLive } == true ? .rollback : kind
        let seedLinks = Self.seedLinks(seed, entry: entry)
        var workingCopy = quick
            ? try WorkingCopy.inspect(paths, seedLinks: seedLinks, files: files)
            : try WorkingCopy.inspect(paths, recordedGeneration: entry.generation, seedLinks: seedLinks, files: files)
        // A database there that is a second name of the seed file (a hard link made by hand)
        // is the package's file: SeedDB never writes it (a replace fences the old copy).
        if !quick, let content = workingCopy.contentFile, workingCopy.observed.seedLinkTarget == nil,
           let found = try? files.identity(of: content), let shipped = try? files.identity(of: seed.source),
           found.sameFile(as: shipped) {
            workingCopy = WorkingCopy(paths: paths, files: files, state: .foreign("a second name (a hard link) of the seed file \(seed.source)"), entries: workingCopy.entries)
        }
        try requireSameLocation(seed, entry: entry, workingCopy: workingCopy)
        let resolved = try resolve(seed, entry: entry, workingCopyExists: workingCopy.exists, lookingAtSeed: !quick, known: known)
        let checked = entry.checked.flatMap { memo in
            resolved.source.map(\.sha256) == memo.sha256 || seed.expectedSHA256 == memo.sha256 ? memo.integrity : nil
        }
        let previousExists = quick ? false : try files.fileType(at: paths.previousGeneration) == .regular
        var interrupted: DeployObservation.Interrupted?
        if let run = entry.interrupted {
            // Hashed only after a killed live replace that wrote its snapshot's digest down.
            var previousIsSnapshot = false
            if previousExists, let snapshot = run.snapshot {
                previousIsSnapshot = try files.sha256(of: paths.previousGeneration) == snapshot
            }
            // A read-only run that adopted what it found in place of the link the record
            // named: the record it replaced (the link's) says nothing of that database.
            let replacedLinkRecord = run.seedLink != nil && run.adopting && entry.seedLink != nil
            var marker = DeployObservation.Interrupted(
                version: run.version, generation: run.generation.flatMap(paths.generationNumber(of:)),
                replacing: replacedLinkRecord ? nil : run.replacing?.version, isRollback: run.isRollback, previousIsSnapshot: previousIsSnapshot,
                replacingGeneration: run.replacingGeneration.flatMap(paths.generationNumber(of:)), adopting: run.adopting)
            marker.replacedAFile = run.replacingFile != nil
            marker.isReseed = run.isReseed
            switch run.runSignature {
            case .unknown: break
            case .unsigned: marker.signature = .this(nil)
            case .signed(let signature): marker.signature = .this(signature)
            }
            if let replaced = run.replacingFile, workingCopy.observed == .file, let found = try? files.identity(of: paths.workingCopy) {
                marker.replacedFileInPlace = found.sameFile(as: replaced)
            }
            marker.replacingRecord = run.replacing
            marker.base = run.base
            marker.seedTables = run.seedTables
            marker.seedLink = run.seedLink
            marker.tableDigests = run.tableDigests
            marker.snapshot = run.snapshot
            marker.merged = run.carry?.merge != nil
            marker.replacedEdits = run.carry?.discarded?.isEmpty == false
            if !quick, looking != nil, let base = run.base {
                marker.baseFoundAt = try baseFound(base, paths: paths, generation: marker.generation, isRollback: run.isRollback)
            }
            interrupted = marker
        }
        let listing = quick
            ? WorkingCopy.Listing(generations: [], sidecarGenerations: [], stagedBases: [], adoptedCopies: [])
            : workingCopy.listing()
        // A record of a read-only seed's link says nothing of a database found in its place
        // with no run under way (a file put there by hand, a link to a generation): no
        // record matches it, and it is adopted like one with no record. Nor does a record
        // of a generation file that is still there say anything of a regular file in the
        // link's place (a database put there by hand): that generation holds what the
        // record describes (and what the user wrote into it).
        let recordsAnotherFile = workingCopy.observed == .file && entry.interrupted == nil
            && (try? entry.generation.map { try files.fileType(at: paths.inDirectory($0)) == .regular }) == true
        let recordMatches = (entry.seedLink == nil || entry.interrupted != nil || !workingCopy.exists || workingCopy.observed.seedLinkTarget != nil)
            && !recordsAnotherFile
        var observation = DeployObservation(
            recorded: recordMatches ? entry.record?.version : nil,
            recordedGeneration: entry.generation.flatMap(paths.generationNumber(of:)),
            interrupted: interrupted, heldFrom: entry.heldFrom, previousRecorded: entry.previous != nil,
            previousAdopted: entry.previous?.version == DeployRecord.adoptedVersion,
            workingCopy: workingCopy.observed, linkMissing: workingCopy.linkMissing, generationFiles: listing.generations,
            sidecarGenerations: listing.sidecarGenerations, stagedBases: listing.stagedBases, adoptedCopies: listing.adoptedCopies,
            leftoversFound: listing.temporaries,
            previousExists: previousExists,
            current: resolved.seed.version, alreadyChecked: checked,
            usage: try lock.map { (lock) throws(SeedDBError) in try usage(of: workingCopy, lock: lock) } ?? .idle)
        observation.previousSidecars = listing.previousSidecars
        observation.previousSidecarWithContent = files.sidecarWithContent(of: paths.previousGeneration, among: listing.previousSidecars)
        observation.adoptedSidecarStamps = listing.adoptedSidecarStamps
        observation.records = DeployObservation.Records(
            current: entry.record, previous: entry.previous, base: entry.base, signature: entry.signature, passedCheck: entry.checked)
        if let source = resolved.source, source.sha256 == entry.checked?.sha256 { observation.vouchedDigest = source.sha256 }
        observation.recordedSeedLink = entry.seedLink
        observation.readOnlySeed = try readOnlySeed(seed, looking: !quick, entry: entry)
        if !quick {
            observation.ownershipDrift = try OwnershipRepair.drift(of: workingCopy, policy: configuration.files, files: files)
            observation.conflictsFileIsADirectory = try workingCopy.conflictsFileIsADirectory()
            // A killed run's marker withdrew the record but kept its identity: a run killed
            // before it switched left that very file, unwritten or not, in place.
            let recorded = entry.interrupted.map { $0.replacing != nil } ?? (entry.record != nil)
            if recorded, let pristine = entry.pristine, let content = workingCopy.contentFile {
                // A copy in WAL mode is never taken for unwritten: the writer's lock opens it
                // with its `-wal`, which the carry's second look then finds (NOTES.md), and a
                // dry run must not promise the skip the run does not make. An unwritten copy
                // holds the base's bytes, so the base's header tells, read instead of the
                // copy's own: opening and closing the copy in the app's process would drop
                // the app's SQLite locks.
                observation.untouchedSeed = try files.isUnwritten(content, since: pristine)
                    && (try? files.readPrefix(of: paths.base, count: SQLiteHeader.length)).flatMap(SQLiteHeader.init)?.isWAL != true
            }
            let base = try files.fileType(at: paths.base) == .regular
            observation.baseFiles = DeployObservation.BaseFiles(base: base, previousBase: try files.fileType(at: paths.previousBase) == .regular)
            observation.baseFiles.previousBaseCompressed = try files.fileType(at: paths.previousBaseCompressed) == .regular
            // Looked at first: a base whose bytes no other file holds is compressed as the
            // previous one, which takes zstd, loaded (a `dlopen`) only then, not for a base
            // a reflink or a second name shares. Without zstd such a base is left unknown
            // (`nil`) and keeps a second name, as before.
            if looking != nil, base {
                let shared = try baseShared(paths, previousBase: observation.baseFiles.previousBase)
                if shared || files.compresses { observation.baseFiles.baseShared = shared }
            }
            // Restored and hashed only where a rollback could restore it as the base, against
            // the previous generation it was made against; without libzstd it cannot be, and
            // the rollback goes ahead without it, and says so: under its lock, and in its dry
            // run (which observes once, without the lock).
            if looking == .rollback, observation.baseFiles.previousBaseCompressed, !observation.baseFiles.previousBase, previousExists, let recorded = entry.previous?.base {
                var matches = false
                if files.compresses { matches = try files.sha256(ofDelta: paths.previousBaseCompressed, against: paths.previousGeneration) == recorded }
                observation.baseFiles.previousBaseCompressedMatchesRecord = matches
                if !matches {
                    let problem = files.compresses ? "does not match the recorded seed" : "cannot be restored without libzstd (libzstd.so.1)"
                    logger.warning("merge base \(paths.previousBaseCompressed) \(problem): the rollback restores no base (the next upgrade merges without one)")
                }
            } else if looking == .rollback, !observation.baseFiles.previousBase, !observation.baseFiles.previousBaseCompressed, previousExists, entry.previous?.base != nil {
                // Removed (or something not a file in its place): the rollback says so too.
                logger.warning("merge base \(paths.previousBase) is missing (and \(paths.previousBaseCompressed) too): the rollback restores no base (the next upgrade merges without one)")
            }
            // The copy that takes the place of a link to a read-only seed (there, or removed
            // since it was recorded) merges against the previous generation's base (or names
            // by it the tables whose changes it replaces): hashed, or restored and hashed,
            // only then.
            if let looking, looking != .rollback, !seed.readOnly, observation.replacesSeedLink, previousExists, let recorded = entry.previous?.base,
               carryPolicies(looking, resolved.seed).mergesAnything || resolved.seed.location == .data {
                if observation.baseFiles.previousBase {
                    observation.baseFiles.previousBaseMatchesRecord = try files.sha256(of: paths.previousBase) == recorded
                } else if observation.baseFiles.previousBaseCompressed, files.compresses {
                    observation.baseFiles.previousBaseCompressedMatchesRecord =
                        try files.sha256(ofDelta: paths.previousBaseCompressed, against: paths.previousGeneration) == recorded
                }
            }
            // Hashed only where a carry could use it, to merge or (a data seed) to name the
            // tables whose changes it replaces; not for a copy the user has not written,
            // unless a rollback's.
            if let looking, base, carryPolicies(looking, resolved.seed).mergesAnything || resolved.seed.location == .data, !seed.readOnly || looking == .rollback,
               workingCopy.exists, looking == .rollback || !observation.untouchedSeed, let recorded = entry.base {
                // Not hashed again while it keeps the identity it had when its digest was known.
                var matches = false
                if let identity = entry.baseIdentity { matches = try files.identity(of: paths.base) == identity }
                if !matches { matches = try files.sha256(of: paths.base) == recorded }
                observation.baseFiles.baseMatchesRecord = matches
                if !matches, let run = entry.interrupted, run.isLive, !run.isRollback, let staged = run.base {
                    observation.baseFiles.baseIsInterruptedLiveBase = try files.sha256(of: paths.base) == staged
                }
            }
            observation.leftovers = workingCopy.leftovers(disposable: observation.disposableGenerations, in: listing)
            // A killed live replace met by a rollback, or by a run of another version: the
            // copy of its seed it staged (its merge base), already in place as `<name>.base`
            // or found among its temporary files by its digest, for the planner to do that
            // replace again first.
            if let looking, observation.redoesKilledLiveReplace, let run = entry.interrupted, let staged = run.base,
               looking == .rollback || run.version != resolved.seed.version {
                if observation.baseFiles.baseIsInterruptedLiveBase == true { observation.interrupted?.stagedSeed = paths.base }
                for path in listing.removableTemporaries where observation.interrupted?.stagedSeed == nil && path.hasByteSuffix(".base.tmp") {
                    guard (try? files.fileType(at: path)) == .regular, (try? files.sha256(of: path)) == staged else { continue }
                    observation.interrupted?.stagedSeed = path
                    break
                }
            }
            observation.heldCopies = listing.heldCopies
            if let replaced = entry.interrupted?.replacingFile {
                observation.interrupted?.heldReplacedFile = listing.heldCopies.first { held in
                    guard let found = try? files.identity(of: held) else { return false }
                    return found.sameFile(as: replaced)
                }
            }
            if configuration.linksBaseToSeed { observation.seedFile = seedFile(resolved.seed.source, beside: paths) }
        }
        return Observed(
            seed: resolved.seed, entry: entry, problem: snapshot.problem, workingCopy: workingCopy,
            sourceDigest: resolved.source, isNewDigest: resolved.isNewDigest, observation: observation)
    }

    /// What the planner weighs before making the merge base a hard link to the seed
    /// file at `source`: whether it is a plain regular file (not compressed, not a
    /// symbolic link), on the working copy's file system, that only root can change.
    /// `nil` when it cannot be looked at (then no link is made).
    private func seedFile(_ source: String, beside paths: SeedPaths) -> DeployObservation.SeedFile? {
        let files = effects.files
        guard let type = try? files.fileType(at: source), let (mode, owner) = (try? files.modeAndOwner(of: source)) ?? nil,
              let device = try? files.identity(of: source).device else { return nil }
        let directory = try? files.identity(of: paths.directory).device
        return DeployObservation.SeedFile(
            plain: type == .regular && SeedSource(path: source).compression == .none,
            sameFileSystem: device == directory,
            onlyRootWrites: owner.uid == 0 && mode & 0o022 == 0)
    }

    /// Where the merge base a killed run wrote down (`digest`) is now: in place, staged
    /// under its generation's name (a replace), or still the previous generation's (a
    /// rollback, whose stage restored it from its delta before the run was marked);
    /// `nil` when no file has that digest.
    private func baseFound(_ digest: SHA256Digest, paths: SeedPaths, generation: Int?, isRollback: Bool) throws(SeedDBError) -> PlannedStep.BaseLocation? {
        let candidates: [PlannedStep.BaseLocation] = [.inPlace] + (generation.map { [.staged(generation: $0)] } ?? []) + (isRollback ? [.previous] : [])
        for candidate in candidates {
            let path = paths.path(of: candidate)
            guard try effects.files.fileType(at: path) == .regular else { continue }
            if try effects.files.sha256(of: path) == digest { return candidate }
        }
        return nil
    }

    /// Whether `<name>.base`'s bytes are held by another file too: a name beside SeedDB's
    /// own (`<name>.previous.base` as a second name of it is set aside by the run that keeps
    /// this one as the previous generation's), or extents shared by a reflink.
    private func baseShared(_ paths: SeedPaths, previousBase: Bool) throws(SeedDBError) -> Bool {
        let files = effects.files
        let sharing = try files.sharing(of: paths.base)
        var others = sharing.names - 1
        if previousBase, try files.identity(of: paths.previousBase).sameFile(as: files.identity(of: paths.base)) { others -= 1 }
        return sharing.sharedExtents || others > 0
    }

    /// Who uses the working copy, seen under the deploy lock: an open `SeedDatabase`, and
    /// for `auto`, whether a swap could have the old copy now (so a busy database is
    /// planned live before the seed is staged).
    private func usage(of workingCopy: WorkingCopy, lock: any DeployLock) throws(SeedDBError) -> DeployObservation.Usage {
        var usage = DeployObservation.Usage(handleOpen: try lock.handleOpenElsewhere())
        if configuration.strategy == .auto, !usage.handleOpen, let old = workingCopy.contentFile {
            usage.connectionsBusy = !effects.database.swapLooksFree(old)
        }
        return usage
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
            recorded = try WorkingCopy.inspect(paths(for: elsewhere), files: effects.files).exists ? other : nil
        }
        guard let recorded, recorded != seed.location else { return }
        throw SeedDBError(.conflictingSeed, "working copy \(NameRules.quoted(seed.name.rawValue)) of \(seed.app) is recorded in the \(recorded.rawValue) location, not \(seed.location.rawValue); to move it, purge it from the \(recorded.rawValue) location, then deploy")
    }

    /// The target of a run of `kind`: the seed, or the previous generation for a plan that
    /// restores it (a rollback's, or a killed live rollback's done again by a deploy or a reseed); for
    /// a plan that finishes an interrupted run, what that run was installing.
    func target(_ observed: Observed, _ plan: DeployPlan, _ kind: DeployRequest.Kind, paths: SeedPaths) throws(SeedDBError) -> DeployTarget {
        var target = DeployTarget(
            paths: paths, source: observed.seed.source, version: observed.seed.version,
            expectedSHA256: observed.seed.expectedSHA256, knownSourceDigest: observed.sourceDigest,
            preservedTables: observed.seed.preservedTables, merge: carryPolicies(kind, observed.seed, plan), location: observed.seed.location,
            // A killed run's marker stands in for the record it withdrew.
            replacedVersion: (observed.entry.record ?? observed.entry.interrupted?.replacing)?.version, settingsBackup: try records(at: paths).backup())
        if observed.observation.untouchedSeed { target.unwrittenSince = observed.entry.pristine }
        if plan.restoresPrevious {
            // A rollback (or a killed live one done again). A previous generation on disk
            // whose record was lost is restored all the same.
            target.source = paths.previousGeneration
            target.version = observed.restorableVersion
            target.expectedSHA256 = nil
            target.knownSourceDigest = nil
        } else if let staged = plan.stagesKilledRunsSeed, let interrupted = observed.entry.interrupted {
            // A killed live replace of another version done again, from the copy of its
            // seed it staged, which must still hold the digest its marker names.
            target.source = staged
            target.version = interrupted.version
            target.expectedSHA256 = interrupted.base
            target.knownSourceDigest = nil
        } else if plan.action == .restored, let recorded = observed.entry.record {
            // A link put back to the recorded generation: up to date, or held.
            target.version = recorded.version
        } else if plan.finishesInterrupted, let interrupted = observed.entry.interrupted {
            target.version = interrupted.version
            // Nothing is staged: the seed this run was asked for may not be what the killed
            // run installed. A linked seed's digest stays known by its identity (checked
            // before use).
            target.expectedSHA256 = nil
            if interrupted.seedLink == nil { target.knownSourceDigest = nil }
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

    /// Resolves `version: auto` to the SHA-256 of the seed's database (decompressed, for a
    /// compressed seed), and finds what is known of the
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
            guard lookingAtSeed, let identity = try? effects.files.identity(of: seed.source) else {
                return ResolvedSeed(seed: seed, source: nil, isNewDigest: false)
            }
            let remembered = [entry.source, known].lazy.compactMap { $0 }.first { $0.identity == identity }
            return ResolvedSeed(seed: seed, source: remembered, isNewDigest: false)
        }
        var resolved = seed
        let identity: FileIdentity
        do {
            identity = try effects.files.identity(of: seed.source)
        } catch let error where error.code == .seedUnavailable {
            // The seed is gone: an up-to-date copy stays so, as with a fixed version.
            guard let record = entry.record, workingCopyExists else { throw error }
            resolved.version = record.version
            return ResolvedSeed(seed: resolved, source: entry.source, isNewDigest: false)
        }
        if let cached = entry.source, cached.identity == identity {
            resolved.version = SeedVersion(digest: cached.sha256)
            return ResolvedSeed(seed: resolved, source: cached, isNewDigest: false)
        }
        let digest = try contentDigest(of: seed.source, identity: identity, known: known)
        resolved.version = SeedVersion(digest: digest)
        resolved.expectedSHA256 = resolved.expectedSHA256 ?? digest
        return ResolvedSeed(seed: resolved, source: SourceDigest(identity: identity, sha256: digest), isNewDigest: true)
    }

    /// The digest of the content of seed file `source`, found with `identity`: `known`'s
    /// when it names that identity, else the content hashed (decompressed: the same digest
    /// for a seed shipped plain, `.zst` or `.gz`).
    private func contentDigest(of source: String, identity: FileIdentity, known: SourceDigest?) throws(SeedDBError) -> SHA256Digest {
        if let known, known.identity == identity { return known.sha256 }
        return try SeedSource(path: source).withPlainFile { (path) throws(SeedDBError) in try FileDigest.sha256(ofFileAt: path) }
    }

    /// The report of a plan that was not executed (nothing to do, held, or a dry run).
    func report(_ observed: Observed, _ plan: DeployPlan, _ kind: DeployRequest.Kind, paths: SeedPaths) -> DeployReport {
        let recorded = observed.entry.record ?? observed.entry.interrupted?.replacing
        var to = observed.seed.version
        var from = recorded?.version
        if plan.undoesInterrupted, let recorded {
            // The record a killed run withdrew, put back.
            to = recorded.version
        } else if plan.finishesInterrupted, let interrupted = observed.entry.interrupted {
            to = interrupted.version
        } else if plan.finishesInterrupted, kind == .rollback {
            // The clean-up of a rollback that had recorded.
            (from, to) = (observed.entry.heldFrom, recorded?.version ?? to)
        } else if kind == .rollback && plan.action != .held {
            to = observed.restorableVersion
        } else if plan.action == .held || plan.action == .unchanged || plan.action == .restored {
            // (A link put back holds the recorded version: up to date, or held.)
            to = recorded?.version ?? to
        }
        var report = DeployReport(
            name: observed.seed.name, action: plan.action, from: from, to: to,
            workingCopy: paths.workingCopy, strategy: plan.strategy, adopted: plan.adopted, heldFrom: plan.action == .held ? observed.entry.heldFrom : nil)
        report.seedLink = plan.seedLink?.target ?? (plan.action.copies ? nil : observed.workingCopy.seedLinkTarget)
        return report
    }

    // MARK: - The deploy lock

    /// For a dry run, which takes no lock: the app's directory and, as root, the one that
    /// holds it, refused as the deploy lock refuses them when it is taken (not writable, or
    /// one another account could write or rename it).
    func requireDirectoriesAsTheLockChecks(_ paths: SeedPaths) throws(SeedDBError) {
        try effects.files.requireSafeParentForRoot(of: paths.directory)
        try effects.files.requireWritableDirectory(paths.directory, owner: configuration.files.owner)
    }

    /// Runs `body` holding the deploy lock of the working copy at `paths`. When `body` fails, the lock file and the directories this
    /// call created are removed: a failed run leaves nothing behind.
    func withDeployLock<Result>(_ paths: SeedPaths, _ body: (any DeployLock, ContinuousClock.Instant) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        let deadline = ContinuousClock().now.advanced(by: configuration.wait)
        return try effects.locks.withDeployLock(paths, files: configuration.files, wait: configuration.wait) { (lock) throws(SeedDBError) in
            try body(lock, deadline)
        }
    }
}

extension Deployer {
    /// The conflicts of the last merge attempt of `seed`'s working copy, as the JSON array
    /// `seeddb conflicts --json` lists (each conflict `{"table", "key", "column", "base",
    /// "user", "seed", "kept"}`), written from ``conflictList(_:)``: never the file's bytes
    /// as they are; `"[]"` when the last merge had none or none was attempted.
    /// - Throws: ``SeedDBError`` as ``conflictList(_:)``.
    public func conflicts(_ seed: Seed) throws(SeedDBError) -> String {
        MergeConflict.jsonArray(try conflictList(seed))
    }

    /// The conflicts of the last merge attempt of `seed`'s working copy, as values (the
    /// form ``conflicts(_:)`` prints as JSON); empty when the last merge had none or none
    /// was attempted (no file, or one of whitespace alone).
    /// - Throws: ``SeedDBError`` `corruptWorkingCopy` when the conflicts file is damaged
    ///   (cut short, not JSON, not the list SeedDB writes), naming it; `cannotCreate` (73,
    ///   as a merging run refuses it) when a directory is at its path, never SeedDB's, which
    ///   only its user can move away.
    public func conflictList(_ seed: Seed) throws(SeedDBError) -> [MergeConflict] {
        try conflictList(at: paths(for: seed))
    }

    /// The conflicts the file at `paths` lists, as ``conflictList(_:)`` reads them.
    func conflictList(at paths: SeedPaths) throws(SeedDBError) -> [MergeConflict] {
        let path = paths.conflictsFile
        if try FileSystem.fileType(at: path) == .directory {
            throw SeedDBError(.cannotCreate, "cannot read the conflicts in \(path): it is a directory, not SeedDB's conflicts file, and no merge writes there while it is (a run that would merge refuses it); move it away")
        }
        // JSON's whitespace: space, tab, line feed, carriage return.
        guard let bytes = try FileSystem.readFile(at: path), bytes.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return [] }
        return try MergeConflict.list(from: bytes, path: path)
    }
}
