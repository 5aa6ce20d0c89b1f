import Logging
import SeedDBCore

/// Everything a deploy does to the world, behind four small interfaces (the file
/// system, the databases, the settings store and the deploy lock) and the time it reads.
/// ``Deployer`` reaches the disk and the clock only through these, so the same planner
/// and executor run against the real machine (``local``) and, deterministically, against
/// the simulator's in-memory model.
struct DeployEffects: Sendable {
    /// The file-system operations.
    var files: any DeployFileSystem
    /// The database operations.
    var database: any DeployDatabase
    /// The deploy locks.
    var locks: any DeployLocks
    /// The settings store of the working copy at the given paths.
    var records: @Sendable (SeedPaths, Logger, FilePolicy) -> any DeployRecordStore
    /// The time now, in whole seconds since the Unix epoch: an adopted copy's stamp and
    /// a record's `deployedAt` are read from it.
    var clock: @Sendable () -> Int64

    /// Creates a set of effects.
    init(
        files: any DeployFileSystem, database: any DeployDatabase, locks: any DeployLocks,
        records: @escaping @Sendable (SeedPaths, Logger, FilePolicy) -> any DeployRecordStore, clock: @escaping @Sendable () -> Int64
    ) {
        self.files = files
        self.database = database
        self.locks = locks
        self.records = records
        self.clock = clock
    }

    /// The real machine.
    static let local = DeployEffects(
        files: LocalFileSystem(), database: LocalDatabase(), locks: LocalLocks(),
        records: { paths, logger, policy in SettingsStore(path: paths.settingsFile, logger: logger, policy: policy) },
        clock: Syscalls.secondsSinceEpoch)
}
