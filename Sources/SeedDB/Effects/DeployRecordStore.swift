import SeedDBCore

/// Where a deploy reads and writes its record: the settings store of one app.
///
/// ``SettingsStore`` is the real one (a JSON file replaced atomically under a lock file);
/// the simulator's keeps the same bytes in memory and parses them with the same
/// ``SettingsSnapshot``, so a damaged file is damaged the same way.
protocol DeployRecordStore: Sendable {
    /// What the store holds, every entry checked.
    func snapshot() throws(SeedDBError) -> SettingsSnapshot
    /// What the store holds, only `name`'s entry decoded (the startup check).
    func snapshot(only name: SeedName) throws(SeedDBError) -> SettingsSnapshot
    /// Changes SeedDB's entries and saves the result atomically; nothing, and
    /// `conflictingSeed`, when `change` wrote a name that only looks like a recorded one.
    func update(timeout: Duration, _ change: (inout SettingsTable) throws -> Void) throws(SeedDBError)
    /// The store as it is now, byte for byte, so a failed run can put it back.
    func backup() throws(SeedDBError) -> SettingsStore.Backup
    /// Puts the store back as `backup` found it.
    func restore(_ backup: SettingsStore.Backup, timeout: Duration) throws(SeedDBError)
    /// Removes the store's file (and its lock file) when it holds nothing, neither an
    /// entry of SeedDB's nor an app's value, and is not damaged; the paths removed.
    func removeIfEmpty() throws(SeedDBError) -> [String]
    /// Removes the temporary files a killed write left beside the store's file, under
    /// its write lock (taken only when there are some); the paths removed.
    func removeStaleTemporaryFiles(timeout: Duration) throws(SeedDBError) -> [String]
}

extension SettingsStore: DeployRecordStore {
    func removeIfEmpty() throws(SeedDBError) -> [String] {
        let snapshot = try snapshot()
        guard snapshot.entries.isEmpty, snapshot.problem == nil, snapshot.appValues.isEmpty else { return [] }
        var removed: [String] = []
        for file in [path, lockPath] where try FileSystem.fileType(at: file) != nil {
            try FileSystem.remove(file)
            removed.append(file)
        }
        return removed
    }
}
