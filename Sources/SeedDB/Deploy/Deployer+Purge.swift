import SeedDBCore

/// What `purge` removed for one working copy.
public struct PurgeReport: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// The files removed, in the order removed.
    public var removed: [String]
}

extension Deployer {
    /// Removes everything SeedDB keeps for one working copy: the working copy, its SQLite
    /// sidecars, the previous generation, the lock file and its settings entry. The
    /// settings file goes too once it holds nothing else, and the app's directories once
    /// they are empty. For a package's `postrm purge`.
    ///
    /// The seed itself is not needed (a purged package's files are already gone): the
    /// app, the working-copy name and the location say where everything is.
    ///
    /// - Throws: ``SeedDBError`` `inUse` (75) while a ``SeedDatabase`` has it open.
    public func purge(app: AppIdentifier, name: SeedName, location: SeedLocation) throws(SeedDBError) -> PurgeReport {
        let seed = try Seed(app: app, source: "/" + name.rawValue, version: SeedVersion("purge"), location: location, name: name)
        let paths = paths(for: seed)
        var removed: [String] = []
        func remove(_ path: String) throws(SeedDBError) {
            guard try FileSystem.fileType(at: path) != nil else { return }
            try FileSystem.remove(path)
            removed.append(path)
        }
        if try FileSystem.fileType(at: paths.directory) == .directory {
            let lock = try FileLock.acquire(paths.lockFile, kind: .exclusive, timeout: configuration.wait)
            defer { lock.close() }
            try lock.waitUntilFree(.readers, until: deadline()) {
                SeedDBError(.inUse, "cannot purge \(paths.workingCopy): database in use by another process")
            }
            try FileSystem.removeStaleTemporaryFiles(in: paths.directory, stem: name.rawValue)
            for path in [paths.workingCopy] + paths.sqliteSidecars + [paths.previousGeneration, paths.lockFile] {
                try remove(path)
            }
        }
        let store = settings(for: seed)
        let before = try store.snapshot()
        if before.entries[name.rawValue] != nil || before.problem != nil {
            try store.update(timeout: configuration.wait) { $0[name.rawValue] = nil }
        }
        let snapshot = try store.snapshot()
        if snapshot.entries.isEmpty, snapshot.problem == nil, snapshot.appValues.isEmpty {
            try remove(paths.settingsFile)
            try remove(paths.settingsFile + ".lock")
        }
        for directory in [paths.directory, paths.settingsDirectory] {
            if FileSystem.removeIfEmpty(directory) { removed.append(directory) }
        }
        return PurgeReport(name: name, removed: removed)
    }
}
