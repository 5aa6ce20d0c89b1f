import SeedDBCore

/// What `purge` removed (or, in a dry run, would remove) for one working copy.
public struct PurgeReport: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// The files removed, in the order removed.
    public var removed: [String]
}

/// What ``Deployer/purge(_:dryRun:onlyAdopted:)`` did to the working copies it was given.
public struct PurgeOutcome: Sendable {
    /// What was removed (in a dry run, what would be) for each working copy, in the order
    /// given: none when one was refused, those purged before a failure only the purge
    /// itself met.
    public var reports: [PurgeReport]
    /// The working copy that failed and why; `nil` when every one was purged.
    public var failure: (name: SeedName, error: SeedDBError)?
}

extension Deployer {
    /// Purges several working copies (a manifest's seeds, or several names) as
    /// ``purge(app:name:location:dryRun:onlyAdopted:)`` purges one, refusing them all or
    /// none: every one's refusals (a directory at its working-copy path or at its
    /// `<name>.conflicts.json`, a name recorded for the other location, the root safety
    /// rule, the settings not writable) are checked first, by its dry run, which checks
    /// what the purge does. Nothing is removed unless none is refused. Then each is purged
    /// in order; what only the purge itself meets (a database in use, another run holding
    /// that working copy's lock past the wait, an I/O error) stops
    /// it there, after the working copies before it.
    ///
    /// - Parameters:
    ///   - targets: The working copies: each one's app, file name and location.
    ///   - dryRun: Report what would be removed (after the same checks), and remove nothing.
    ///   - onlyAdopted: Remove only the adopted copies of each.
    public func purge(_ targets: [(app: AppIdentifier, name: SeedName, location: SeedLocation)], dryRun: Bool = false, onlyAdopted: Bool = false) -> PurgeOutcome {
        var checked: [PurgeReport] = []
        for target in targets {
            do {
                checked.append(try purge(app: target.app, name: target.name, location: target.location, dryRun: true, onlyAdopted: onlyAdopted))
            } catch {
                return PurgeOutcome(reports: [], failure: (target.name, error))
            }
        }
        if dryRun { return PurgeOutcome(reports: checked, failure: nil) }
        var reports: [PurgeReport] = []
        for target in targets {
            do {
                reports.append(try purge(app: target.app, name: target.name, location: target.location, onlyAdopted: onlyAdopted))
            } catch {
                return PurgeOutcome(reports: reports, failure: (target.name, error))
            }
        }
        return PurgeOutcome(reports: reports, failure: nil)
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
        let paths = SeedPaths(app: app, name: name, location: location, directories: directories)
        var deployer = self
        if deployer.configuration.files.owner == nil {
            deployer.configuration.files.owner = effects.files.nonRootOwner(of: paths.directory) ?? effects.files.nonRootOwner(of: paths.settingsDirectory)
        }
        if onlyAdopted { return try deployer.purgeAdoptedCopies(paths, dryRun: dryRun) }
        return try deployer.purge(paths, dryRun: dryRun)
    }

    /// Removes the adopted copies of the working copy at `paths` and their sidecars,
    /// under the deploy lock; nothing else.
    private func purgeAdoptedCopies(_ paths: SeedPaths, dryRun: Bool) throws(SeedDBError) -> PurgeReport {
        let files = try filesToRemove(paths).filter { path in
            paths.adoptedCopyStamp(of: SeedPaths.databaseName(of: FileSystem.fileName(of: path))) != nil
        }
        guard !files.isEmpty else { return PurgeReport(name: paths.name, removed: files) }
        try FileSystem.requireSafeParentForRoot(of: paths.directory)
        try effects.files.requireSafeForRoot(paths.directory, owner: configuration.files.owner)
        if dryRun { return PurgeReport(name: paths.name, removed: files) }
        return try withDeployLock(paths) { (_, _) throws(SeedDBError) in
            for path in files { try effects.files.remove(path) }
            return PurgeReport(name: paths.name, removed: files)
        }
    }

    private func purge(_ paths: SeedPaths, dryRun: Bool) throws(SeedDBError) -> PurgeReport {
        let fs = effects.files
        let store = records(at: paths)
        let snapshot = try store.snapshot()
        let entry = try snapshot.entry(of: paths.name)
        if let recorded = entry?.location, recorded.rawValue != locationName(of: paths) {
            throw SeedDBError(.conflictingSeed, "working copy \(NameRules.quoted(paths.name.rawValue)) is recorded in the \(recorded.rawValue) location; purge it there")
        }
        let files = try filesToRemove(paths)
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
        if !files.isEmpty {
            // (As the lock the purge takes checks them.)
            try FileSystem.requireSafeParentForRoot(of: paths.directory)
            try fs.requireSafeForRoot(paths.directory, owner: configuration.files.owner)
        }
        if changesSettings {
            try fs.requireWritableDirectory(paths.settingsDirectory, owner: configuration.files.owner)
        }
        if dryRun {
            let leaving = files + settingsFiles
            let emptied = directories.filter { directory in
                ((try? fs.entries(of: directory)) ?? []).allSatisfy { entry in
                    let path = directory + "/" + entry.name
                    return leaving.contains { $0.hasSameBytes(as: path) }
                }
            }
            return PurgeReport(name: paths.name, removed: files + settingsFiles + emptied)
        }

        var removed: [String] = []
        func remove(_ path: String) throws(SeedDBError) {
            guard try fs.fileType(at: path) != nil else { return }
            try fs.remove(path)
            removed.append(path)
        }
        if !files.isEmpty {
            try withDeployLock(paths) { (lock, deadline) throws(SeedDBError) in
                try lock.waitUntilNoHandle(until: deadline) {
                    SeedDBError(.inUse, "cannot purge \(paths.workingCopy): database in use by another process")
                }
                func removeAll() throws(SeedDBError) {
                    for path in try filesToRemove(paths) where path != paths.lockFile { try remove(path) }
                    try remove(paths.lockFile)
                }
                // Under the writer's lock on the database the working copy opens, as a swap
                // takes it: an app's transaction under way ends first (a WAL database's
                // connections close), or the wait runs out (75) with nothing removed. None for
                // a read-only seed's link (the link goes, the package's file stays) or a link
                // SeedDB did not make.
                guard let content = try WorkingCopy.inspect(paths, files: fs).contentFile else { return try removeAll() }
                try effects.database.underSwapLock(content, waiting: "purge \(paths.workingCopy)", patience: nil, until: deadline, logger: logger) { (_) throws(SeedDBError) in
                    try removeAll()
                }
            }
        }
        if changesSettings {
            try store.update(timeout: configuration.wait) { $0[paths.name.rawValue] = nil }
        }
        removed += try store.removeIfEmpty()
        for directory in directories where try fs.removeIfEmpty(directory) {
            removed.append(directory)
        }
        return PurgeReport(name: paths.name, removed: removed)
    }

    /// Every file SeedDB keeps for the working copy at `paths` that exists: the working
    /// copy, its generation files and sidecars, the previous generation, the adopted
    /// copies, the conflicts file, temporary files (a killed write of the conflicts file's
    /// among them) and the lock file last. Names are matched by their bytes, so
    /// a working copy whose name only looks the same (`e` + U+0301 for `é`) keeps its files.
    private func filesToRemove(_ paths: SeedPaths) throws(SeedDBError) -> [String] {
        let name = paths.name.rawValue
        let owned = try effects.files.entries(of: paths.directory).filter(\.nameIsExact).map(\.name).filter { entry in
            paths.namesOwnDatabase(SeedPaths.databaseName(of: entry)) || entry.hasSameBytes(as: paths.conflictsFileName)
                || [name, paths.conflictsFileName].contains { entry.hasBytePrefix(FileSystem.temporaryPrefix($0)) && entry.hasByteSuffix(".tmp") }
        }.sorted()
        let lock = try effects.files.fileType(at: paths.lockFile) != nil ? [paths.lockFile] : []
        return owned.map(paths.inDirectory) + lock
    }

    private func locationName(of paths: SeedPaths) -> String {
        paths.directory.hasPrefix(directories.cacheHome + "/") ? SeedLocation.cache.rawValue : SeedLocation.data.rawValue
    }
}
