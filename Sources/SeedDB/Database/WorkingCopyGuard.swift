import GRDB
import Logging
import SeedDBCore

/// Exclusive access to an existing working copy, taken through SQLite, for the moment
/// it is swapped.
///
/// Opening the old copy through SQLite, rather than with a raw descriptor, matters: the
/// app may hold connections to it in this very process, and closing any raw descriptor
/// on a database file drops SQLite's POSIX locks for the whole process. SQLite shares
/// one descriptor per file within a process and never does that.
enum WorkingCopyGuard {
    /// Thrown before `body` runs when another connection keeps the database busy.
    struct Busy: Error {}

    /// Runs `body` while no other connection can use the database at `path`.
    ///
    /// 1. Opens the old copy; SQLite rolls back a hot journal into it on the first read.
    /// 2. In WAL mode, switches it to `DELETE`: SQLite checkpoints the WAL into the old
    ///    file and removes it, which needs every other connection to be closed.
    /// 3. Takes an `EXCLUSIVE` lock (`BEGIN EXCLUSIVE`) and holds it while `body` removes
    ///    the sidecars and renames the new file into place, then rolls back and closes.
    ///
    /// A file that is not a database at all (garbage, a torn copy) cannot be in use as
    /// one, so `body` then runs without a lock.
    ///
    /// - Throws: ``Busy`` when another process keeps a transaction open, or has the
    ///   database open in WAL mode, for longer than `timeout`; whatever `body` throws.
    static func withExclusiveAccess(_ path: String, timeout: Duration, logger: Logger, _ body: () throws -> Void) throws {
        guard let queue = try exclusiveConnection(path, timeout: timeout, logger: logger) else {
            try body()
            return
        }
        defer {
            try? queue.inDatabase { try $0.execute(sql: "ROLLBACK") }
            try? queue.close()
        }
        try body()
    }

    /// A connection holding `EXCLUSIVE` on the database at `path` (steps 1 to 3 above),
    /// or `nil` when the file is not a database.
    private static func exclusiveConnection(_ path: String, timeout: Duration, logger: Logger) throws -> DatabaseQueue? {
        var configuration = Configuration()
        configuration.busyMode = .timeout(max(timeout.seconds, 0))
        configuration.allowsUnsafeTransactions = true  // the lock outlives one database access
        configuration.label = "SeedDB.guard"
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            do {
                try queue.inDatabase { db in
                    if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                        try leaveWAL(db, until: ContinuousClock().now.advanced(by: timeout))
                    }
                    try db.execute(sql: "BEGIN EXCLUSIVE")
                }
                return queue
            } catch {
                try? queue.close()
                throw error
            }
        } catch let error as DatabaseError where isNotADatabase(error) {
            logger.debug("old working copy \(path) is not a database (\(error.resultCode)); replacing it without a lock")
            return nil
        } catch let error as DatabaseError {
            throw mapped(error, path: path)
        }
    }

    /// Switches a WAL database to `DELETE` mode, polling until `deadline`: SQLite refuses
    /// at once, without its busy handler, while another connection has the database open.
    private static func leaveWAL(_ db: Database, until deadline: ContinuousClock.Instant) throws {
        var pause = Duration.milliseconds(2)
        while true {
            do {
                if try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") == "delete" { return }
            } catch let error as DatabaseError where isBusy(error) {
                // Another connection holds a lock; try again below.
            }
            let now = ContinuousClock().now
            guard now < deadline else { throw Busy() }
            sleepBriefly(min(pause, deadline - now))
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    private static func isNotADatabase(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    private static func mapped(_ error: DatabaseError, path: String) -> any Error {
        if isBusy(error) { return Busy() }
        return SQLiteFile.error(error, "cannot open working copy", path)
    }
}
