import GRDB
import Logging
import SeedDBCore

/// Exclusive access to an existing working copy, taken through SQLite, for the moment
/// it is replaced.
///
/// Opening the old copy through SQLite, rather than with a raw descriptor, matters: the
/// app may hold connections to it in this very process, and closing any raw descriptor
/// on a database file drops SQLite's POSIX locks for the whole process. SQLite shares
/// one descriptor per file within a process and never does that.
enum WorkingCopyGuard {
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
    /// - Throws: ``SeedDBError`` `inUse` when another process keeps a transaction open,
    ///   or has the database open in WAL mode, for longer than `timeout`.
    static func withExclusiveAccess(_ path: String, timeout: Duration, logger: Logger, _ body: () throws -> Void) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(max(timeout.seconds, 0))
        configuration.label = "SeedDB.guard"
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError where isNotADatabase(error) {
            logger.debug("old working copy \(path) is not a database (\(error.resultCode)); replacing it without a lock")
            try body()
            return
        } catch let error as DatabaseError {
            throw mapped(error, path: path)
        }
        defer { try? queue.close() }
        try queue.inDatabase { db in
            do {
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                    try leaveWAL(db, path: path, until: ContinuousClock().now.advanced(by: timeout))
                }
                try db.execute(sql: "BEGIN EXCLUSIVE")
            } catch let error as DatabaseError where isNotADatabase(error) {
                logger.debug("old working copy \(path) is not a database (\(error.resultCode)); replacing it without a lock")
                try body()
                return
            } catch let error as DatabaseError {
                throw mapped(error, path: path)
            }
            defer { try? db.execute(sql: "ROLLBACK") }
            try body()
        }
    }

    /// Switches a WAL database to `DELETE` mode, polling until `deadline`: SQLite refuses
    /// at once, without its busy handler, while another connection has the database open.
    private static func leaveWAL(_ db: Database, path: String, until deadline: ContinuousClock.Instant) throws {
        var pause = Duration.milliseconds(2)
        while true {
            do {
                if try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") == "delete" { return }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                // Another connection holds a lock; try again below.
            }
            guard ContinuousClock().now < deadline else { throw inUse(path) }
            sleepBriefly(min(pause, deadline - ContinuousClock().now))
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    private static func isNotADatabase(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    private static func mapped(_ error: DatabaseError, path: String) -> SeedDBError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return inUse(path)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return SeedDBError(.cannotCreate, "cannot open working copy \(path): \(error.message ?? "\(error.resultCode)")", underlying: error)
        default:
            return SeedDBError(.ioFailure, "cannot open working copy \(path): \(error.message ?? "\(error.resultCode)")", underlying: error)
        }
    }

    private static func inUse(_ path: String) -> SeedDBError {
        SeedDBError(.inUse, "cannot replace \(path): database in use by another process")
    }
}
