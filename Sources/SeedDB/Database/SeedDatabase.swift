import GRDB
import SeedDBCore

/// The app-side handle: a deployed working copy, open with GRDB.
///
/// ```swift
/// let database = try SeedDatabase.open(seed, deployer: deployer)
/// let level = try database.writer.read { db in try Level.fetchOne(db, key: 3) }
/// ```
///
/// While the handle is open it holds a shared lock on the lock file beside the working
/// copy, so another process's deploy knows the database is in use even when every
/// connection is idle (in rollback-journal mode an idle connection holds no SQLite lock):
/// a `swap` is then refused and `live` (the `auto` choice) replaces the content through
/// SQLite, which the handle's connections see at their next transaction.
///
/// A read-only seed (``Seed/readOnly``), or a working copy that is SeedDB's link to one,
/// is opened read-only (GRDB's `Configuration.readonly`), and the migrator is not run: the
/// seed file is the package's. A write through the handle fails with SQLite's
/// `SQLITE_READONLY`.
public final class SeedDatabase: @unchecked Sendable {
    /// The kind of GRDB connection to open.
    public enum Kind: Sendable {
        /// A `DatabaseQueue`: one connection, every access serialised.
        case queue
        /// A `DatabasePool`: concurrent reads and one writer, in WAL mode.
        case pool
    }

    /// What ``open(_:deployer:kind:configuration:migrator:whenBusy:)`` does when the
    /// working copy is busy past the deployer's wait (another instance holds a write
    /// transaction, or keeps a swap out).
    public enum WhenBusy: Sendable {
        /// Throw the deploy's `inUse` error: the app does not start.
        case fail
        /// Open the working copy as it is, when there is one, and say the deploy is
        /// pending (``pendingDeploy``): the app starts, and deploys at its next start.
        case openCurrentCopy
    }

    /// The open database.
    public let writer: any DatabaseWriter
    /// What the deploy at open did (``DeployAction/unchanged`` at the recorded version
    /// when it is pending).
    public let deployment: DeployReport
    /// Why the deploy did not run, when the copy was busy and the caller asked to open
    /// it as it is (``WhenBusy/openCurrentCopy``); `nil` when the deploy ran.
    public let pendingDeploy: SeedDBError?
    private let usage: FileLock

    private init(writer: any DatabaseWriter, deployment: DeployReport, pendingDeploy: SeedDBError?, usage: FileLock) {
        self.writer = writer
        self.deployment = deployment
        self.pendingDeploy = pendingDeploy
        self.usage = usage
    }

    /// Deploys `seed` if needed, then opens its working copy.
    ///
    /// - Parameters:
    ///   - seed: The seed whose working copy to open.
    ///   - deployer: The deployer that deploys it (its directories and configuration).
    ///   - kind: A serial queue (default) or a pool.
    ///   - configuration: GRDB's configuration for the connection (functions to register
    ///     in `prepareDatabase`, read-only, …). Unless it sets a busy mode, the
    ///     connections wait up to the deployer's ``DeployConfiguration/wait`` for a lock,
    ///     so reads wait through a live replace instead of failing with `SQLITE_BUSY`.
    ///   - migrator: The app's migrations (`CREATE … IF NOT EXISTS` in GRDB's form), not
    ///     run for a read-only seed: run on
    ///     each staged new seed before the user's tables are carried or merged into it, and
    ///     on the working copy once it is open, so the app's own columns and tables exist on
    ///     both sides of a merge.
    ///   - whenBusy: What to do when the working copy is busy past the wait (default
    ///     ``WhenBusy/fail``).
    /// - Throws: ``SeedDBError`` from the deploy, or when the database cannot be opened or
    ///   migrated.
    public static func open(
        _ seed: Seed, deployer: Deployer, kind: Kind = .queue, configuration: Configuration = Configuration(),
        migrator: DatabaseMigrator? = nil, whenBusy: WhenBusy = .fail
    ) throws(SeedDBError) -> SeedDatabase {
        var deployer = deployer
        if let migrator { deployer.configuration.migrator = migrator }
        let paths = deployer.paths(for: seed)
        let deployment: DeployReport
        var pending: SeedDBError?
        do {
            deployment = try deployer.deploy(seed)
        } catch let error where error.code == .inUse && whenBusy == .openCurrentCopy {
            // The deploy changed nothing; the copy there is opened as it is.
            let status = try deployer.status(seed)
            guard status.exists, let recorded = status.recordedVersion else { throw error }
            var found = DeployReport(name: seed.name, action: .unchanged, from: recorded, to: recorded, workingCopy: paths.workingCopy)
            found.seedLink = status.seedLink
            deployment = found
            pending = error
        }
        // Wait out a deploy in progress (it holds the writer byte), then announce this
        // reader before opening, so no swap can start between the two.
        let usage = try FileLock.acquire(paths.lockFile, kind: .shared, timeout: deployer.configuration.wait)
        defer { usage.unlock(.writer) }
        do {
            try usage.lock(.readers, .shared, timeout: deployer.configuration.wait)
        } catch {
            usage.close()
            throw error
        }
        var configuration = configuration
        // The deploy saw what is at the path: a read-only seed's link opens read-only.
        let readOnly = seed.readOnly || deployment.seedLink != nil
        if readOnly { configuration.readonly = true }
        if case .immediateError = configuration.busyMode {
            configuration.busyMode = .timeout(deployer.configuration.wait.seconds)
        }
        do {
            let writer: any DatabaseWriter = switch kind {
            case .queue: try DatabaseQueue(path: paths.workingCopy, configuration: configuration)
            case .pool: try DatabasePool(path: paths.workingCopy, configuration: configuration)
            }
            if !readOnly { try migrator?.migrate(writer) }
            return SeedDatabase(writer: writer, deployment: deployment, pendingDeploy: pending, usage: usage)
        } catch let error as DatabaseError {
            usage.close()
            throw SQLiteFile.error(error, "cannot open working copy", paths.workingCopy)
        } catch {
            usage.close()
            throw SeedDBError.io(error, "cannot open working copy", paths.workingCopy)
        }
    }

    /// Closes the connections and releases the in-use lock (always, even when closing
    /// fails).
    /// - Throws: ``SeedDBError`` when GRDB cannot close the connections.
    public func close() throws(SeedDBError) {
        defer { usage.close() }
        try SQLiteFile.mapping("cannot close", writer.path) { try writer.close() }
    }

    deinit { usage.close() }
}
