import Foundation
import GRDB
import SeedDBCore
import SystemPackage

extension DeployExecutor {
    private var paths: SeedPaths { target.paths }
    private var files: FilePolicy { context.configuration.files }
    /// The file-system operations (the real disk, or the simulator's model).
    private var fs: any DeployFileSystem { context.effects.files }
    /// The database operations (SQLite, or the simulator's model).
    private var db: any DeployDatabase { context.effects.database }

    /// `stage`: copies the source into a new temporary file beside the working copy,
    /// checks its header and digest, and flushes it; keeps the pristine copy the plan asks
    /// for (the next merge base); a rollback's restores the previous generation's base from
    /// its delta. Undone by removing the files (and putting the delta back).
    ///
    /// A seed whose digest is known for its identity is not read at all when the kernel
    /// copies it (reflink or `copy_file_range`), nor is the copy, unless the plan asks for
    /// a re-read (`--integrity full`); its header is not read either when that content
    /// already passed a check (``PlannedStep/Stage/vouched``). Otherwise the seed is hashed
    /// in the same pass as the copy, and the run remembers the digest for the seed's identity.
    func stage(_ stage: PlannedStep.Stage, _ run: DeployRun) throws(SeedDBError) {
        if let number = stage.generation { run.generation = paths.generationName(number) }
        let source = SeedSource(path: target.source)
        let known = target.knownSourceDigest
        let vouched = stage.vouched != nil
        if stage.restoresPrevious {
            // The planner refused a sidecar with content beside the previous generation
            // (`DeployRefusal.sidecarBesidePrevious`); one that appeared since is refused
            // here: opening that copy would replay it.
            let previous = paths.previousGeneration
            if let sidecar = fs.sidecarWithContent(of: previous, among: SeedPaths.sqliteSidecars(of: previous)) {
                throw Deployer.sidecarBesidePrevious(sidecar.path, size: sidecar.size, paths: paths)
            }
        }
        let inspected = try db.inspectSeed(target.source, readingHeader: !vouched)
        if source.compression == .none, let known, known.identity == inspected.identity, let expected = target.expectedSHA256, expected != known.sha256 {
            // The remembered digest of the seed as it is: refused before anything is copied.
            throw target.digestMismatch(known.sha256, expected: expected)
        }
        var temporary = ""
        let options = SeedCopyOptions(
            known: known, prefix: inspected.prefix, rereads: stage.rereads,
            progress: context.configuration.progress, isInterrupted: context.configuration.isInterrupted)
        let copy = try db.copySeed(target.source, into: paths.directory, stem: paths.name.rawValue, policy: files, options: options) { path in
            temporary = path
            // With the journal a failed write into it may have left (`-journal`, or a WAL
            // seed's `-wal` and `-shm`): SeedDB's own files, named after the staged copy.
            run.onFailure("the staged copy") { () throws(SeedDBError) in
                for file in [path] + SeedPaths.sqliteSidecars(of: path) { try fs.remove(file) }
            }
        }
        if !stage.restoresPrevious {
            // The seed file's identity and digest, remembered.
            run.sourceDigest = copy.identity.map { SourceDigest(identity: $0, sha256: copy.digest) } ?? known
        }
        if let expected = target.expectedSHA256, expected != copy.digest {
            throw target.digestMismatch(copy.digest, expected: expected)
        }
        // The content that passed a check, copied unchanged: its header was read then.
        let checkedBefore = vouched && copy.identity == known?.identity
        var header = inspected.header
        if header == nil && !checkedBefore { header = SQLiteHeader(try fs.readPrefix(of: temporary, count: SQLiteHeader.length)) }
        if !checkedBefore {
            guard let header else {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): " + (copy.size == 0 ? "the file is empty\(source.compression == .none ? "" : " once decompressed") (0 bytes), not an SQLite 3 database" : "not an SQLite 3 database\(source.compression == .none ? "" : " once decompressed") (bad header)"))
            }
            if let declared = header.declaredSize, declared != copy.size {
                throw SeedSource.wrongSize(target.source, declared: declared, read: copy.size, copying: true)
            }
        }
        if vouched, copy.digest != stage.vouched, stage.integrity != .none {
            // The seed changed after it was observed: the plan skipped the check for the
            // content it remembered, not for this one.
            let full = stage.integrity == .full
            let result = try db.check(temporary, full: full)
            guard result == "ok" else {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(full ? "integrity_check" : "quick_check") failed: \(result)")
            }
        }
        run.staged = StagedCopy(path: temporary, digest: copy.digest, size: copy.size)
        if stage.checksConfiguredTables {
            // A first install: the names the configuration gives are checked against the seed.
            let configured = ConfiguredTables.names(preserved: target.preservedTables, merge: target.merge)
            try ConfiguredTables.check(configured, among: try db.tableNames(of: temporary), missingFrom: "the seed \(target.source)")
        }
        switch stage.knownTables {
        case .none: break
        case .these(let tables, let digests): (run.seedTables, run.tableDigests) = (tables, digests)
        case .ifPassed(let memo): if memo.sha256 == copy.digest { run.seedTables = memo.tables }
        }
        if stage.restoresPrevious {
            // The previous generation was fenced when it stopped being the working copy.
            if try db.unfence(temporary) { try run.rehashStaged(fs) }
        }
        if let digest = stage.restoresPreviousBase { try restorePreviousBase(digest, run) }
        try keepPristineCopy(run, of: try run.staged(for: .stage), stage.base)
    }

    /// `migrate`: runs the app's migrations on the staged copy, which is then flushed and
    /// hashed again (the merge base stays the pristine seed). Undone with the staged copy.
    func migrate(_ run: DeployRun) throws(SeedDBError) {
        guard let migrator = context.configuration.migrator else {
            throw SeedDBError(.ioFailure, "cannot migrate \(paths.workingCopy): the plan asked for migrations, the configuration has none")
        }
        try db.migrate(try run.staged(for: .migrate).path, with: migrator)
        try run.rehashStaged(fs)
    }

    /// Keeps a pristine, read-only copy of the staged seed, to become `<name>.base` once the
    /// new copy is recorded, as the plan says: by a reflink only (free), by a reflink or a
    /// copy (a seed that merges), by a reflink or else a second name of the seed file
    /// itself (a hard link, free) or else a copy, or not at all (a rollback).
    private func keepPristineCopy(_ run: DeployRun, of staged: StagedCopy, _ base: PlannedStep.BaseCopy) throws(SeedDBError) {
        if base == .none { return }
        // Named after the generation it goes with, so a run killed after its switch is
        // finished with this base (see ``installBase(_:_:)``).
        let pristine: String
        if let generation = run.generation {
            pristine = FileSystem.namedTemporaryPath(in: paths.directory, stem: paths.name.rawValue, name: Self.baseName(generation))
        } else {
            pristine = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "base")
        }
        let created = { (path: String) in
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.remove(path) }
            run.setAside.append(path)
        }
        func keepCopy(evenByCopy: Bool) throws(SeedDBError) -> Bool {
            try fs.keepCopy(of: staged.path, digest: staged.digest, at: pristine, evenByCopy: evenByCopy, owner: files.owner, created: created)
        }
        var kept: Bool
        switch base {
        case .none:
            return
        case .clone, .copy:
            kept = try keepCopy(evenByCopy: base == .copy)
        case .linkToSeed:
            kept = try keepCopy(evenByCopy: false)
            if !kept {
                // No reflink: the empty file goes, and the seed file's own inode is the base
                // when it still is the file the staged copy was made from.
                try fs.remove(pristine)
                if let source = run.sourceDigest, source.sha256 == staged.digest,
                   try fs.linkCopy(of: target.source, identity: source.identity, at: pristine, created: created) {
                    kept = true
                    run.linkedSeed = true
                } else {
                    kept = try keepCopy(evenByCopy: true)
                }
            }
        }
        if kept { run.pristine = (pristine, staged.digest) }
    }

    /// `check`: runs the plan's integrity check on the staged copy, unless its content
    /// (known by digest only now) already passed one at least as strict. Changes nothing.
    func check(_ check: PlannedStep.Check, _ run: DeployRun) throws(SeedDBError) {
        let staged = try run.staged(for: .check)
        if let memo = check.passed, memo.sha256 == staged.digest, memo.integrity >= check.level, memo.tables != nil {
            run.memo = memo
            if check.listsSeedTables { run.seedTables = memo.tables }
            return
        }
        let result = try db.check(staged.path, full: check.level == .full)
        guard result == "ok" else {
            throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(check.level == .full ? "integrity_check" : "quick_check") failed: \(result)")
        }
        let tables = try db.tableNames(of: staged.path)
        if check.listsSeedTables { run.seedTables = tables }
        run.memo = ValidationMemo(sha256: staged.digest, integrity: check.level, tables: tables)
    }

    /// `fingerprint`: hashes each of the staged copy's tables, for the record
    /// (``DeployRecord/tableDigests``), unless the check the settings remember has them for
    /// this content; the memo the run writes keeps them. Changes nothing.
    func fingerprint(_ remembered: ValidationMemo?, _ run: DeployRun) throws(SeedDBError) {
        let staged = try run.staged(for: .fingerprint)
        if let remembered, remembered.sha256 == staged.digest, let digests = remembered.tableDigests {
            run.tableDigests = digests
        } else {
            run.tableDigests = try db.tableDigests(of: staged.path)
        }
        if run.memo?.sha256 == staged.digest { run.memo?.tableDigests = run.tableDigests }
    }

    /// `withdraw`: replaces the record by what the run is doing (the version, the
    /// generation file a swap will install, the record it replaces, the merge base it will
    /// put in place), so a run killed at any point is finished or undone by the next one
    /// and no record ever names content the working copy does not hold. The previous
    /// generation's record stays until `record`. Undone by restoring the settings' bytes.
    ///
    /// One seed of a release (``DeployTarget/release``): the release wrote every seed's
    /// marker in one settings write before this step, and puts the settings back once
    /// every seed is undone; the step does nothing.
    func withdraw(_ withdraw: PlannedStep.Withdraw, _ run: DeployRun) throws(SeedDBError) {
        guard target.release == nil else { return }
        let store = context.records
        run.onFailure("the withdrawn record") { [backup = target.settingsBackup] () throws(SeedDBError) in
            try store.restore(backup, timeout: context.configuration.wait)
        }
        let interrupted = marker(withdraw, run)
        try store.update(timeout: deadline.timeLeft) { table in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            entry.record = nil
            entry.interrupted = interrupted
            table[paths.name.rawValue] = entry
        }
    }

    /// The signature a record pins, as `signature` says.
    func recorded(_ signature: PlannedStep.RecordedSignature) -> SeedSignature? {
        switch signature {
        case .fromManifest: target.signature
        case .this(let kept): kept
        }
    }

    /// `reinstate`: puts `record` back in the place of the marker of a run killed before it
    /// switched the link (the record that run withdrew): the working copy still holds that
    /// record's content, or, with no record (an install, an adoption), what was there
    /// before the run. A marker that is no longer the one observed (another run wrote
    /// since) stops the run. Undone by restoring the settings' bytes.
    func reinstate(_ record: DeployRecord?, _ run: DeployRun) throws(SeedDBError) {
        let store = context.records
        try store.update(timeout: deadline.timeLeft) { table in
            guard var entry = table[paths.name.rawValue], entry.record == nil, let marker = entry.interrupted,
                  marker.generation != nil || marker.seedLink != nil, marker.replacing == record
            else {
                throw SeedDBError(.ioFailure, "the settings of \(paths.workingCopy) changed while the run looked at them; nothing was changed; run it again")
            }
            entry.record = record
            entry.interrupted = nil
            // An entry the killed run made for its marker alone goes with it.
            table[paths.name.rawValue] = entry == SettingsEntry() ? nil : entry
        }
        // Registered once written: a refusal above wrote nothing to put back.
        run.onFailure("the reinstated record") { [backup = target.settingsBackup] () throws(SeedDBError) in
            try store.restore(backup, timeout: context.configuration.wait)
        }
        let recorded = record.map { "version \($0.version) is recorded again" } ?? "nothing was recorded before it"
        context.logger.warning("\(paths.workingCopy): undid a run that was interrupted before it installed anything (\(recorded))")
    }

    /// The `"interrupted"` marker the `withdraw` step `withdraw` writes once `run` is
    /// prepared: the version, the generation file a swap installs, the record it
    /// replaces, the base it puts in place, and the release the run is one seed of.
    func marker(_ withdraw: PlannedStep.Withdraw, _ run: DeployRun) -> SettingsEntry.InterruptedRun {
        let base: SHA256Digest?
        switch withdraw.base {
        case .staged: base = run.pristine?.digest
        case .restored(let digest): base = digest
        }
        var marker = SettingsEntry.InterruptedRun(
            version: target.version, generation: run.generation, replacing: withdraw.replacing,
            base: base, seedTables: run.seedTables, isRollback: withdraw.isRollback, snapshot: withdraw.snapshot,
            replacingGeneration: withdraw.replacingGeneration.map(paths.generationName), adopting: withdraw.adopting,
            // (Not read, nothing is proved: the run's new generation then stays if it is killed.)
            replacingFile: withdraw.replacesFile ? try? fs.identity(of: paths.workingCopy) : nil, release: target.release, tableDigests: run.tableDigests, seedLink: withdraw.seedLink)
        marker.isReseed = withdraw.isReseed
        marker.runSignature = target.signature.map { .signed($0) } ?? .unsigned
        return marker
    }

    /// `carry`: under the writer's lock, carries the user's tables from the old copy into
    /// the staged one and, when the plan merges, the user's edits of the seed's rows (a
    /// swap flushes and re-hashes the staged copy; a live replace copies it on).
    func carry(_ carry: PlannedStep.Carry, _ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        // (A live replace's `-journal` is the backup's own: it holds the lock. A WAL copy
        // reads as written once a swap's lock left WAL: it is merged; NOTES.md.)
        if carry.merge == .skipped || carry.discards == .unwritten, let identity = target.unwrittenSince,
           let old = plan.oldContent.flatMap(paths.file(of:)),
           try !fs.isUnwritten(old, since: identity, journalIsOurs: plan.strategy == .live) {
            // Written between the run's look and the writer's lock: the merge it skips would
            // lose that write (or, merging off, the report would not name what it replaced).
            // The run stops and is undone; the caller looks again.
            throw SeedDBError(.inUse, "cannot replace \(paths.workingCopy): it was written since this run found it unwritten; nothing was changed", underlying: WrittenSinceLooked())
        }
        switch scope {
        case .swap(nil) where carry.from == .previousGeneration:
            // Nothing to carry from the link the swap replaces: the previous generation holds
            // what the user wrote before it, fenced and written by nobody, read as it is
            // (`immutable`: never created, no journal or WAL of its own).
            let previous = SQLiteFile.uri(paths.previousGeneration, query: "immutable=1")
            try self.carry(into: .staged(try run.staged(for: .carry).path), old: previous, carry, keepsBase: plan.keepsMergeBase, checksNames: plan.stagesKilledRunsSeed == nil, run)
            if !run.carried.isEmpty || run.merge != nil { try run.rehashStaged(fs) }
        case .live(let live, let old?):
            try self.carry(into: .live(live), old: old, carry, keepsBase: plan.keepsMergeBase, checksNames: plan.stagesKilledRunsSeed == nil, run)
            if let stamp = run.keepsOldCopyAs { try keepOldCopy(of: old, as: stamp, live: live, run) }
        case .swap(let old?):
            try self.carry(into: .staged(try run.staged(for: .carry).path), old: old, carry, keepsBase: plan.keepsMergeBase, checksNames: plan.stagesKilledRunsSeed == nil, run)
            if !run.carried.isEmpty || run.merge != nil { try run.rehashStaged(fs) }
        default:
            if !target.preservedTables.isEmpty || carry.merge != .off {
                context.logger.warning("old working copy \(paths.workingCopy) is not a database; nothing was carried from it")
            }
        }
        try writeDown(carriedBy: run)
    }

    /// Once the carry is done, before anything switches: the merge's conflicts are written
    /// beside the working copy (the last merge attempt's, for `seeddb conflicts`; the file
    /// they replace goes back if the run fails), and what the carry did goes into the run's
    /// marker (``SettingsEntry/InterruptedRun/carry``), so the run that finishes this one,
    /// killed from here on, reports it. The marker goes back with the settings.
    private func writeDown(carriedBy run: DeployRun) throws(SeedDBError) {
        if let merge = run.merge {
            if try fs.fileType(at: paths.conflictsFile) != nil {
                try setAside(paths.conflictsFile, as: "conflicts", what: "the last merge's conflicts", run)
            }
            run.onFailure("this merge's conflicts") { () throws(SeedDBError) in try? fs.remove(paths.conflictsFile) }
            writeConflicts(merge.conflicts)
        }
        let outcome = SettingsEntry.CarryOutcome(carried: run.carried, merge: run.merge?.summary, discarded: run.discarded)
        guard !outcome.isEmpty else { return }
        try context.records.update(timeout: deadline.timeLeft) { table in
            table[paths.name.rawValue]?.interrupted?.carry = outcome
        }
    }

    /// The carry into the staged copy: the merge first (against `<name>.base` when the
    /// plan found it matching the record), then the preserved tables and the tables the
    /// app created. A refusal under `fail` still writes the conflicts file, for
    /// `seeddb conflicts`, and its line says where it is. `keepsBase`: whether the run keeps a merge base for the next
    /// upgrade (the seed's own policy merges), for the warning about a missing one.
    /// `checksNames`: whether the configured tables' names are checked (the typo guard).
    private func carry(into carryTarget: CarryTarget, old: String, _ carry: PlannedStep.Carry, keepsBase: Bool, checksNames: Bool, _ run: DeployRun) throws(SeedDBError) {
        let appTables: TableCarry.AppTables
        switch carry.appTables {
        case .notInTheOldSeed(let tables): appTables = .notInTheOldSeed(tables)
        case .notInTheNewSeed: appTables = .notInTheNewSeed
        }
        let merges = carry.merge == .merge
        let againstBase = carry.discards == .againstBase
        var base: (path: String?, problem: String?) = (nil, nil)
        if merges || againstBase {
            switch carry.base {
            case .recorded: base.path = paths.base
            case .previous: base.path = paths.previousBase
            case .previousRestored(let digest): base.path = try restoredPreviousBase(digest, run)
            case .missing(let problem): base.problem = merges ? problem : nil
            }
        }
        let discards: CarryRequest.Discards?
        switch carry.discards {
        case .none, .unwritten: discards = nil
        case .againstBase: discards = base.path.map { .againstBase($0) }
        case .againstDigests(let digests): discards = .againstDigests(digests)
        case .unknown:
            discards = nil
            context.logger.warning("\(Self.unknownChanges(carry, paths: paths, files: fs))")
        }
        let request = CarryRequest(
            workingCopy: paths.workingCopy, preservedTables: target.preservedTables, merge: merges ? target.merge : MergePolicies(), appTables: appTables,
            // (Not checked when a killed live replace is done again: the tables named are the
            // asked run's, for the seed after it; its own pass checks them.)
            configuredTables: checksNames ? ConfiguredTables.names(preserved: target.preservedTables, merge: target.merge) : [],
            base: merges ? base.path : nil,
            discards: discards, restoredSeedTables: carry.restoredSeedTables,
            unchangedIfDigests: carry.unchangedIfDigests)
        // Said once the merge ran (done or refused): a carry refused first (a misspelt
        // table) merged nothing.
        func warnAboutTheBase() {
            guard let problem = base.problem else { return }
            let named = carry.from == .previousGeneration ? paths.previousBase : paths.base
            let next = keepsBase ? "; once a deploy succeeds, its base is kept for the next upgrade" : ""
            context.logger.warning("merge base \(named) \(problem): merging without a base (a cell that differs from the new seed is a conflict)\(next)")
        }
        do {
            let result = try db.carry(into: carryTarget, from: old, request, logger: context.logger)
            (run.carried, run.merge) = (result.carried, result.merge)
            run.discarded = carry.discards == .unwritten ? [] : result.discarded
            // (Changes that could not be told apart are kept too.)
            if let stamp = carry.keepsOldCopyIfDiscarded, result.discarded?.isEmpty == false || carry.discards == .unknown { run.keepsOldCopyAs = stamp }
            warnAboutTheBase()
        } catch {
            var refusal = Self.carryRefusal(error, workingCopy: paths.workingCopy)
            if let failure = error.underlying as? MergeFailure {
                warnAboutTheBase()
                // The run is undone, but for the file its line then points to.
                if writeConflicts(failure.conflicts) {
                    refusal.message = refusal.messageBeforeNothingWasChanged.text + "; the working copy was not changed; the conflicts are in \(paths.conflictsFile)"
                }
            }
            throw refusal
        }
    }

    /// A refusal of the carry (a misspelt table, a row the new seed's constraints refuse, a
    /// conflict under `fail`), naming the working copy: which seed of a release it is. The
    /// run's, and its dry run's rehearsal (``Deployer/plan(_:force:)``).
    static func carryRefusal(_ error: SeedDBError, workingCopy: String) -> SeedDBError {
        var refusal = error
        if [.invalidConfiguration, .invalidSeed, .mergeRefused].contains(error.code), !error.message.contains(workingCopy) {
            refusal.message = "cannot carry the user's data into \(workingCopy): \(error.message)"
        }
        return refusal
    }

    /// The warning of a carry that replaces the user's changes to tables whose policy is
    /// `off` and cannot tell which tables the user changed (no base, no table digests):
    /// the run's, and the dry run's (``Deployer/plan(_:force:)``).
    static func unknownChanges(_ carry: PlannedStep.Carry, paths: SeedPaths, files: any DeployFileSystem) -> String {
        var why = "no merge base and no table digests were recorded with the old copy"
        let named = carry.from == .previousGeneration ? paths.previousBase : paths.base
        if case .missing(let problem) = carry.base, (try? files.fileType(at: named)) != nil {
            why = "the merge base \(named) \(problem), and no table digests were recorded with the old copy"
        }
        return "merge is off for \(paths.workingCopy): the seed's rows replace the user's changes, and which tables the user changed is not known (\(why))"
    }

    /// Writes the conflicts of the last merge attempt beside the working copy (a JSON
    /// array). Failing to write it is a warning: the merge itself is what matters.
    /// - Returns: Whether the file was written.
    @discardableResult
    func writeConflicts(_ conflicts: [MergeConflict]) -> Bool {
        let text = MergeConflict.jsonArray(conflicts) + "\n"
        do {
            try fs.writeAtomically(Array(text.utf8), to: paths.conflictsFile, permissions: [.ownerReadWrite, .groupRead, .otherRead], owner: files.owner)
            return true
        } catch {
            context.logger.warning("could not write the merge conflicts to \(paths.conflictsFile): \(error.message)")
            return false
        }
    }

    /// `install`, by swap, under the writer's lock: the staged copy becomes a new
    /// generation file, made durable under its name before the working copy's link is
    /// switched to it atomically; the old content is fenced (``GenerationFence``), so a
    /// connection still holding it gets an error on its next write instead of writing
    /// where nobody reads, and (when the plan retires it) moved out of the way.
    /// Undone by switching back.
    func installBySwap(_ swap: PlannedStep.Swap, _ run: DeployRun) throws(SeedDBError) {
        let generation = paths.generationName(swap.generation)
        let generationPath = paths.inDirectory(generation)
        // The name was free when it was observed: a file that took it since stops the run.
        for name in [generationPath] + SeedPaths.sqliteSidecars(of: generationPath) where try fs.fileType(at: name) != nil {
            throw SeedDBError(.ioFailure, "cannot install \(paths.workingCopy): \(name) appeared since the run looked; nothing was changed")
        }
        let staged = try run.staged(for: .install).path
        try fs.rename(staged, to: generationPath)
        run.onFailure("the new generation file") { () throws(SeedDBError) in try fs.rename(generationPath, to: staged) }
        // The generation file is durable under its name before any link names it.
        try fs.syncDirectory(paths.directory)
        // Taken before the link names it: once it does, the app may write it. Its
        // modification time set back first: a write in this clock tick then changes it too.
        try fs.backdateModificationTime(of: generationPath)
        run.installedIdentity = try fs.identity(of: generationPath)

        if swap.from == .file { run.oldContent = try holdOldFile(run) }
        // (A link that failed changed nothing: its temporary name never replaced the path.)
        try fs.replaceWithLink(paths.workingCopy, to: generation, owner: files.owner)
        undoLinkSwitch(from: swap.from, run)
        try fs.syncDirectory(paths.directory)
        run.installed = true

        if case .generation(let number, _) = swap.from {
            run.oldContent = paths.inDirectory(paths.generationName(number))
        }
        guard let old = run.oldContent else { return }
        try fence(old, sidecarsOf: swap.from == .file ? paths.workingCopy : old, run)
        if swap.retire { try retire(old, run) }
    }

    /// Keeps the regular file at the working-copy path reachable under a second name, for
    /// the undo and as the previous generation; that name. Undone by renaming it back.
    func holdOldFile(_ run: DeployRun) throws(SeedDBError) -> String {
        let hold = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "old")
        try fs.link(paths.workingCopy, as: hold)
        run.setAside.append(hold)
        run.onFailure("the old working copy") { () throws(SeedDBError) in try fs.rename(hold, to: paths.workingCopy) }
        return hold
    }

    /// Registers how the working-copy path is put back as `from` found it once a new link
    /// replaced it (not before: a link that failed changed nothing, and undoing it would
    /// make a second failure and a second line): SeedDB's link to the old generation or to a read-only seed again, or
    /// nothing (a regular file comes back by its hold's rename, ``holdOldFile(_:)``).
    func undoLinkSwitch(from: PlannedStep.OldContent, _ run: DeployRun) {
        let link: String?
        switch from {
        case .generation(let number, linked: true): link = paths.generationName(number)
        case .seedLink(let seed): link = seed
        case .generation(_, linked: false), .nothing: link = nil
        case .file: return
        }
        run.onFailure("the working copy's link") { () throws(SeedDBError) in
            if let link { try fs.replaceWithLink(paths.workingCopy, to: link, owner: files.owner) } else { try fs.remove(paths.workingCopy) }
        }
    }

    /// Fences the old content `old` (a connection still holding it gets an error on its
    /// next write instead of writing where nobody reads) and sets aside the sidecars of
    /// `sidecarsOf`, the name SQLite opened it by. The fence is undone by restoring the
    /// header.
    func fence(_ old: String, sidecarsOf: String, _ run: DeployRun) throws(SeedDBError) {
        if let header = try db.fence(old) {
            run.onFailure("the fence on the old copy") { () throws(SeedDBError) in try db.restoreHeader(old, header) }
        }
        run.setAside += SeedPaths.sqliteSidecars(of: sidecarsOf)
    }

    /// The name of the temporary file the merge base of `generation` is staged in.
    static func baseName(_ generation: String) -> String { generation + ".base" }

    /// `relink`: puts back the working copy's link to generation file `generation`, found
    /// without it. Undone by removing the link.
    func relink(_ generation: Int, _ run: DeployRun) throws(SeedDBError) {
        run.onFailure("the working copy's link") { () throws(SeedDBError) in try fs.remove(paths.workingCopy) }
        try fs.replaceWithLink(paths.workingCopy, to: paths.generationName(generation), owner: files.owner)
        try fs.syncDirectory(paths.directory)
        run.installed = true
    }

    /// Moves a generation file that is no longer needed to a temporary name, removed once
    /// the run succeeded; or, where the carry replaced some of the user's changes
    /// (``DeployRun/keepsOldCopyAs``), to its adopted copy's name, made durable, which no
    /// run removes. Undone by renaming back.
    private func retire(_ old: String, _ run: DeployRun) throws(SeedDBError) {
        guard let stamp = run.keepsOldCopyAs else {
            run.oldContent = try setAside(old, as: "retired", what: "the old generation file", run)
            return
        }
        let adopted = paths.adoptedCopy(stamp)
        try fs.renameNoReplace(old, to: adopted)
        run.onFailure("the old copy kept") { () throws(SeedDBError) in try fs.rename(adopted, to: old) }
        try fs.syncDirectory(paths.directory)
        run.oldContent = adopted
    }

    /// A live replace that keeps no previous generation, whose merge replaced some of the
    /// user's changes (``DeployRun/keepsOldCopyAs``): the old content, as the writer's lock
    /// holds it, is kept as an adopted copy before the commit writes over it (`VACUUM INTO`
    /// a temporary name, flushed, then renamed to a name no file has), which no run
    /// removes. Undone by removing it.
    private func keepOldCopy(of old: String, as stamp: String, live: any LiveReplace, _ run: DeployRun) throws(SeedDBError) {
        let snapshot = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "snapshot")
        run.onFailure("the old copy's snapshot") { () throws(SeedDBError) in try fs.remove(snapshot) }
        try db.snapshot(live, of: old, to: snapshot)
        _ = try fs.digestAndSync(snapshot)
        if let owner = files.owner { try fs.setMode(nil, owner: owner, of: snapshot) }
        let adopted = paths.adoptedCopy(stamp)
        try fs.renameNoReplace(snapshot, to: adopted)
        run.onFailure("the old copy kept") { () throws(SeedDBError) in try fs.rename(adopted, to: snapshot) }
        try fs.syncDirectory(paths.directory)
    }

    /// What happens to the previous generation on disk, as the plan says: kept as an
    /// adopted copy (SeedDB cannot account for it: never removed by a rotation), set
    /// aside (removed once the run succeeded), or left. Undone by renaming back.
    func dropPrevious(_ drop: PlannedStep.Drop?, _ run: DeployRun) throws(SeedDBError) {
        switch drop {
        case .keepAsAdopted(let stamp)?:
            let adopted = paths.adoptedCopy(stamp)
            try fs.renameNoReplace(paths.previousGeneration, to: adopted)
            run.onFailure("the adopted copy") { () throws(SeedDBError) in try fs.rename(adopted, to: paths.previousGeneration) }
            context.logger.warning("\(paths.previousGeneration) held a database SeedDB adopted; it is kept as \(adopted) (`seeddb purge --adopted` removes it)")
        case .setAside?:
            try setAside(paths.previousGeneration, as: "previous", what: "the previous generation", run)
        case nil:
            break
        }
    }

    /// Sets aside the SQLite sidecars named after the previous generation, as the plan
    /// says: they go with the previous generation dropped (or are a gone one's), and
    /// SQLite would replay them into the next file named `<name>.previous`. One gone
    /// since the look (SQLite removes a `-wal` and `-shm` when its last connection
    /// closes) is what the step asks for.
    func setAsidePreviousSidecars(_ sidecars: [String], _ run: DeployRun) throws(SeedDBError) {
        for sidecar in sidecars where try fs.fileType(at: sidecar) != nil {
            try setAside(sidecar, as: "previous-sidecar", what: "a sidecar of the previous generation", run)
        }
    }

    /// Renames `path` to a temporary name of `kind`, removed once the run succeeded;
    /// undone by renaming it back. The temporary path.
    @discardableResult
    func setAside(_ path: String, as kind: String, what: String, _ run: DeployRun) throws(SeedDBError) -> String {
        let aside = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: kind)
        try fs.rename(path, to: aside)
        run.onFailure(what) { () throws(SeedDBError) in try fs.rename(aside, to: path) }
        run.setAside.append(aside)
        return aside
    }

    /// Sets aside the merge base of the previous generation that goes, as the plan says:
    /// `<name>.previous.base` (`plain`) and `<name>.previous.base.xor.zst` (`compressed`).
    func setAsidePreviousBases(plain: Bool, compressed: Bool, _ run: DeployRun) throws(SeedDBError) {
        if plain { try setAside(paths.previousBase, as: "previous-base", what: "the previous merge base", run) }
        if compressed { try setAside(paths.previousBaseCompressed, as: "previous-base", what: "the previous merge base", run) }
    }

    /// `keep-previous`: as the plan says, the previous generation on disk is set aside
    /// or kept as an adopted copy, the base files follow, a finished swap's old generation
    /// is fenced, and the old content becomes `<name>.previous` (by a rename after a swap,
    /// by a snapshot before a live replace). Undone by renaming back. A file the plan
    /// counts on that is gone stops the run.
    func keepPrevious(_ keep: PlannedStep.KeepPrevious, _ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        try dropPrevious(keep.drop, run)
        try setAsidePreviousSidecars(keep.setsAsidePreviousSidecars, run)
        try setAsidePreviousBases(plain: keep.setsAsidePreviousBase, compressed: keep.setsAsideCompressedPreviousBase, run)
        if keep.linksBaseAsPrevious {
            // A second name, not a move: until the record step replaces it, `<name>.base`
            // stays the base the recorded digest names, so a run killed in between merges
            // again with it.
            let link = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "base-link")
            try fs.link(paths.base, as: link)
            run.setAside.append(link)
            try fs.rename(link, to: paths.previousBase)
            run.setAside.removeAll { $0 == link }
            run.onFailure("the previous merge base") { () throws(SeedDBError) in try fs.remove(paths.previousBase) }
        }
        if let stamp = keep.keepsFinishedOldContentAs {
            run.keepsOldCopyAs = stamp
            context.logger.warning("\(paths.workingCopy): the interrupted run's old copy is kept as \(paths.adoptedCopy(stamp)): it may hold changes of the user's that the run's carry did not carry (`seeddb purge --adopted` removes it)")
        }
        if let number = keep.finishesOldGeneration {
            let old = paths.inDirectory(paths.generationName(number))
            _ = try db.fence(old)
            run.oldContent = old
            run.setAside += SeedPaths.sqliteSidecars(of: old)
            if keep.keep == nil { try retire(old, run) }
        }
        if let held = keep.finishesHeldFile {
            // SQLite named its sidecars after the working-copy path, which is a link now.
            _ = try db.fence(held)
            run.oldContent = held
            run.setAside += SeedPaths.sqliteSidecars(of: paths.workingCopy)
            if keep.keep == nil { try retire(held, run) }
        }
        guard let kept = keep.keep else { return }
        let content: String
        switch (kept, scope) {
        case (.snapshot, .live(let live, let old?)?):
            content = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "snapshot")
            run.onFailure("the snapshot") { () throws(SeedDBError) in try fs.remove(content) }
            try db.snapshot(live, of: old, to: content)
            let (snapshot, _) = try fs.digestAndSync(content)
            if let owner = files.owner { try fs.setMode(nil, owner: owner, of: content) }
            // Written down before the snapshot takes the previous generation's name: a run
            // killed after that knows what the previous generation holds.
            try context.records.update(timeout: deadline.timeLeft) { table in
                table[paths.name.rawValue]?.interrupted?.snapshot = snapshot
            }
        case (.oldContent, _):
            guard let old = run.oldContent else {
                throw SeedDBError(.ioFailure, "cannot keep the previous generation of \(paths.workingCopy): the old content is not where the plan put it")
            }
            content = old
        case (.snapshot, _):
            throw SeedDBError(.ioFailure, "cannot keep the previous generation of \(paths.workingCopy): a snapshot needs the live replace's lock")
        }
        if keep.compressesBaseAsPrevious { try keepBaseAsDelta(against: content, run) }
        try giveWorkingCopyOwnership(to: content, installed: installedContent(plan), run)
        try fs.rename(content, to: paths.previousGeneration)
        run.setAside.removeAll { $0 == content }
        run.onFailure("the new previous generation") { () throws(SeedDBError) in try fs.rename(paths.previousGeneration, to: content) }
        try fs.syncDirectory(paths.directory)
    }

    /// Keeps `<name>.base` as `<name>.previous.base.xor.zst`, its compressed difference from
    /// `content` (a swap's fenced old generation: nothing writes it again), which becomes
    /// the previous generation. Made under a temporary name and flushed before it takes its
    /// name, which must still be free. `<name>.base` stays the base the recorded digest
    /// names until the record step replaces it.
    private func keepBaseAsDelta(against content: String, _ run: DeployRun) throws(SeedDBError) {
        // The fence rewrote the header in place: flushed, so the previous generation a power
        // cut leaves holds the bytes the delta was made against.
        try fs.sync(content)
        let compressed = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "base-zst")
        try fs.compressedCopy(of: paths.base, against: content, at: compressed, owner: files.owner) { path in
            run.onFailure("the compressed merge base") { () throws(SeedDBError) in try fs.remove(path) }
            run.setAside.append(path)
        }
        try fs.renameNoReplace(compressed, to: paths.previousBaseCompressed)
        run.setAside.removeAll { $0 == compressed }
        run.onFailure("the previous merge base") { () throws(SeedDBError) in try fs.remove(paths.previousBaseCompressed) }
    }

    /// The file that holds the content the plan installs (or installed, for a finished run).
    private func installedContent(_ plan: DeployPlan) -> String? {
        for step in plan.steps {
            switch step {
            case .install(.swap(let swap)): return paths.inDirectory(paths.generationName(swap.generation))
            case .install(.live(let from)): return paths.file(of: from)
            case .record(let record):
                switch record.content {
                case .staged: return nil
                case .generation(let number): return paths.inDirectory(paths.generationName(number))
                case .workingCopy(let from): return paths.file(of: from)
                }
            default: continue
            }
        }
        return nil
    }

    /// The previous generation gets the working copy's mode and owner: `--mode` and
    /// `--owner` when given, otherwise the mode of the content now installed (and, as
    /// root, its owner), so an adopted database or a generation made under another mode
    /// does not keep its own. Undone by giving it back its own. A file this process may
    /// not change (another user's, adopted) keeps its own, with a warning.
    func giveWorkingCopyOwnership(to content: String, installed: String?, _ run: DeployRun) throws(SeedDBError) {
        guard let (keptMode, keptOwner) = try fs.modeAndOwner(of: content),
              let installed = try installed.flatMap({ (path) throws(SeedDBError) in try fs.modeAndOwner(of: path) })
        else { return }
        let mode = files.workingCopyMode ?? installed.mode
        let owner = files.owner ?? (Syscalls.isRoot ? installed.owner : keptOwner)
        guard mode != keptMode || owner != keptOwner else { return }
        run.onFailure("the old content's owner and mode") { () throws(SeedDBError) in
            try fs.setMode(keptMode, owner: owner == keptOwner ? nil : keptOwner, of: content)
        }
        do {
            try fs.setMode(mode, owner: owner == keptOwner ? nil : owner, of: content)
        } catch {
            context.logger.warning("the previous generation \(paths.previousGeneration) keeps its own owner and mode: \(error.message)")
        }
    }

    /// `record`: puts the merge base in place, then records the new version (and the
    /// previous generation, the check passed, the seed's identity, the location, the
    /// generation file, the seed's tables, and a rollback's hold) in place of what the run
    /// was doing, as the plan decided. After a swap it runs under the writer's lock and is
    /// undone by restoring the settings' bytes and the base. One seed of a release
    /// (``DeployTarget/release``) leaves its change to the settings in
    /// ``DeployRun/pendingRecord``: the release writes every seed's record at once, after
    /// the last install.
    func record(_ record: PlannedStep.Record, _ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        let store = context.records
        let content: (digest: SHA256Digest, size: Int64)
        switch record.content {
        case .staged:
            // After a live replace, the backup copied the staged content, carried tables included.
            if plan.strategy == .live { try run.rehashStaged(fs) }
            let staged = try run.staged(for: .record)
            content = (staged.digest, staged.size)
        case .generation(let number):
            content = try fs.digestAndSync(paths.inDirectory(paths.generationName(number)))
        case .workingCopy(let from):
            guard let path = paths.file(of: from) else {
                throw SeedDBError(.ioFailure, "cannot finish the run interrupted on \(paths.workingCopy): its content is gone")
            }
            content = try fs.digestAndSync(path)
        }
        if plan.strategy == .swap, target.release == nil {
            run.onFailure("the record") { [backup = target.settingsBackup] () throws(SeedDBError) in
                try store.restore(backup, timeout: context.configuration.wait)
            }
        }
        let (base, identityChange) = try installBase(record.base, run)
        let baseIdentity: FileIdentity?? = switch identityChange {
        case .taken: .some(try fs.identity(of: paths.base))
        case .unchanged: nil
        case .none: .some(nil)
        }
        if run.linkedSeed, let source = run.sourceDigest {
            // The links changed the seed file's change time: remembered as it is now, so the
            // next run still knows its digest without reading it.
            let now = try fs.identity(of: target.source)
            if now.sameContent(as: source.identity) { run.sourceDigest = SourceDigest(identity: now, sha256: source.sha256) }
        }
        let previous = try previousRecord(record.previous)
        let seedTables: [String]?
        let tableDigests: [String: SHA256Digest]?
        switch record.seedTables {
        case .staged: (seedTables, tableDigests) = (run.seedTables, run.tableDigests)
        case .these(let tables, let digests): (seedTables, tableDigests) = (tables, digests)
        }
        let signature = recorded(record.signature)
        let pristine = record.recordsPristineIdentity ? pristineIdentity(run) : nil
        var recorded = DeployRecord(version: target.version, sha256: content.digest, size: content.size, deployedAt: context.now(), seedTables: seedTables)
        recorded.tableDigests = tableDigests
        let change = { (table: inout SettingsTable) in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            entry.record = recorded
            entry.base = base
            if let baseIdentity { entry.baseIdentity = baseIdentity }
            entry.interrupted = nil
            entry.heldFrom = record.heldFrom
            if let previous { entry.previous = previous }
            entry.signature = signature
            if let memo = run.memo { entry.checked = memo }
            if let digest = run.sourceDigest { entry.source = digest }
            entry.location = target.location
            if let generation = record.generation { entry.generation = paths.generationName(generation) }
            entry.pristine = pristine
            entry.seedLink = nil // a copy now, not a read-only seed's link
            table[paths.name.rawValue] = entry
        }
        try commitRecord(change, run)
        // A merge wrote its conflicts after its carry. A rollback that merged nothing (never
        // one seed of a release): the merge whose conflicts the file lists is the one
        // rolled back.
        if record.removesConflicts, run.merge == nil, (try? fs.fileType(at: paths.conflictsFile)) != nil {
            try? fs.remove(paths.conflictsFile)
        }
    }

    /// Writes `change`, a run's record, to the settings; one seed of a release
    /// (``DeployTarget/release``) leaves it in ``DeployRun/pendingRecord``, recorded with
    /// every other seed in one settings write.
    func commitRecord(_ change: @escaping (inout SettingsTable) -> Void, _ run: DeployRun) throws(SeedDBError) {
        if target.release != nil {
            run.pendingRecord = change
        } else {
            try context.records.update(timeout: deadline.timeLeft, change)
        }
    }

    /// `repair-ownership`: gives the content the run kept (a live replace's, a relinked or
    /// finished generation) the owner and mode asked for; not undone (the record is
    /// written, the content is right either way).
    func repairOwnership(_ drift: String, _ plan: DeployPlan) throws(SeedDBError) {
        guard let content = installedContent(plan) ?? plan.relinked.map({ paths.inDirectory(paths.generationName($0)) }) else { return }
        try OwnershipRepair.apply(paths, content: content, drift: drift, policy: files, files: fs, logger: context.logger)
    }

    /// The identity of the generation file a swap installed, when its content is the
    /// seed's own: nothing was carried into it and its merge, if any, changed nothing.
    /// Taken before the link named it (``DeployRun/installedIdentity``): an identity
    /// taken once the app could open it might include the app's first write.
    private func pristineIdentity(_ run: DeployRun) -> FileIdentity? {
        guard run.carried.isEmpty else { return nil }
        if let merge = run.merge?.summary, merge.inserted + merge.updated + merge.deleted + merge.conflicts > 0 { return nil }
        return run.installedIdentity
    }

    /// What a record says of the previous generation, as the plan decided: `nil` leaves
    /// the recorded one, `.some(nil)` records none.
    func previousRecord(_ previous: PlannedStep.PreviousRecord) throws(SeedDBError) -> DeployRecord?? {
        switch previous {
        case .unchanged: return nil
        case .record(let kept): return .some(kept)
        case .adopted: return .some(try adoptedRecord())
        case .none: return .some(nil)
        }
    }

    /// The record of an adopted database as the previous generation: what it holds is
    /// not known, so it is recorded as version ``DeployRecord/adoptedVersion`` with the
    /// digest and size of its file.
    private func adoptedRecord() throws(SeedDBError) -> DeployRecord? {
        guard try fs.fileType(at: paths.previousGeneration) == .regular else { return nil }
        let (digest, size) = try fs.digestAndSync(paths.previousGeneration)
        return DeployRecord(version: DeployRecord.adoptedVersion, sha256: digest, size: size, deployedAt: context.now())
    }

    /// Puts the merge base the plan chose in place before the record names it, durably,
    /// so no kill leaves a record and a base that disagree: the pristine new seed, the
    /// restored generation's base, or the base a killed run left (found by its digest).
    /// The old base stays reachable for the undo; stale ones are set aside.
    ///
    /// - Returns: The digest the record names as the base, and what it says of the base
    ///   file's identity.
    private func installBase(_ base: PlannedStep.BaseInstall, _ run: DeployRun) throws(SeedDBError) -> (SHA256Digest?, BaseIdentityChange) {
        switch base {
        case .found(let digest, let location, let stale):
            run.setAside += stale.map(paths.path(of:))
            if location != .inPlace {
                // A killed run's staged base may not have been flushed.
                try fs.sync(paths.path(of: location))
                try renameOver(paths.path(of: location), to: paths.base)
                try fs.syncDirectory(paths.directory)
            }
            return (digest, .taken)
        case .none(let stale):
            run.setAside += stale.map(paths.path(of:))
            return (nil, .none)
        case .pristine(let otherwise):
            if let pristine = run.pristine {
                try moveBase(from: pristine.path, run)
                return (pristine.digest, .taken)
            }
            switch otherwise {
            case .keep(let recorded):
                return (recorded, .unchanged)
            case .none(let stale):
                run.setAside += stale.map(paths.path(of:))
                return (nil, .none)
            }
        case .previousBase(let digest):
            try moveBase(from: paths.previousBase, run)
            return (digest, .none)
        }
    }

    /// What a record says of `<name>.base`'s identity (``SettingsEntry/baseIdentity``).
    private enum BaseIdentityChange {
        /// The file's identity now, taken once it is in place: this run made it, or found
        /// it by its digest.
        case taken
        /// The recorded one: the run left the base alone.
        case unchanged
        /// None: no base, or one whose content this run did not look at (hashed before a
        /// merge uses it).
        case none
    }

    /// The previous generation's base, restored from `<name>.previous.base.xor.zst`
    /// against `<name>.previous` into a temporary file (removed with the run's clean-up,
    /// or by its undo) for a carry from the previous generation to merge against; its
    /// digest must be `digest`, the recorded one. The delta stays as it is.
    private func restoredPreviousBase(_ digest: SHA256Digest, _ run: DeployRun) throws(SeedDBError) -> String {
        try fs.restoredPreviousBase(of: paths, in: paths.directory, digest: digest, owner: files.owner) { path in
            run.onFailure("the restored merge base") { () throws(SeedDBError) in try fs.remove(path) }
            run.setAside.append(path)
        }
    }

    /// Restores `<name>.previous.base` from `<name>.previous.base.xor.zst` against
    /// `<name>.previous` (through a flushed temporary file whose digest must be `digest`,
    /// the recorded one: a file changed since it was observed stops the run), then sets
    /// the delta aside. Undone by removing the restored file and renaming the delta back.
    private func restorePreviousBase(_ digest: SHA256Digest, _ run: DeployRun) throws(SeedDBError) {
        let restored = try restoredPreviousBase(digest, run)
        try fs.renameNoReplace(restored, to: paths.previousBase)
        run.setAside.removeAll { $0 == restored }
        // One undo for both: the restored base goes only once the delta is back, so a
        // failed undo never leaves neither.
        var aside: String?
        run.onFailure("the previous merge base") { () throws(SeedDBError) in
            if let aside { try fs.rename(aside, to: paths.previousBaseCompressed) }
            try fs.remove(paths.previousBase)
        }
        let temporary = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "previous-base")
        try fs.rename(paths.previousBaseCompressed, to: temporary)
        aside = temporary
        run.setAside.append(temporary)
        try fs.syncDirectory(paths.directory)
    }

    /// Renames `source` to `<name>.base`, keeping the base there under a second name for
    /// the undo.
    private func moveBase(from source: String, _ run: DeployRun) throws(SeedDBError) {
        if try fs.fileType(at: paths.base) == .regular {
            let hold = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "old-base")
            try fs.link(paths.base, as: hold)
            run.setAside.append(hold)
            // `renameOver`: until the new base's rename, `hold` and the base are one file.
            run.onFailure("the merge base") { () throws(SeedDBError) in try renameOver(hold, to: paths.base) }
        } else {
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.remove(paths.base) }
        }
        try renameOver(source, to: paths.base)
        run.setAside.removeAll { $0 == source }
        try fs.syncDirectory(paths.directory)
    }

    /// Renames `source` to `destination`, which may be another name of the same file (two
    /// hard links to one seed file, or the base and the name `moveBase` keeps it under):
    /// `rename(2)` then does nothing, and `source` is removed.
    private func renameOver(_ source: String, to destination: String) throws(SeedDBError) {
        try fs.rename(source, to: destination)
        if try fs.fileType(at: source) != nil { try fs.remove(source) }
    }

    /// `clean-up`: removes what the run set aside and what the plan found disposable
    /// (a killed run's temporary files and their journals, staged generation files never
    /// installed). Failures are logged, never thrown: the next run that succeeds removes
    /// whatever is left.
    func cleanUp(_ leftovers: [String], _ run: DeployRun) {
        if let staged = run.staged, !run.installed || run.generation == nil { run.setAside.append(staged.path) }
        for path in Set(run.setAside + leftovers).sorted() {
            do {
                try fs.remove(path)
            } catch {
                context.logger.warning("could not remove \(path): \(error.message)")
            }
        }
    }
}

extension SeedPaths {
    /// The file that holds `content`: the working copy itself, or its generation file.
    func file(of content: PlannedStep.OldContent) -> String? {
        switch content {
        case .nothing, .seedLink: return nil
        case .file: return workingCopy
        case .generation(let number, _): return inDirectory(generationName(number))
        }
    }

    /// The path of a merge base file.
    func path(of location: PlannedStep.BaseLocation) -> String {
        switch location {
        case .inPlace: return base
        case .previous: return previousBase
        case .previousCompressed: return previousBaseCompressed
        case .staged(let generation):
            return FileSystem.namedTemporaryPath(in: directory, stem: name.rawValue, name: DeployExecutor.baseName(generationName(generation)))
        }
    }
}
