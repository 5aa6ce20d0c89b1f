import Foundation
import GRDB
import SeedDBCore

extension DeployExecutor {
    private var paths: SeedPaths { target.paths }
    private var files: FilePolicy { deployer.configuration.files }

    /// `stage`: copies the source into a new temporary file beside the working copy,
    /// checks its header and digest, and flushes it. Undone by removing the file.
    ///
    /// A seed whose digest is known for its identity is not read at all when the kernel
    /// copies it (reflink or `copy_file_range`), nor is the copy, unless the configured
    /// integrity is `full`; its header is not read either when that content already passed
    /// a check. Otherwise the seed is hashed in the same pass as the copy, and the run
    /// remembers the digest for the seed's identity.
    func stage(_ run: DeployRun) throws(SeedDBError) {
        let source = SeedSource(path: target.source)
        let known = target.seedFile?.digest
        let vouched = known.map { target.entry.checked?.sha256 == $0.sha256 } ?? false
        let inspected = try source.inspect(readingHeader: !vouched)
        if source.compression == .none, let known, known.identity == inspected.identity, let expected = target.expectedSHA256, expected != known.sha256 {
            // The remembered digest of the seed as it is: refused before anything is copied.
            throw target.digestMismatch(known.sha256, expected: expected)
        }
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: paths.directory, stem: paths.name.rawValue)
        run.onFailure("the staged copy") { () throws(SeedDBError) in try FileSystem.remove(temporary) }
        let copy: SeedSource.CopyResult
        do {
            copy = try descriptor.closeAfter { () throws(SeedDBError) -> SeedSource.CopyResult in
                try FileSystem.apply(files, to: descriptor, path: temporary)
                // The flush overlaps the end of the hashing.
                return try source.copy(
                    to: descriptor, destinationPath: temporary, known: known, prefix: inspected.prefix,
                    rereads: deployer.configuration.integrity == .full,
                    progress: deployer.configuration.progress
                ) { () throws(SeedDBError) in
                    try FileSystem.sync(descriptor, path: temporary)
                }
            }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot write", temporary)
        }
        if let identity = copy.identity, target.seedFile != nil {
            target.seedFile?.digest = SourceDigest(identity: identity, sha256: copy.digest)
        }
        if let expected = target.expectedSHA256, expected != copy.digest {
            throw target.digestMismatch(copy.digest, expected: expected)
        }
        // The content that passed a check, copied unchanged: its header was read then.
        let checkedBefore = vouched && copy.identity == known?.identity
        var header = inspected.header
        if header == nil && !checkedBefore { header = SQLiteHeader(try FileSystem.readPrefix(of: temporary, count: SQLiteHeader.length)) }
        if !checkedBefore {
            guard let header else {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): not an SQLite 3 database\(source.compression == .none ? "" : " once decompressed") (bad header)")
            }
            if let declared = header.declaredSize, declared != copy.size {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): its header declares \(declared) bytes but \(copy.size) were read (truncated, or changed while copying)")
            }
        }
        if vouched, copy.digest != known?.sha256, deployer.configuration.integrity != .none {
            // The seed changed after it was observed: the plan skipped the check for the
            // content it remembered, not for this one.
            let full = deployer.configuration.integrity == .full
            let result = SQLiteFile.check(temporary, access: .immutable, full: full)
            guard result == "ok" else {
                throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(full ? "integrity_check" : "quick_check") failed: \(result)")
            }
        }
        run.staged = StagedCopy(path: temporary, digest: copy.digest, size: copy.size)
        if !target.isRollback {
            try keepPristineCopy(run, evenByCopy: target.merge.mergesAnything)
        }
        if let migrator = deployer.configuration.migrator {
            try SQLiteFile.mapping("cannot run the app's migrations on", temporary) {
                let queue = try SQLiteFile.open(temporary, access: .readWrite, label: "SeedDB.migrate")
                defer { try? queue.close() }
                try migrator.migrate(queue)
            }
            (run.staged!.digest, run.staged!.size) = try FileSystem.digestAndSync(temporary)
        }
    }

    /// Keeps a pristine, read-only copy of the staged seed, to become `<name>.base` once the
    /// new copy is recorded: always where the file system makes it a reflink (free), and by
    /// a copy only for a seed that merges (elsewhere it would cost a second copy of every
    /// deploy).
    private func keepPristineCopy(_ run: DeployRun, evenByCopy: Bool) throws(SeedDBError) {
        let staged = run.staged!
        let (descriptor, pristine) = try FileSystem.createTemporaryFile(in: paths.directory, stem: paths.name.rawValue, permissions: [.ownerRead, .groupRead, .otherRead])
        run.onFailure("the merge base") { () throws(SeedDBError) in try FileSystem.remove(pristine) }
        run.setAside.append(pristine)
        if !evenByCopy {
            let cloned = FileSystem.clone(staged.path, into: descriptor)
            try? descriptor.close()
            if cloned { run.pristine = (pristine, staged.digest) }
            return
        }
        do {
            _ = try descriptor.closeAfter { () throws -> SeedSource.CopyResult in
                if let owner = files.owner { try FileSystem.setOwner(owner, of: pristine) }
                return try SeedSource(path: staged.path).copy(to: descriptor, destinationPath: pristine, progress: nil) { () throws(SeedDBError) in
                    try FileSystem.sync(descriptor, path: pristine)
                }
            }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot write", pristine)
        }
        run.pristine = (pristine, staged.digest)
    }

    /// `check`: runs the plan's integrity check on the staged copy, unless its content
    /// (known by digest only now) already passed one at least as strict. Changes nothing.
    func check(_ level: IntegrityLevel, _ run: DeployRun) throws(SeedDBError) {
        let staged = run.staged!
        if let memo = target.entry.checked, memo.sha256 == staged.digest, memo.integrity >= level {
            run.memo = memo
            return
        }
        let result = SQLiteFile.check(staged.path, access: .immutable, full: level == .full)
        guard result == "ok" else {
            throw SeedDBError(.invalidSeed, "invalid seed \(target.source): \(level == .full ? "integrity_check" : "quick_check") failed: \(result)")
        }
        run.memo = ValidationMemo(sha256: staged.digest, integrity: level)
    }

    /// `withdraw`: removes the recorded version (and the previous generation's record
    /// when the plan replaces or drops it). Undone by restoring the settings' bytes.
    func withdraw(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        let store = deployer.settings(at: paths)
        run.onFailure("the withdrawn record") { [backup = target.settingsBackup] () throws(SeedDBError) in
            try store.restore(backup, timeout: deployer.configuration.wait)
        }
        try store.update(timeout: remaining) { table in
            table[paths.name.rawValue]?.record = nil
            if plan.keepsPrevious || plan.dropsPrevious { table[paths.name.rawValue]?.previous = nil }
        }
    }

    /// `carry`: under the writer's lock, carries the user's tables from the old copy into
    /// the staged one and, when the seed asks for it, merges the user's edits of the seed's
    /// rows (a swap flushes and re-hashes the staged copy; a live replace copies it on).
    func carry(_ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        switch scope {
        case .live(let db, let old?):
            try carry(into: db, old: old, run)
        case .swap(let old?):
            let staged = run.staged!.path
            try SQLiteFile.mapping("cannot carry tables into", staged) {
                let queue = try SQLiteFile.open(staged, access: .readWrite, label: "SeedDB.carry")
                defer { try? queue.close() }
                try queue.writeWithoutTransaction { db in try carry(into: db, old: old, run) }
            }
            if !run.carried.isEmpty || run.merge != nil {
                (run.staged!.digest, run.staged!.size) = try FileSystem.digestAndSync(staged)
            }
        default:
            if !target.preservedTables.isEmpty || target.merge.mergesAnything {
                deployer.logger.warning("old working copy \(paths.workingCopy) is not a database; nothing was carried from it")
            }
        }
    }

    /// The carry on a connection to the staged copy: the merge first (when on), then the
    /// preserved tables and the tables the app created.
    private func carry(into db: Database, old: String, _ run: DeployRun) throws(SeedDBError) {
        try SQLiteFile.mapping("cannot read the working copy", paths.workingCopy) {
            try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [old])
        }
        defer { try? db.execute(sql: "DETACH DATABASE old") }
        var merged: [String] = []
        if target.merge.mergesAnything {
            let result = try merge(into: db, run)
            run.merge = result
            merged = result.carriedTables
        }
        let carried = merged + (try TableCarry.carry(target.preservedTables, in: db, logger: deployer.logger))
        run.carried = carried.enumerated().filter { carried.firstIndex(of: $0.element) == $0.offset }.map(\.element)
    }

    /// The three-way merge of the user's edits into the staged copy, against the merge
    /// base when it is there and matches the record. A refusal under `fail` still writes
    /// the conflicts file, for `seeddb conflicts`.
    private func merge(into db: Database, _ run: DeployRun) throws(SeedDBError) -> MergeResult {
        let base = try usableBase()
        if let base {
            try SQLiteFile.mapping("cannot read the merge base", base) {
                try db.execute(sql: "ATTACH DATABASE ? AS seeddb_base", arguments: [SQLiteFile.uri(base, query: "immutable=1")])
            }
        }
        defer { if base != nil { try? db.execute(sql: "DETACH DATABASE seeddb_base") } }
        var policies = target.merge
        for table in target.preservedTables { policies.tables[table] = .off }
        do {
            return try ThreeWayMerge(policies: policies, logger: deployer.logger)
                .merge(in: db, base: base == nil ? nil : "seeddb_base", user: "old", into: "main")
        } catch {
            if let failure = error.underlying as? MergeFailure {
                writeConflicts(failure.conflicts)
            }
            throw error
        }
    }

    /// `<name>.base` when it is there and its digest is the one recorded; otherwise `nil`,
    /// with a warning: the seed's rows stand this time, and the new base is kept so the
    /// next upgrade merges.
    private func usableBase() throws(SeedDBError) -> String? {
        let base = paths.base
        let problem: String?
        if try FileSystem.fileType(at: base) != .regular {
            problem = "is missing"
        } else if let expected = target.entry.base, try FileDigest.sha256(ofFileAt: base) == expected {
            problem = nil
        } else {
            problem = "does not match the recorded seed"
        }
        guard let problem else { return base }
        deployer.logger.warning("merge base \(base) \(problem): the new seed's rows stand this time; the new base is kept so the next upgrade merges")
        return nil
    }

    /// Writes the conflicts of the last merge attempt beside the working copy (a JSON
    /// array). Failing to write it is a warning: the merge itself is what matters.
    func writeConflicts(_ conflicts: [MergeConflict]) {
        let text = "[" + conflicts.map(\.json).joined(separator: ",") + "]\n"
        do {
            try FileSystem.writeAtomically(Array(text.utf8), to: paths.conflictsFile, permissions: [.ownerReadWrite, .groupRead, .otherRead], owner: files.owner)
        } catch {
            deployer.logger.warning("could not write the merge conflicts to \(paths.conflictsFile): \(error.message)")
        }
    }

    /// `install`, by swap, under the writer's lock: the staged copy becomes a new
    /// generation file, the working copy's link is switched to it atomically, and the old
    /// content is moved out of the way (so a connection still holding it gets
    /// `SQLITE_READONLY_DBMOVED` on its next write instead of writing where nobody reads).
    /// Undone by switching back.
    func installBySwap(_ run: DeployRun) throws(SeedDBError) {
        let workingCopy = target.workingCopy
        let generation = paths.generationName(workingCopy.nextGeneration(recorded: target.entry.generation))
        let generationPath = paths.inDirectory(generation)
        let staged = run.staged!.path
        try FileSystem.rename(staged, to: generationPath)
        run.onFailure("the new generation file") { () throws(SeedDBError) in try FileSystem.rename(generationPath, to: staged) }

        switch workingCopy.state {
        case .file:
            // Keep the old file reachable under a second name: for the undo, and as the
            // previous generation.
            let hold = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "old")
            try FileSystem.link(paths.workingCopy, as: hold)
            run.oldContent = hold
            run.setAside.append(hold)
            run.onFailure("the old working copy") { () throws(SeedDBError) in try FileSystem.rename(hold, to: paths.workingCopy) }
        case .generation(let number):
            let old = paths.generationName(number)
            run.onFailure("the working copy's link") { () throws(SeedDBError) in
                try FileSystem.replaceWithLink(paths.workingCopy, to: old, owner: files.owner)
            }
        case .absent, .foreign:
            run.onFailure("the working copy's link") { () throws(SeedDBError) in try FileSystem.remove(paths.workingCopy) }
        }
        try FileSystem.replaceWithLink(paths.workingCopy, to: generation, owner: files.owner)
        try FileSystem.syncDirectory(paths.directory)
        run.generation = generation
        run.installed = true

        if case .generation(let number) = workingCopy.state {
            let old = paths.inDirectory(paths.generationName(number))
            let retired = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "retired")
            try FileSystem.rename(old, to: retired)
            run.onFailure("the old generation file") { () throws(SeedDBError) in try FileSystem.rename(retired, to: old) }
            run.oldContent = retired
            run.setAside.append(retired)
            run.setAside += SeedPaths.sqliteSidecars(of: old)
        } else if workingCopy.state == .file {
            run.setAside += paths.sqliteSidecars
        }
    }

    /// `keep-previous`: the old content becomes `<name>.previous` (by a rename after a
    /// swap, by a snapshot before a live replace); an existing previous generation is set
    /// aside first. Undone by renaming back.
    func keepPrevious(_ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        if plan.dropsPrevious, try FileSystem.fileType(at: paths.previousGeneration) == .regular {
            let aside = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "previous")
            try FileSystem.rename(paths.previousGeneration, to: aside)
            run.onFailure("the previous generation") { () throws(SeedDBError) in try FileSystem.rename(aside, to: paths.previousGeneration) }
            run.setAside.append(aside)
        }
        try keepPreviousBase(plan, run)
        guard plan.keepsPrevious else { return }
        let content: String
        switch scope {
        case .live(let db, let old?):
            content = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "snapshot")
            run.onFailure("the snapshot") { () throws(SeedDBError) in try FileSystem.remove(content) }
            try SQLiteFile.mapping("cannot keep the previous generation in", content) {
                try db.execute(sql: "ATTACH DATABASE ? AS seeddb_old", arguments: [old])
                defer { try? db.execute(sql: "DETACH DATABASE seeddb_old") }
                try db.execute(sql: "VACUUM seeddb_old INTO ?", arguments: [content])
            }
            let (_, _) = try FileSystem.digestAndSync(content)
            if let owner = files.owner { try FileSystem.setOwner(owner, of: content) }
        default:
            guard let old = run.oldContent else { return }
            content = old
        }
        try FileSystem.rename(content, to: paths.previousGeneration)
        run.setAside.removeAll { $0 == content }
        run.onFailure("the new previous generation") { () throws(SeedDBError) in try FileSystem.rename(paths.previousGeneration, to: content) }
        try FileSystem.syncDirectory(paths.directory)
    }

    /// The merge base follows its generation: the current base is also named
    /// `<name>.previous.base` when the old copy becomes the previous generation; a dropped previous generation
    /// takes its base along (a rollback keeps it, to restore it).
    private func keepPreviousBase(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        if (plan.dropsPrevious || plan.keepsPrevious) && !target.isRollback, try FileSystem.fileType(at: paths.previousBase) == .regular {
            let aside = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "previous-base")
            try FileSystem.rename(paths.previousBase, to: aside)
            run.onFailure("the previous merge base") { () throws(SeedDBError) in try FileSystem.rename(aside, to: paths.previousBase) }
            run.setAside.append(aside)
        }
        if plan.keepsPrevious, try FileSystem.fileType(at: paths.base) == .regular {
            // A second name, not a move: until the record step replaces it, `<name>.base`
            // stays the base the recorded digest names, so a run killed in between merges
            // again with it.
            let link = FileSystem.temporaryPath(in: paths.directory, stem: paths.name.rawValue, kind: "base-link")
            try FileSystem.link(paths.base, as: link)
            run.setAside.append(link)
            try FileSystem.rename(link, to: paths.previousBase)
            run.setAside.removeAll { $0 == link }
            run.onFailure("the previous merge base") { () throws(SeedDBError) in try FileSystem.remove(paths.previousBase) }
        }
    }

    /// `record`: records the new version (and the previous generation, the check passed,
    /// the seed's identity, the location and the generation file). After a swap it runs
    /// under the writer's lock and is undone by restoring the settings' bytes.
    func record(_ plan: DeployPlan, _ run: DeployRun) throws(SeedDBError) {
        if plan.strategy == .live, let staged = run.staged {
            // The backup copied the staged content, carried tables included.
            (run.staged!.digest, run.staged!.size) = try FileSystem.digestAndSync(staged.path)
        }
        let staged = run.staged!
        let store = deployer.settings(at: paths)
        let base = target.isRollback ? target.entry.previous?.base : run.pristine?.digest
        let record = DeployRecord(version: target.version, sha256: staged.digest, size: staged.size, deployedAt: Date().ISO8601Format())
        if plan.strategy == .swap {
            run.onFailure("the record") { [backup = target.settingsBackup] () throws(SeedDBError) in
                try store.restore(backup, timeout: deployer.configuration.wait)
            }
        }
        try store.update(timeout: remaining) { table in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            entry.record = record
            entry.base = base
            if plan.keepsPrevious {
                entry.previous = target.entry.record
                entry.previous?.base = target.entry.base
                entry.previous?.signature = target.entry.signature
            }
            entry.signature = target.isRollback ? target.entry.previous?.signature : target.signature
            if let memo = run.memo { entry.checked = memo }
            if let digest = target.sourceDigest { entry.source = digest }
            entry.location = target.location
            if let generation = run.generation { entry.generation = generation }
            table[paths.name.rawValue] = entry
        }
        try installBase(run)
        if let merge = run.merge { writeConflicts(merge.conflicts) }
    }

    /// Puts the merge base that goes with the recorded copy in place, once it is recorded:
    /// the pristine new seed, or after a rollback the previous generation's base. Without
    /// merging, an old base would only mislead the next merge, so it goes.
    private func installBase(_ run: DeployRun) throws(SeedDBError) {
        if let pristine = run.pristine {
            try FileSystem.rename(pristine.path, to: paths.base)
            run.setAside.removeAll { $0 == pristine.path }
        } else if target.isRollback, try FileSystem.fileType(at: paths.previousBase) == .regular {
            try FileSystem.rename(paths.previousBase, to: paths.base)
        } else if !target.merge.mergesAnything {
            for stale in [paths.base, paths.previousBase] where try FileSystem.fileType(at: stale) != nil {
                run.setAside.append(stale)
            }
        }
    }

    /// `clean-up`: removes what the run set aside, the staged copy's leftovers and the
    /// generation files a killed run left. Failures are logged, never thrown: the next
    /// locked run removes whatever is left.
    func cleanUp(_ run: DeployRun) {
        if let staged = run.staged, run.generation == nil { run.setAside.append(staged.path) }
        let current = (try? WorkingCopy.inspect(paths)) ?? target.workingCopy
        for path in run.setAside + current.strayGenerationFiles() {
            do {
                try FileSystem.remove(path)
            } catch {
                deployer.logger.warning("could not remove \(path): \(error.message)")
            }
        }
    }

    private var remaining: Duration { max(deadline - ContinuousClock().now, .zero) }
}
