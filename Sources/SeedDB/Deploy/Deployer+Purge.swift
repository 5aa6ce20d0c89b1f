import SeedDBCore

/// A working copy to purge, named by where SeedDB keeps it: a purge needs no seed (a
/// purged package's files are already gone).
public struct PurgeTarget: Sendable, Hashable {
    /// The app whose directories hold the working copy.
    public var app: AppIdentifier
    /// The working copy's file name.
    public var name: SeedName
    /// Where it lives (data or cache).
    public var location: SeedLocation

    /// The working copy `name` of `app`, in `location`.
    public init(app: AppIdentifier, name: SeedName, location: SeedLocation) {
        self.app = app
        self.name = name
        self.location = location
    }
}

/// What `purge` removed (or, in a dry run, would remove) for one working copy.
public struct PurgeReport: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// The files removed, in the order removed.
    public var removed: [String]
}

/// The working copy a purge failed on, and why.
public struct PurgeFailure: Sendable {
    /// The working copy's file name.
    public var name: SeedName
    /// Why it failed: a refusal, a database in use or a lock held past the wait (75), an
    /// I/O error.
    public var error: SeedDBError
}

/// What ``Deployer/purge(_:dryRun:onlyAdopted:)`` did to the working copies it was given.
public struct PurgeOutcome: Sendable {
    /// What was removed (in a dry run, what would be) for each working copy, in the order
    /// given: none when one was refused, was in use or had its lock held past the wait;
    /// after an I/O error while removing, those whose files were all removed before it.
    public var reports: [PurgeReport]
    /// The working copy that failed and why; `nil` when every one was purged.
    public var failure: PurgeFailure?
}

extension Deployer {
    /// Purges several working copies (a manifest's seeds, or several names) as
    /// ``purge(app:name:location:dryRun:onlyAdopted:)`` purges one, all or none, as a
    /// release deploys its seeds: every one's refusals (a directory at its working-copy
    /// path or at its `<name>.conflicts.json`, a name recorded for the other location, the
    /// settings not writable) are checked first, as its dry run checks them. Then every
    /// one's deploy lock is taken, one inside the other in the order given, and under each
    /// the writer's lock a swap takes on its database (the root safety rule checked as the
    /// lock takes it); only with every lock held are the records removed (one update of
    /// each settings file), then the files, each working copy's in turn, the lock files
    /// last. A refusal, a database in use or another run holding a lock past the wait (75)
    /// removes nothing of any (a working copy in WAL mode whose writer's lock was taken
    /// before it is left in rollback-journal mode: the lock leaves WAL). The settings file
    /// and the directories left empty go once every lock is released. A working copy
    /// given more than once (by its path's bytes) is purged once.
    ///
    /// - Parameters:
    ///   - targets: The working copies, in the order their locks are taken.
    ///   - dryRun: Report what would be removed (after the same checks, the root safety
    ///     rule included), take no lock and remove nothing.
    ///   - onlyAdopted: Remove only the adopted copies of each.
    /// - Returns: The reports, and the failure (only an I/O error while removing leaves
    ///   reports beside it: the working copies whose files were removed before it).
    public func purge(_ targets: [PurgeTarget], dryRun: Bool = false, onlyAdopted: Bool = false) -> PurgeOutcome {
        var purges: [CheckedPurge] = []
        for target in targets {
            let paths = SeedPaths(app: target.app, name: target.name, location: target.location, directories: directories)
            // (`é` and `e` + U+0301 are two working copies.)
            guard !purges.contains(where: { $0.paths.workingCopy.hasSameBytes(as: paths.workingCopy) }) else { continue }
            do {
                purges.append(try checkedPurge(paths, dryRun: dryRun, onlyAdopted: onlyAdopted))
            } catch {
                return PurgeOutcome(reports: [], failure: PurgeFailure(name: target.name, error: error))
            }
        }
        if dryRun { return PurgeOutcome(reports: purges.map(\.dryRunReport), failure: nil) }

        let run = PurgeRun()
        var failure: PurgeFailure?
        do {
            try withPurgeLocks(purges[...], run) { () throws(SeedDBError) in
                // Under every lock, so no run of one of them records a deploy the purge then
                // forgets: the records first, each settings file's in one update (a failure
                // there removes nothing; once a record is gone, what is left of its files
                // is what a purge run again removes), then the files, the locks' last.
                try forgetRecords(purges, run)
                for (index, purge) in purges.enumerated() {
                    run.failing = index
                    run.removedFiles.append(try purge.removeFiles())
                }
                for (index, purge) in purges.enumerated() {
                    run.failing = index
                    run.removedFiles[index] += try purge.removeLockFile()
                }
            }
        } catch {
            failure = PurgeFailure(name: purges[run.failing].paths.name, error: error)
        }
        var reports: [PurgeReport] = []
        for (index, removed) in run.removedFiles.enumerated() {
            // A directory the working copies after this one share is theirs to remove.
            let later = purges[(index + 1)..<run.removedFiles.count].flatMap(\.directories)
            do {
                reports.append(try purges[index].finish(removed: removed, leaving: later))
            } catch {
                return PurgeOutcome(reports: reports, failure: PurgeFailure(name: purges[index].paths.name, error: error))
            }
        }
        return PurgeOutcome(reports: reports, failure: failure)
    }

    /// Removes everything SeedDB keeps for one working copy: the working copy (its link
    /// and generation files), their SQLite sidecars, the previous generation, the merge
    /// bases, the conflicts file, the lock file and its settings entry. The settings file goes too once it holds nothing else,
    /// and the app's directories once they are empty. For a package's `postrm purge`.
    ///
    /// All or nothing: everything it needs (the settings writable, the root safety rule,
    /// the database not in use) is checked before anything is removed. As root, the owner
    /// of an install made with `--owner` is found on the directories SeedDB made, so a
    /// purge needs no `--owner`.
    ///
    /// The seed itself is not needed (a purged package's files are already gone): the
    /// app, the working-copy name and the location say where everything is.
    ///
    /// - Parameters:
    ///   - app: The app whose directories hold the working copy.
    ///   - name: The working copy's file name.
    ///   - location: Where it lives (data or cache).
    ///   - dryRun: Report what would be removed, and remove nothing; everything the purge
    ///     needs is checked as it checks it.
    ///   - onlyAdopted: Remove only the adopted copies (`<name>.adopted-<stamp>`, the
    ///     databases SeedDB found with no record and kept), nothing else.
    /// - Throws: ``SeedDBError`` `inUse` (75) while a ``SeedDatabase`` has it open, or
    ///   another process holds a transaction on it (in WAL mode, a connection) until the
    ///   deployer's `wait` runs out: purge takes the writer's lock a swap takes,
    ///   `conflictingSeed` when the name is recorded for the other location,
    ///   `cannotCreate` (73) for a directory at the working-copy path or at the conflicts
    ///   file's (`<name>.conflicts.json`): not SeedDB's, it is never removed.
    public func purge(app: AppIdentifier, name: SeedName, location: SeedLocation, dryRun: Bool = false, onlyAdopted: Bool = false) throws(SeedDBError) -> PurgeReport {
        let outcome = purge([PurgeTarget(app: app, name: name, location: location)], dryRun: dryRun, onlyAdopted: onlyAdopted)
        if let failure = outcome.failure { throw failure.error }
        return outcome.reports[0]
    }

    /// How far a purge of several working copies got.
    private final class PurgeRun {
        /// The working copy (its place among those checked) whose lock is being taken or
        /// whose files are being removed.
        var failing = 0
        /// The files removed of each working copy, in order, for those whose removal ended.
        var removedFiles: [[String]] = []
    }

    /// One working copy's purge, checked: the files it removes under its locks (listed
    /// again there), then its settings entry and the directories it may leave empty.
    private struct CheckedPurge {
        /// The deployer that purges it: as root, with the owner found on its directories.
        var deployer: Deployer
        /// Where its files and settings are.
        var paths: SeedPaths
        /// Whether only its adopted copies go.
        var onlyAdopted: Bool
        /// The files to remove, as found when it was checked.
        var files: [String]
        /// Whether its settings change: its entry goes, or a damaged settings file is rewritten.
        var changesSettings: Bool
        /// The settings file and its lock, when they hold nothing of another working copy
        /// or of the app's.
        var settingsFiles: [String]
        /// The directories it removes if they are left empty.
        var directories: [String]

        /// What a dry run reports: the files, the settings files and the directories
        /// these would leave empty.
        var dryRunReport: PurgeReport {
            let leaving = files + settingsFiles
            let emptied = directories.filter { directory in
                ((try? deployer.effects.files.entries(of: directory)) ?? []).allSatisfy { entry in
                    let path = directory + "/" + entry.name
                    return leaving.contains { $0.hasSameBytes(as: path) }
                }
            }
            return PurgeReport(name: paths.name, removed: files + settingsFiles + emptied)
        }

        /// Removes its files, listed again, but its lock file, under its locks
        /// (``Deployer/withPurgeLocks(_:_:_:)``); none when it had none to remove (no lock
        /// was taken for it). The files removed.
        func removeFiles() throws(SeedDBError) -> [String] {
            guard !files.isEmpty else { return [] }
            let fs = deployer.effects.files
            var removed: [String] = []
            for path in try deployer.filesToRemove(paths, onlyAdopted: onlyAdopted) where path != paths.lockFile {
                guard try fs.fileType(at: path) != nil else { continue }
                try fs.remove(path)
                removed.append(path)
            }
            return removed
        }

        /// Removes its lock file, the last of its files, while its lock is still held: a
        /// run that waited for it then locks a new one, and finds nothing recorded and
        /// nothing left (none for only its adopted copies, nor when it had no files).
        func removeLockFile() throws(SeedDBError) -> [String] {
            let fs = deployer.effects.files
            guard !files.isEmpty, !onlyAdopted, try fs.fileType(at: paths.lockFile) != nil else { return [] }
            try fs.remove(paths.lockFile)
            return [paths.lockFile]
        }

        /// After every lock was released: the settings file once it holds nothing else,
        /// and its directories once empty, but those in `kept` (the working copies after
        /// it remove them).
        /// - Returns: Its report: `removed` and what went here.
        func finish(removed: [String], leaving kept: [String]) throws(SeedDBError) -> PurgeReport {
            guard !onlyAdopted else { return PurgeReport(name: paths.name, removed: removed) }
            var removed = removed
            removed += try deployer.records(at: paths).removeIfEmpty()
            for directory in directories where !kept.contains(where: { $0.hasSameBytes(as: directory) }) {
                if try deployer.effects.files.removeIfEmpty(directory) { removed.append(directory) }
            }
            return PurgeReport(name: paths.name, removed: removed)
        }
    }

    /// Checks what purging the working copy at `paths` needs (a dry run's checks, the
    /// root safety rule among them only for a dry run: the run's lock checks it), and
    /// what it will remove. As root with no `--owner`, the owner is the one found on the
    /// directories SeedDB made.
    private func checkedPurge(_ paths: SeedPaths, dryRun: Bool, onlyAdopted: Bool) throws(SeedDBError) -> CheckedPurge {
        var deployer = self
        if deployer.configuration.files.owner == nil {
            deployer.configuration.files.owner = effects.files.nonRootOwner(of: paths.directory) ?? effects.files.nonRootOwner(of: paths.settingsDirectory)
        }
        return try deployer.checked(paths, dryRun: dryRun, onlyAdopted: onlyAdopted)
    }

    /// ``checkedPurge(_:dryRun:onlyAdopted:)`` by this deployer, its owner settled.
    private func checked(_ paths: SeedPaths, dryRun: Bool, onlyAdopted: Bool) throws(SeedDBError) -> CheckedPurge {
        let fs = effects.files
        if onlyAdopted {
            let files = try filesToRemove(paths, onlyAdopted: true)
            if dryRun, !files.isEmpty { try requireSafeAsTheLockChecks(paths) }
            return CheckedPurge(deployer: self, paths: paths, onlyAdopted: true, files: files, changesSettings: false, settingsFiles: [], directories: [])
        }
        let snapshot = try records(at: paths).snapshot()
        let entry = try snapshot.entry(of: paths.name)
        if let recorded = entry?.location, recorded.rawValue != locationName(of: paths) {
            throw SeedDBError(.conflictingSeed, "working copy \(NameRules.quoted(paths.name.rawValue)) is recorded in the \(recorded.rawValue) location; purge it there")
        }
        let files = try filesToRemove(paths, onlyAdopted: false)
        let changesSettings = entry != nil || snapshot.problem != nil
        let removesSettings = snapshot.appValues.isEmpty && snapshot.entries.keys.allSatisfy { $0 == paths.name.rawValue }
        let settingsFiles = removesSettings ? [paths.settingsFile, paths.settingsFile + ".lock"].filter { (try? fs.fileType(at: $0)) != nil } : []
        // (One directory in system mode: `/var/lib/<app>` holds both.)
        let directories = (paths.settingsDirectory == paths.directory ? [paths.directory] : [paths.directory, paths.settingsDirectory])
            .filter { (try? fs.fileType(at: $0)) == .directory }

        // Everything the purge needs, checked before anything is removed.
        if try fs.fileType(at: paths.workingCopy) == .directory {
            throw WorkingCopy.blocked(paths.workingCopy, what: "a directory", operation: "purge")
        }
        // A directory at the conflicts file's name is not SeedDB's: a merge refuses to
        // replace it (``DeployRefusal/conflictsFileIsADirectory``), and what it holds is the user's.
        if try fs.fileType(at: paths.conflictsFile) == .directory {
            throw SeedDBError(.cannotCreate, "cannot purge \(paths.workingCopy): \(paths.conflictsFile) is a directory, not SeedDB's conflicts file, and SeedDB never removes it; nothing was changed; move it away and run again")
        }
        if changesSettings {
            try fs.requireWritableDirectory(paths.settingsDirectory, owner: configuration.files.owner)
        }
        if dryRun, !files.isEmpty { try requireSafeAsTheLockChecks(paths) }
        return CheckedPurge(deployer: self, paths: paths, onlyAdopted: false, files: files, changesSettings: changesSettings, settingsFiles: settingsFiles, directories: directories)
    }

    /// Removes the settings entries of `purges` (and rewrites a damaged settings file), in
    /// one update of each settings file, in the order of the first working copy it holds.
    private func forgetRecords(_ purges: [CheckedPurge], _ run: PurgeRun) throws(SeedDBError) {
        var settingsFiles: [(file: String, indices: [Int])] = []
        for (index, purge) in purges.enumerated() where purge.changesSettings && !purge.onlyAdopted {
            if let group = settingsFiles.firstIndex(where: { $0.file.hasSameBytes(as: purge.paths.settingsFile) }) {
                settingsFiles[group].indices.append(index)
            } else {
                settingsFiles.append((purge.paths.settingsFile, [index]))
            }
        }
        for (_, indices) in settingsFiles {
            run.failing = indices[0]
            let first = purges[indices[0]]
            try first.deployer.records(at: first.paths).update(timeout: configuration.wait) { table in
                for index in indices { table[purges[index].paths.name.rawValue] = nil }
            }
        }
    }

    /// The root safety rule the deploy lock checks as it is taken (the directory that
    /// holds the app's, then the app's): for a dry run, which takes no lock, to refuse
    /// what the run would.
    private func requireSafeAsTheLockChecks(_ paths: SeedPaths) throws(SeedDBError) {
        try effects.files.requireSafeParentForRoot(of: paths.directory)
        try effects.files.requireSafeForRoot(paths.directory, owner: configuration.files.owner)
    }

    /// Takes the locks of each of `purges` with files to remove, one inside the other in
    /// the order given (as a release's `prepareEach` takes its seeds'), then runs `body`:
    /// its deploy lock (which checks the root safety rule), then, unless only its adopted
    /// copies go, the wait for this process's handles on its database to close and the
    /// writer's lock a swap takes on the database its working copy opens. `run.failing`
    /// names the one whose lock is being taken.
    private func withPurgeLocks(_ purges: ArraySlice<CheckedPurge>, _ run: PurgeRun, _ body: () throws(SeedDBError) -> Void) throws(SeedDBError) {
        guard let purge = purges.first else { return try body() }
        let rest = purges.dropFirst()
        guard !purge.files.isEmpty else { return try withPurgeLocks(rest, run, body) }
        run.failing = purges.startIndex
        let paths = purge.paths
        try purge.deployer.withDeployLock(paths) { (lock, deadline) throws(SeedDBError) in
            guard !purge.onlyAdopted else { return try withPurgeLocks(rest, run, body) }
            try lock.waitUntilNoHandle(until: deadline) {
                SeedDBError(.inUse, "cannot purge \(paths.workingCopy): database in use by another process")
            }
            // Under the writer's lock on the database the working copy opens, as a swap
            // takes it: an app's transaction under way ends first (a WAL database's
            // connections close), or the wait runs out (75) with nothing removed. None for
            // a read-only seed's link (the link goes, the package's file stays) or a link
            // SeedDB did not make.
            guard let content = try WorkingCopy.inspect(paths, files: effects.files).contentFile else {
                return try withPurgeLocks(rest, run, body)
            }
            try effects.database.underSwapLock(content, waiting: "purge \(paths.workingCopy)", patience: nil, until: deadline, logger: logger) { (_) throws(SeedDBError) in
                try withPurgeLocks(rest, run, body)
            }
        }
    }

    /// Every file SeedDB keeps for the working copy at `paths` that exists: the working
    /// copy, its generation files and sidecars, the previous generation, the adopted
    /// copies, the conflicts file, temporary files (a killed write of the conflicts file's
    /// among them) and the lock file last; with `onlyAdopted`, the adopted copies and
    /// their sidecars alone. Names are matched by their bytes, so a working copy whose
    /// name only looks the same (`e` + U+0301 for `é`) keeps its files.
    private func filesToRemove(_ paths: SeedPaths, onlyAdopted: Bool) throws(SeedDBError) -> [String] {
        let name = paths.name.rawValue
        let owned = try effects.files.entries(of: paths.directory).filter(\.nameIsExact).map(\.name).filter { entry in
            paths.namesOwnDatabase(SeedPaths.databaseName(of: entry)) || entry.hasSameBytes(as: paths.conflictsFileName)
                || [name, paths.conflictsFileName].contains { entry.hasBytePrefix(FileSystem.temporaryPrefix($0)) && entry.hasByteSuffix(".tmp") }
        }.sorted()
        if onlyAdopted {
            return owned.filter { paths.adoptedCopyStamp(of: SeedPaths.databaseName(of: $0)) != nil }.map(paths.inDirectory)
        }
        let lock = try effects.files.fileType(at: paths.lockFile) != nil ? [paths.lockFile] : []
        return owned.map(paths.inDirectory) + lock
    }

    private func locationName(of paths: SeedPaths) -> String {
        paths.directory.hasPrefix(directories.cacheHome + "/") ? SeedLocation.cache.rawValue : SeedLocation.data.rawValue
    }
}
