import Logging
import SeedDBCore

/// Everything a deploy does to the world, behind four small interfaces: the file
/// system, the databases, the settings store and the deploy lock. ``Deployer`` reaches
/// the disk only through these, so the same planner and executor run against the real
/// machine (``local``) and against the simulator's in-memory model.
struct DeployEffects: Sendable {
    /// The file-system operations.
    var files: any DeployFileSystem
    /// The database operations.
    var database: any DeployDatabase
    /// The deploy locks.
    var locks: any DeployLocks
    /// The settings store of the working copy at the given paths.
    var records: @Sendable (SeedPaths, Logger, FilePolicy) -> any DeployRecordStore

    /// Creates a set of effects.
    init(files: any DeployFileSystem, database: any DeployDatabase, locks: any DeployLocks, records: @escaping @Sendable (SeedPaths, Logger, FilePolicy) -> any DeployRecordStore) {
        self.files = files
        self.database = database
        self.locks = locks
        self.records = records
    }

    /// The real machine.
    static let local = DeployEffects(
        files: LocalFileSystem(), database: LocalDatabase(), locks: LocalLocks(),
        records: { paths, logger, policy in SettingsStore(path: paths.settingsFile, logger: logger, policy: policy) })
}
