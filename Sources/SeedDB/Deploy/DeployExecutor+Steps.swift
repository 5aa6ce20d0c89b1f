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
    /// checks its header and digest, and flushes it. Undone by removing the file.
    ///
    /// A seed whose digest is known for its identity is not read at all when the kernel
    /// copies it (reflink or `copy_file_range`), nor is the copy, unless the configured
    /// integrity is `full`; its header is not read either when that content already passed
    /// a check. Otherwise the seed is hashed in the same pass as the copy, and the run
    /// remembers the digest for the seed's identity.
    func stage(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        if let number = plan.generation { run.generation = paths.generationName(number) }
        let source = SeedSource(path: target.source)
        let known = target.knownSourceDigest
        let vouched = known.map { target.entry.checked?.sha256 == $0.sha256 } ?? false
        let inspected = try db.inspectSeed(target.source, readingHeader: !vouched)
        if source.compression == .none, let known, known.identity == inspected.identity, let expected = target.expectedSHA256, expected != known.sha256 {
            // The remembered digest of the seed as it is: refused before anything is copied.
            throw target.digestMismatch(known.sha256, expected: expected)
        }
        var temporary = ""
        let options = SeedCopyOptions(
            known: known, prefix: inspected.prefix, rereads: context.configuration.integrity == .full,
            progress: context.configuration.progress, isInterrupted: context.configuration.isInterrupted)
        let copy = try db.copySeed(target.source, into: paths.directory, stem: paths.name.rawValue, policy: files, options: options) { path in
            temporary = path
            run.onFailure("the staged copy") { () throws(SeedDBError) in try fs.remove(path) }
        }
        if target.contentIsTheSeed {
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
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): its header declares \(declared) bytes but \(copy.size) were read (truncated, or changed while copying)")
            }
        }
        if vouched, copy.digest != known?.sha256, context.configuration.integrity != .none {
            // The seed changed after it was observed: the plan skipped the check for the
            // content it remembered, not for this one.
            let full = context.configuration.integrity == .full
            let result = db.check(temporary, full: full)
            guard result == "ok" else {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(full ? "integrity_check" : "quick_check") failed: \(result)")
            }
        }
        run.staged = StagedCopy(path: temporary, digest: copy.digest, size: copy.size)
        let configured = ConfiguredTables.names(preserved: target.preservedTables, merge: target.merge)
        if !target.isRollback, !plan.steps.contains(.carry), !configured.isEmpty {
            // A first install: the names the configuration gives are checked against the seed.
            try ConfiguredTables.check(configured, among: try db.tableNames(of: temporary), missingFrom: "the seed \(target.source)")
        }
        if target.isRollback {
            // The previous generation was fenced when it stopped being the working copy.
            if try db.unfence(temporary) { try run.rehashStaged(fs) }
            run.seedTables = target.entry.previous?.seedTables
        } else {
            if let memo = target.entry.checked, memo.sha256 == copy.digest { run.seedTables = memo.tables }
            try keepPristineCopy(run, of: try run.staged(for: .stage), evenByCopy: target.merge.mergesAnything)
        }
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
    /// new copy is recorded: always where the file system makes it a reflink (free), and by
    /// a copy only for a seed that merges (elsewhere it would cost a second copy of every
    /// deploy).
    private func keepPristineCopy(_ run: DeployRun, of staged: StagedCopy, evenByCopy: Bool) throws(SeedDBError) {
        // Named after the generation it goes with, so a run killed after its switch is
        // finished with this base (see ``installBase(_:_:)``).
        let pristine: String
        if let generation = run.generation {
            pristine = FileSystem.namedTemporaryPath(in: paths.directory, stem: paths.name.rawValue, name: Self.baseName(generation))
        } else {
            pristine = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "base")
        }
        let kept = try fs.keepCopy(of: staged.path, digest: staged.digest, at: pristine, evenByCopy: evenByCopy, owner: files.owner) { path in
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.remove(path) }
            run.setAside.append(path)
        }
        if kept { run.pristine = (pristine, staged.digest) }
    }

    /// `check`: runs the plan's integrity check on the staged copy, unless its content
    /// (known by digest only now) already passed one at least as strict. Changes nothing.
    func check(_ level: IntegrityLevel, _ run: DeployRun) throws(SeedDBError) {
        let staged = try run.staged(for: .check)
        if let memo = target.entry.checked, memo.sha256 == staged.digest, memo.integrity >= level, memo.tables != nil {
            run.memo = memo
            if !target.isRollback { run.seedTables = memo.tables }
            return
        }
        let result = db.check(staged.path, full: level == .full)
        guard result == "ok" else {
            throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(level == .full ? "integrity_check" : "quick_check") failed: \(result)")
        }
        let tables = try db.tableNames(of: staged.path)
        if !target.isRollback { run.seedTables = tables }
        run.memo = ValidationMemo(sha256: staged.digest, integrity: level, tables: tables)
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
    func withdraw(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        guard target.release == nil else { return }
        let store = context.records
        run.onFailure("the withdrawn record") { [backup = target.settingsBackup] () throws(SeedDBError) in
            try store.restore(backup, timeout: context.configuration.wait)
        }
        let interrupted = marker(plan, run)
        try store.update(timeout: deadline.timeLeft) { table in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            entry.record = nil
            entry.interrupted = interrupted
            table[paths.name.rawValue] = entry
        }
    }

    /// The `"interrupted"` marker `withdraw` writes for `plan` once `run` is prepared:
    /// the version, the generation file a swap installs, the record it replaces, the base
    /// it puts in place, and the release the run is one seed of.
    func marker(_ plan: DeployPlan, _ run: DeployRun) -> SettingsEntry.InterruptedRun {
        let replacing = target.entry.record ?? target.entry.interrupted?.replacing
        // A rollback puts the previous generation's base in place; a replace its new seed's.
        return SettingsEntry.InterruptedRun(
            version: target.version, generation: run.generation, replacing: replacing,
            base: target.isRollback ? target.entry.previous?.base : run.pristine?.digest, seedTables: run.seedTables,
            isRollback: target.isRollback, snapshot: plan.previousAlreadyKept ? target.entry.interrupted?.snapshot : nil,
            replacingGeneration: target.workingCopy.state.generationNumber.map(paths.generationName), adopting: target.adopted,
            release: target.release)
    }

    /// `carry`: under the writer's lock, carries the user's tables from the old copy into
    /// the staged one and, when the seed asks for it, merges the user's edits of the seed's
    /// rows (a swap flushes and re-hashes the staged copy; a live replace copies it on).
    func carry(_ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        switch scope {
        case .live(let live, let old?):
            try carry(into: .live(live), old: old, plan, run)
        case .swap(let old?):
            try carry(into: .staged(try run.staged(for: .carry).path), old: old, plan, run)
            if !run.carried.isEmpty || run.merge != nil { try run.rehashStaged(fs) }
        default:
            if !target.preservedTables.isEmpty || target.merge.mergesAnything {
                context.logger.warning("old working copy \(paths.workingCopy) is not a database; nothing was carried from it")
            }
        }
    }

    /// The carry into the staged copy: the merge first (when on, against the merge base
    /// when it is there and matches the record), then the preserved tables and the tables
    /// the app created. A refusal under `fail` still writes the conflicts file, for
    /// `seeddb conflicts`.
    private func carry(into carryTarget: CarryTarget, old: String, _ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        let appTables: TableCarry.AppTables
        if !target.adopted, let seedTables = (target.entry.record ?? target.entry.interrupted?.replacing)?.seedTables {
            appTables = .notInTheOldSeed(seedTables)
        } else {
            appTables = .notInTheNewSeed
        }
        // Nothing of the user's to merge into a working copy nobody wrote to.
        let merge = plan.skipsMerge ? MergePolicies() : target.merge
        let base = merge.mergesAnything ? try usableBase() : (path: nil, problem: nil)
        let request = CarryRequest(
            workingCopy: paths.workingCopy, preservedTables: target.preservedTables, merge: merge, appTables: appTables,
            configuredTables: ConfiguredTables.names(preserved: target.preservedTables, merge: target.merge), base: base.path)
        // Said once the merge ran (done or refused): a carry refused first (a misspelt
        // table) merged nothing.
        func warnAboutTheBase() {
            guard let problem = base.problem else { return }
            context.logger.warning("merge base \(paths.base) \(problem): merging without a base (a cell that differs from the new seed is a conflict); once a deploy succeeds, its base is kept for the next upgrade")
        }
        do {
            let result = try db.carry(into: carryTarget, from: old, request, logger: context.logger)
            (run.carried, run.merge) = (result.carried, result.merge)
            warnAboutTheBase()
        } catch {
            if let failure = error.underlying as? MergeFailure {
                warnAboutTheBase()
                writeConflicts(failure.conflicts)
            }
            throw error
        }
    }

    /// `<name>.base` when it is there and its digest is the one recorded; otherwise no
    /// path and what is wrong with it: the merge runs without a base (nothing the user's
    /// copy holds is lost; cells that differ from the new seed are conflicts), and the new
    /// base is kept so the next upgrade merges against it.
    private func usableBase() throws(SeedDBError) -> (path: String?, problem: String?) {
        let base = paths.base
        if try fs.fileType(at: base) != .regular { return (nil, "is missing") }
        if let expected = target.entry.base, try fs.sha256(of: base) == expected { return (base, nil) }
        return (nil, "does not match the recorded seed")
    }

    /// Writes the conflicts of the last merge attempt beside the working copy (a JSON
    /// array). Failing to write it is a warning: the merge itself is what matters.
    func writeConflicts(_ conflicts: [MergeConflict]) {
        let text = "[" + conflicts.map(\.json).joined(separator: ",") + "]\n"
        do {
            try fs.writeAtomically(Array(text.utf8), to: paths.conflictsFile, permissions: [.ownerReadWrite, .groupRead, .otherRead], owner: files.owner)
        } catch {
            context.logger.warning("could not write the merge conflicts to \(paths.conflictsFile): \(error.message)")
        }
    }

    /// `install`, by swap, under the writer's lock: the staged copy becomes a new
    /// generation file, made durable under its name before the working copy's link is
    /// switched to it atomically; the old content is fenced (``GenerationFence``), so a
    /// connection still holding it gets an error on its next write instead of writing
    /// where nobody reads, and (unless `keep-previous` takes it) moved out of the way.
    /// Undone by switching back.
    func installBySwap(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        let workingCopy = target.workingCopy
        guard let generation = run.generation else {
            throw SeedDBError(.ioFailure, "cannot install \(paths.workingCopy) by swap: the plan named no generation file")
        }
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

        switch workingCopy.state {
        case .file:
            // Keep the old file reachable under a second name: for the undo, and as the
            // previous generation.
            let hold = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "old")
            try fs.link(paths.workingCopy, as: hold)
            run.oldContent = hold
            run.setAside.append(hold)
            run.onFailure("the old working copy") { () throws(SeedDBError) in try fs.rename(hold, to: paths.workingCopy) }
        case .generation(let number) where !workingCopy.linkMissing:
            let old = paths.generationName(number)
            run.onFailure("the working copy's link") { () throws(SeedDBError) in
                try fs.replaceWithLink(paths.workingCopy, to: old, owner: files.owner)
            }
        case .generation, .absent, .foreign:
            run.onFailure("the working copy's link") { () throws(SeedDBError) in try fs.remove(paths.workingCopy) }
        }
        try fs.replaceWithLink(paths.workingCopy, to: generation, owner: files.owner)
        try fs.syncDirectory(paths.directory)
        run.installed = true

        if case .generation(let number) = workingCopy.state {
            run.oldContent = paths.inDirectory(paths.generationName(number))
        }
        guard let old = run.oldContent else { return }
        if let header = try db.fence(old) {
            run.onFailure("the fence on the old copy") { () throws(SeedDBError) in try db.restoreHeader(old, header) }
        }
        run.setAside += SeedPaths.sqliteSidecars(of: workingCopy.state == .file ? paths.workingCopy : old)
        if !plan.keepsPrevious, case .generation = workingCopy.state {
            try retire(old, run)
        }
    }

    /// The name of the temporary file the merge base of `generation` is staged in.
    static func baseName(_ generation: String) -> String { generation + ".base" }

    /// `relink`: puts back the working copy's link to the recorded generation file, found
    /// without it. Undone by removing the link.
    func relink(_ run: DeployRun) throws(SeedDBError) {
        guard let generation = target.entry.generation else { return }
        run.onFailure("the working copy's link") { () throws(SeedDBError) in try fs.remove(paths.workingCopy) }
        try fs.replaceWithLink(paths.workingCopy, to: generation, owner: files.owner)
        try fs.syncDirectory(paths.directory)
        run.installed = true
    }

    /// Moves a generation file that is no longer needed to a temporary name, removed once
    /// the run succeeded. Undone by renaming back.
    private func retire(_ old: String, _ run: DeployRun) throws(SeedDBError) {
        run.oldContent = try setAside(old, as: "retired", what: "the old generation file", run)
    }

    /// Renames `path` to a temporary name of `kind`, removed once the run succeeded;
    /// undone by renaming it back. The temporary path.
    @discardableResult
    private func setAside(_ path: String, as kind: String, what: String, _ run: DeployRun) throws(SeedDBError) -> String {
        let aside = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: kind)
        try fs.rename(path, to: aside)
        run.onFailure(what) { () throws(SeedDBError) in try fs.rename(aside, to: path) }
        run.setAside.append(aside)
        return aside
    }

    /// `keep-previous`: the old content becomes `<name>.previous` (by a rename after a
    /// swap, by a snapshot before a live replace); an existing previous generation is set
    /// aside first. Finishing an interrupted swap, the old generation the record still
    /// names is the old content. Undone by renaming back.
    func keepPrevious(_ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        if plan.dropsPrevious, try fs.fileType(at: paths.previousGeneration) == .regular {
            if let stamp = plan.keepsDroppedPreviousAs {
                // A database SeedDB could not account for is never removed by a rotation.
                let adopted = paths.adoptedCopy(stamp)
                try fs.renameNoReplace(paths.previousGeneration, to: adopted)
                run.onFailure("the adopted copy") { () throws(SeedDBError) in try fs.rename(adopted, to: paths.previousGeneration) }
                context.logger.warning("\(paths.previousGeneration) held a database SeedDB adopted; it is kept as \(adopted) (`seeddb purge --adopted` removes it)")
            } else {
                try setAside(paths.previousGeneration, as: "previous", what: "the previous generation", run)
            }
        }
        try keepPreviousBase(plan, run)
        if plan.finishesInterrupted, let oldGeneration = target.entry.interrupted?.replacingGeneration ?? target.entry.generation,
           try fs.fileType(at: paths.inDirectory(oldGeneration)) == .regular {
            let old = paths.inDirectory(oldGeneration)
            _ = try db.fence(old)
            run.oldContent = old
            run.setAside += SeedPaths.sqliteSidecars(of: old)
            if !plan.keepsPrevious { try retire(old, run) }
        }
        guard plan.keepsPrevious else { return }
        let content: String
        switch scope {
        case .live(let live, let old?):
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
        default:
            guard let old = run.oldContent else { return }
            content = old
        }
        try giveWorkingCopyOwnership(to: content, run)
        try fs.rename(content, to: paths.previousGeneration)
        run.setAside.removeAll { $0 == content }
        run.onFailure("the new previous generation") { () throws(SeedDBError) in try fs.rename(paths.previousGeneration, to: content) }
        try fs.syncDirectory(paths.directory)
    }

    /// The previous generation gets the working copy's mode and owner: `--mode` and
    /// `--owner` when given, otherwise the mode of the content now installed (and, as
    /// root, its owner), so an adopted database or a generation made under another mode
    /// does not keep its own. Undone by giving it back its own. A file this process may
    /// not change (another user's, adopted) keeps its own, with a warning.
    private func giveWorkingCopyOwnership(to content: String, _ run: DeployRun) throws(SeedDBError) {
        guard let (keptMode, keptOwner) = try fs.modeAndOwner(of: content),
              let installed = try WorkingCopy.inspect(paths, files: fs).contentFile.flatMap({ (path) throws(SeedDBError) in try fs.modeAndOwner(of: path) })
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

    /// The merge base follows its generation: the current base is also named
    /// `<name>.previous.base` when the old copy becomes the previous generation; a dropped previous generation
    /// takes its base along (a rollback keeps it, to restore it).
    private func keepPreviousBase(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        if (plan.dropsPrevious || plan.keepsPrevious) && !target.isRollback, try fs.fileType(at: paths.previousBase) == .regular {
            try setAside(paths.previousBase, as: "previous-base", what: "the previous merge base", run)
        }
        if plan.keepsPrevious, try fs.fileType(at: paths.base) == .regular {
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
    }

    /// `record`: puts the merge base in place, then records the new version (and the
    /// previous generation, the check passed, the seed's identity, the location, the
    /// generation file, the seed's tables, and a rollback's hold) in place of what the run
    /// was doing. After a swap it runs under the writer's lock and is undone by restoring
    /// the settings' bytes and the base. One seed of a release (``DeployTarget/release``)
    /// leaves its change to the settings in ``DeployRun/pendingRecord``: the release writes
    /// every seed's record at once, after the last install.
    func record(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        let store = context.records
        let interrupted = target.entry.interrupted
        let content: (digest: SHA256Digest, size: Int64)
        if plan.finishesInterrupted {
            // The content an interrupted run installed, as it is now (a live one's: the working copy's).
            guard let path = interrupted?.generation.map(paths.inDirectory) ?? target.workingCopy.contentFile else {
                throw SeedDBError(.ioFailure, "cannot finish the run interrupted on \(paths.workingCopy): its content is gone")
            }
            content = try fs.digestAndSync(path)
        } else {
            // After a live replace, the backup copied the staged content, carried tables included.
            if plan.strategy == .live { try run.rehashStaged(fs) }
            let staged = try run.staged(for: .record)
            content = (staged.digest, staged.size)
        }
        if plan.strategy == .swap, target.release == nil {
            run.onFailure("the record") { [backup = target.settingsBackup] () throws(SeedDBError) in
                try store.restore(backup, timeout: context.configuration.wait)
            }
        }
        let base = try installBase(plan, run)
        let replaced = target.entry.record ?? interrupted?.replacing
        let previous: DeployRecord? = target.adopted
            ? try adoptedRecord(run)
            : replaced.map { record in
                var record = record
                record.base = target.entry.base
                return record
            }
        let seedTables = plan.finishesInterrupted ? interrupted?.seedTables : run.seedTables
        let pristine = try pristineIdentity(plan, run)
        let record = DeployRecord(version: target.version, sha256: content.digest, size: content.size, deployedAt: Date().ISO8601Format(), seedTables: seedTables)
        let change = { (table: inout [String: SettingsEntry]) in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            entry.record = record
            entry.base = base
            entry.interrupted = nil
            entry.heldFrom = target.isRollback ? (replaced?.version ?? entry.heldFrom) : nil
            if plan.keepsPrevious || plan.previousAlreadyKept {
                entry.previous = previous
                entry.previous?.signature = target.adopted ? nil : target.entry.signature
            } else if plan.dropsPrevious || target.isRollback {
                entry.previous = nil
            }
            // The signature is the pin: a rollback to an unsigned generation keeps it.
            entry.signature = target.isRollback ? target.entry.previous?.signature ?? target.entry.signature : target.signature
            if let memo = run.memo { entry.checked = memo }
            if let digest = run.sourceDigest { entry.source = digest }
            entry.location = target.location
            if let generation = plan.strategy == .swap ? (run.generation ?? interrupted?.generation) : target.entry.generation {
                entry.generation = generation
            }
            entry.pristine = pristine
            table[paths.name.rawValue] = entry
        }
        if target.release != nil {
            // One seed of a release: recorded with every other seed, in one settings write.
            run.pendingRecord = change
        } else {
            try store.update(timeout: deadline.timeLeft, change)
        }
        if let merge = run.merge {
            writeConflicts(merge.conflicts)
        } else if target.isRollback, (try? fs.fileType(at: paths.conflictsFile)) != nil {
            // The merge whose conflicts the file lists is the one rolled back.
            try? fs.remove(paths.conflictsFile)
        }
    }

    /// The identity of the content just installed, when it is the seed's own: a replace
    /// (not a rollback, not the finishing of a killed run) that carried no table and whose
    /// merge, if any, changed nothing. Taken before the record is written; anything that
    /// writes to the file later changes it.
    private func pristineIdentity(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) -> FileIdentity? {
        guard !plan.finishesInterrupted, !target.isRollback, run.carried.isEmpty else { return nil }
        if let merge = run.merge?.summary, merge.inserted + merge.updated + merge.deleted + merge.conflicts > 0 { return nil }
        let content = plan.strategy == .swap ? run.generation.map(paths.inDirectory) : target.workingCopy.contentFile
        return try content.map { (path) throws(SeedDBError) in try fs.identity(of: path) }
    }

    /// The record of an adopted database as the previous generation: what it holds is
    /// not known, so it is recorded as version ``DeployRecord/adoptedVersion`` with the
    /// digest and size of its file.
    private func adoptedRecord(_ run: DeployRun) throws(SeedDBError) -> DeployRecord? {
        guard try fs.fileType(at: paths.previousGeneration) == .regular else { return nil }
        let (digest, size) = try fs.digestAndSync(paths.previousGeneration)
        return DeployRecord(version: DeployRecord.adoptedVersion, sha256: digest, size: size, deployedAt: Date().ISO8601Format())
    }

    /// Puts the merge base that goes with the new copy in place before the record names
    /// it, durably, so no kill leaves a record and a base that disagree: the pristine new
    /// seed, or after a rollback the previous generation's base. The old base stays
    /// reachable for the undo. Without merging, an old base would only mislead the next
    /// merge, so it goes.
    ///
    /// - Returns: The digest the record names as the base.
    private func installBase(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) -> SHA256Digest? {
        let interrupted = target.entry.interrupted
        if plan.finishesInterrupted {
            // The base the killed run wrote down is wherever it got to: already in place,
            // staged under its generation's name (a replace), or still the previous
            // generation's (a rollback). The record names the digest of the `.base` on
            // disk, or no base at all.
            guard let expected = interrupted?.base else {
                if try fs.fileType(at: paths.base) != nil { run.setAside.append(paths.base) }
                return nil
            }
            let staged = interrupted?.generation.map {
                FileSystem.namedTemporaryPath(in: paths.directory, stem: paths.name.rawValue, name: Self.baseName($0))
            }
            for candidate in [paths.base, staged, interrupted?.isRollback == true ? paths.previousBase : nil].compactMap({ $0 }) {
                guard try fs.fileType(at: candidate) == .regular, try fs.sha256(of: candidate) == expected else { continue }
                if candidate != paths.base {
                    try fs.rename(candidate, to: paths.base)
                    try fs.syncDirectory(paths.directory)
                }
                return expected
            }
            if try fs.fileType(at: paths.base) != nil { run.setAside.append(paths.base) }
            return nil
        }
        var source: (path: String, digest: SHA256Digest?)?
        if let pristine = run.pristine {
            source = (pristine.path, pristine.digest)
        } else if target.isRollback, target.entry.previous?.base != nil, try fs.fileType(at: paths.previousBase) == .regular {
            source = (paths.previousBase, target.entry.previous?.base)
        } else if target.isRollback {
            // The restored generation has no base: the current one belongs to what it replaces.
            for stale in [paths.base, paths.previousBase] where try fs.fileType(at: stale) != nil {
                run.setAside.append(stale)
            }
            return nil
        }
        guard let source else {
            if !target.merge.mergesAnything {
                for stale in [paths.base, paths.previousBase] where try fs.fileType(at: stale) != nil {
                    run.setAside.append(stale)
                }
                return nil
            }
            return target.entry.base
        }
        if try fs.fileType(at: paths.base) == .regular {
            let hold = try fs.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "old-base")
            try fs.link(paths.base, as: hold)
            run.setAside.append(hold)
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.rename(hold, to: paths.base) }
        } else {
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.remove(paths.base) }
        }
        try fs.rename(source.path, to: paths.base)
        run.setAside.removeAll { $0 == source.path }
        try fs.syncDirectory(paths.directory)
        return source.digest
    }

    /// `clean-up`: removes what the run set aside, and what killed runs left that is
    /// provably disposable (temporary files and their journals, staged generation files
    /// never installed). Failures are logged, never thrown: the next run that succeeds
    /// removes whatever is left.
    func cleanUp(_ run: DeployRun) {
        if let staged = run.staged, !run.installed || run.generation == nil { run.setAside.append(staged.path) }
        for path in Set(run.setAside).sorted() {
            do {
                try fs.remove(path)
            } catch {
                context.logger.warning("could not remove \(path): \(error.message)")
            }
        }
    }
}
