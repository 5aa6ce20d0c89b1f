import GRDB
import Logging
import SeedDBCore

/// The writer's lock on an old working copy, taken through SQLite so every client
/// respects it: held while everything a replace reads from the old copy is read and
/// until the new content is in place, so no row an app commits is lost.
///
/// Opening the old copy through SQLite, rather than with a raw descriptor, matters: the
/// app may hold connections to it in this very process, and closing any raw descriptor
/// on a database file drops SQLite's POSIX locks for the whole process.
enum WriterLock {
    /// How the body reads the old copy: a `file:` URI to `ATTACH` from another
    /// connection, or `nil` when the old file is not a database (a torn copy) and holds
    /// nothing to carry.
    typealias OldCopy = String?

    /// Thrown (as the underlying error of an `inUse` ``SeedDBError``) when a swap cannot
    /// have the old copy to itself: other connections keep it open in WAL mode.
    struct SwapRefused: Error {}

    /// For a swap: holds an `EXCLUSIVE` lock on the old copy at `path`, in rollback-journal
    /// mode, while `body` runs.
    ///
    /// 1. A WAL database is switched to `DELETE` first: SQLite checkpoints the WAL into the
    ///    file and removes it, which needs every other connection closed (polled). A
    ///    connection of the old file can then never write into a WAL beside a file that is
    ///    no longer the working copy: once the file is renamed away, SQLite refuses its
    ///    writes with `SQLITE_READONLY_DBMOVED`.
    /// 2. `BEGIN EXCLUSIVE` waits for readers to finish their transactions and keeps
    ///    everyone out, so no transaction spans the switch; the body reads the old copy
    ///    straight from the file (`immutable=1`), whose content is the last commit.
    ///
    /// - Parameters:
    ///   - waiting: What a message says the lock was for (`"replace /…/levels.sqlite"`).
    ///   - patience: How long to wait for other connections, when less than until
    ///     `deadline` (`auto` tries without waiting, then goes live).
    /// - Throws: ``SeedDBError`` `inUse` when the wait runs out (with ``SwapRefused`` as
    ///   the underlying error when `patience` ran out first); whatever `body` throws.
    static func forSwap<Result>(_ path: String, waiting: String, patience: Duration? = nil, until deadline: ContinuousClock.Instant, logger: Logger, _ body: (OldCopy) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        let limit = patience.map { min(ContinuousClock().now.advanced(by: $0), deadline) } ?? deadline
        let queue: DatabaseQueue
        do {
            queue = try SQLiteFile.open(path, access: .readWrite, timeout: limit.timeLeft, label: "SeedDB.writer", holdsTransactions: true)
            do {
                try queue.inDatabase { db in try takeExclusiveLock(db, until: limit) }
            } catch {
                try? queue.close()
                throw error
            }
        } catch let error where SQLiteFile.isNotADatabase(error) {
            logger.debug("old working copy \(path) is not a database; replacing it without a lock")
            return try body(nil)
        } catch let error where error is SwapRefused || SQLiteFile.isBusy(error) {
            let message = "cannot \(waiting): database in use by another process"
            if patience != nil { throw SeedDBError(.inUse, message, underlying: SwapRefused()) }
            throw SeedDBError(.inUse, message, underlying: (error as? DatabaseError).map(SQLiteFile.inItsOwnWords))
        } catch {
            throw SQLiteFile.mapped(error, "cannot lock", path)
        }
        defer {
            try? queue.inDatabase { try $0.execute(sql: "ROLLBACK") }
            try? queue.close()
        }
        return try body(SQLiteFile.uri(path, query: "immutable=1"))
    }

    /// Whether a swap could have the old copy at `path` now, seen without changing it and
    /// without waiting: no transaction keeps `BEGIN EXCLUSIVE` out. Asked before staging,
    /// so a database held busy is replaced live without a second copy of the seed. A WAL
    /// database with a `-wal` is not probed (opening it would replay a crashed writer's
    /// frames, and only leaving WAL tells whether connections hold it): the swap tries for
    /// real and, if connections keep it, the run plans again, live.
    static func swapLooksFree(_ path: String) -> Bool {
        if (try? FileSystem.fileType(at: path + "-wal")) ?? nil != nil { return true }
        do {
            let queue = try SQLiteFile.open(path, access: .readWrite, label: "SeedDB.probe")
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                // A WAL database with no `-wal` has no connection: the swap leaves WAL.
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" else { return }
                try db.execute(sql: "BEGIN EXCLUSIVE")
                try db.execute(sql: "ROLLBACK")
            }
            return true
        } catch let error where SQLiteFile.isBusy(error) {
            return false
        } catch {
            // Not a database, unreadable: the run itself finds out and says so.
            return true
        }
    }

    /// Leaves WAL if needed, then `BEGIN EXCLUSIVE`; again if a client turned WAL back on
    /// in between.
    private static func takeExclusiveLock(_ db: Database, until deadline: ContinuousClock.Instant) throws {
        while true {
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                try leaveWAL(db, until: deadline)
            }
            try db.execute(sql: "BEGIN EXCLUSIVE")
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" { return }
            try db.execute(sql: "ROLLBACK")
        }
    }

    /// Switches a WAL database to `DELETE`, polling every millisecond until `deadline`:
    /// SQLite refuses at once, without its busy handler, while another connection has the
    /// database open, and clients that open it for each transaction may all be closed for
    /// only a moment, which a longer pause between tries is more likely to miss.
    private static func leaveWAL(_ db: Database, until deadline: ContinuousClock.Instant) throws {
        let pause = Duration.milliseconds(1)
        while true {
            do {
                if try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") == "delete" { return }
            } catch let error where SQLiteFile.isBusy(error) {
                // Another connection has it open; try again below.
            }
            let now = ContinuousClock().now
            guard now < deadline else { throw SwapRefused() }
            sleepBriefly(min(pause, deadline - now))
        }
    }

    /// For a live replace: copies the staged copy at `staged` over the working copy at
    /// `path` with SQLite's backup API, running `body` under the backup's own write lock
    /// on the working copy before any page is written there.
    ///
    /// The backup's first step takes the write lock (`EXCLUSIVE` in rollback-journal
    /// mode, the WAL write lock in WAL mode) and copies a few pages into the cache only;
    /// `body` then reads the old copy (through its WAL in WAL mode, straight from the
    /// unchanged file in rollback mode) and writes into the staged copy, which the rest of
    /// the backup carries over in the same transaction. Connections other processes hold
    /// stay valid and see the new content at their next transaction.
    ///
    /// - Parameters:
    ///   - progress: Told the bytes copied so far and the total, after each step.
    ///   - isInterrupted: Asked after each step: a stop abandons the backup, whose
    ///     transaction rolls back, so the working copy is unchanged.
    ///   - body: Gets the staged copy's connection and the old copy to attach.
    /// - Throws: ``SeedDBError`` `inUse` when the lock is not had by `deadline`,
    ///   `interrupted`; whatever `body` throws, in which case the working copy is unchanged.
    static func forLive(
        _ path: String, staged: String, waiting: String, until deadline: ContinuousClock.Instant,
        progress: (@Sendable (Int64, Int64) -> Void)? = nil, isInterrupted: CopyEngine.Interruption = nil,
        _ body: (Database, OldCopy) throws(SeedDBError) -> Void
    ) throws(SeedDBError) {
        var failure: SeedDBError?
        let steps = LiveSteps(progress: progress) { () throws(SeedDBError) in
            guard isInterrupted?() == true else { return }
            let stop = SeedDBError(.interrupted, "interrupted; nothing was changed")
            failure = stop
            throw stop
        }
        do {
            try liveBackup(path, staged: staged, until: deadline, steps: steps) { (db, old) throws(SeedDBError) in
                do throws(SeedDBError) {
                    try body(db, old)
                } catch {
                    failure = error
                    throw error
                }
            }
        } catch {
            if let failure { throw failure }
            if let busy = error as? DatabaseError, SQLiteFile.isBusy(busy) {
                throw SeedDBError(.inUse, "cannot \(waiting): database in use by another process", underlying: SQLiteFile.inItsOwnWords(busy))
            }
            throw SQLiteFile.mapped(error, "cannot replace", path)
        }
    }

    /// What a live backup does after each step: report progress, notice a stop.
    private struct LiveSteps {
        var progress: (@Sendable (Int64, Int64) -> Void)?
        var checkInterruption: () throws(SeedDBError) -> Void
    }

    private static func liveBackup(_ path: String, staged: String, until deadline: ContinuousClock.Instant, steps: LiveSteps, _ body: (Database, OldCopy) throws(SeedDBError) -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            let destination = try SQLiteFile.open(path, access: .readWrite, timeout: deadline.timeLeft, label: "SeedDB.live")
            defer { try? destination.close() }
            let pageSize = try requireCompatible(destination, staged: staged, path: path)
            let source = try SQLiteFile.open(staged, access: .readWrite, label: "SeedDB.staged")
            defer { try? source.close() }
            try source.writeWithoutTransaction { sourceDB in
                try ensureTwoPages(sourceDB)
                let total = try Int.fetchOne(sourceDB, sql: "PRAGMA page_count") ?? 2
                // Few enough pages that the first step stays in the cache (never spilled to the file).
                let firstPages = max(1, min(total - 1, (256 << 10) / pageSize))
                try destination.writeWithoutTransaction { destinationDB in
                    var locked = false
                    while true {
                        do {
                            try sourceDB.backup(to: destinationDB, pagesPerStep: CInt(firstPages)) { step in
                                guard locked else {
                                    locked = true
                                    return try body(sourceDB, try oldCopy(of: path, from: sourceDB))
                                }
                                steps.progress?(Int64(step.completedPageCount) * Int64(pageSize), Int64(step.totalPageCount) * Int64(pageSize))
                                try steps.checkInterruption()
                            }
                            return
                        } catch let error where !locked && SQLiteFile.isBusy(error) && ContinuousClock().now < deadline {
                            sleepBriefly(.milliseconds(20))
                        }
                    }
                }
            }
        }
    }

    /// How the old copy is read under the backup's lock: through its WAL when the working
    /// copy is in WAL mode (readers may read beside the writer); straight from the file
    /// otherwise, where the `EXCLUSIVE` lock keeps everyone out and no page was written.
    private static func oldCopy(of path: String, from db: Database) throws -> OldCopy {
        let shared = SQLiteFile.uri(path, query: "mode=ro")
        do {
            try db.execute(sql: "ATTACH DATABASE ? AS seeddb_probe", arguments: [shared])
            defer { try? db.execute(sql: "DETACH DATABASE seeddb_probe") }
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM seeddb_probe.sqlite_master")
            return shared
        } catch let error where SQLiteFile.isBusy(error) {
            return SQLiteFile.uri(path, query: "immutable=1")
        }
    }

    /// Refuses what the backup API cannot do in place: a WAL database cannot change its
    /// page size. Returns the staged copy's page size.
    private static func requireCompatible(_ destination: DatabaseQueue, staged: String, path: String) throws -> Int {
        let stagedPageSize = try SQLiteFile.open(staged, access: .immutable, label: "SeedDB.staged").read { db in
            try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        }
        let (mode, current) = try destination.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA page_size"))
        }
        if mode == "wal", let current, current != stagedPageSize {
            throw SeedDBError(.inUse, "cannot replace \(path) live: it is in WAL mode with page size \(current) and the seed's is \(stagedPageSize); close the database and deploy by swap")
        }
        return stagedPageSize
    }

    /// A one-page database would be copied whole by the backup's first step, before the
    /// lock could be used: give it a second (free) page.
    private static func ensureTwoPages(_ db: Database) throws {
        guard try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 < 2 else { return }
        try db.execute(sql: "CREATE TABLE seeddb_pad(x); DROP TABLE seeddb_pad")
    }
}
