import Foundation
import GRDB
import SeedDBCore

/// The one way SeedDB opens SQLite files for its own use, all through GRDB: how a file is
/// opened (``Access``), how long it waits for other connections, and how GRDB's errors
/// become ``SeedDBError``s.
enum SQLiteFile {
    /// How a connection opens the file.
    enum Access {
        /// `immutable=1`: no locks, no sidecar files; for files nobody else writes.
        case immutable
        /// An ordinary read-only connection that honours other processes' locks and WAL.
        case shared
        /// An ordinary read-write connection.
        case readWrite
    }

    /// Opens `path`, waiting at most `timeout` whenever another connection holds a lock.
    ///
    /// - Parameter holdsTransactions: Lets a transaction outlive one database access (the
    ///   writer's lock held across steps).
    static func open(_ path: String, access: Access, timeout: Duration = .zero, label: String, holdsTransactions: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = label
        configuration.busyMode = timeout > .zero ? .timeout(timeout.seconds) : .immediateError
        configuration.allowsUnsafeTransactions = holdsTransactions
        // SeedDB copies rows table by table; the app's own connections enforce foreign keys.
        configuration.foreignKeysEnabled = false
        switch access {
        case .immutable:
            configuration.readonly = true
            return try DatabaseQueue(path: uri(path, query: "immutable=1"), configuration: configuration)
        case .shared:
            configuration.readonly = true
            return try DatabaseQueue(path: path, configuration: configuration)
        case .readWrite:
            return try DatabaseQueue(path: path, configuration: configuration)
        }
    }

    /// Runs `body`, turning what it throws into a ``SeedDBError`` about `operation` on
    /// `path` (see ``error(_:_:_:)``).
    static func mapping<Result>(_ operation: String, _ path: String, _ body: () throws -> Result) throws(SeedDBError) -> Result {
        do {
            return try body()
        } catch {
            throw mapped(error, operation, path)
        }
    }

    /// `error` as a ``SeedDBError`` about `operation` on `path` (see ``error(_:_:_:)``).
    static func mapped(_ error: any Error, _ operation: String, _ path: String) -> SeedDBError {
        switch error {
        case let error as SeedDBError: return error
        case let error as DatabaseError: return Self.error(error, operation, path)
        default: return SeedDBError.io(error, operation, path)
        }
    }

    /// Runs `PRAGMA quick_check` (or `integrity_check` when `full`) and returns `"ok"` or
    /// the first problem SQLite reports, as one line (see ``integrity(of:access:full:)``).
    ///
    /// - Throws: ``SeedDBError`` `ioFailure` when the file cannot be opened or read
    ///   (``isFileFailure(_:)``): that is the disk's failure, and says nothing of the
    ///   content (a check of SeedDB's own staged copy that fails so is no invalid seed).
    static func check(_ path: String, access: Access, full: Bool) throws(SeedDBError) -> String {
        try integrity(of: path, access: access, full: full) { (error) throws(SeedDBError) in
            throw fileFailure(error, "cannot run \(full ? "integrity_check" : "quick_check") on", path)
        }.description
    }

    /// Runs `PRAGMA integrity_check` (or `quick_check` when not `full`) on `path`: each
    /// problem it lists becomes one element (SQLite may pack several lines into one row,
    /// under a `*** in database main ***` heading, which is dropped). A file that cannot
    /// be opened or read is damaged as far as a reader can tell (`verify`).
    static func integrity(of path: String, access: Access, full: Bool) -> IntegrityResult {
        integrity(of: path, access: access, full: full) { _ in }
    }

    /// ``integrity(of:access:full:)``, handing a failure to open or read the file
    /// (``isFileFailure(_:)``) to `fileFailure` first: what it throws ends the check;
    /// when it returns, the failure is the file's one problem.
    private static func integrity<Failure: Error>(of path: String, access: Access, full: Bool, fileFailure: (DatabaseError) throws(Failure) -> Void) throws(Failure) -> IntegrityResult {
        let problems: [String]
        do {
            let queue = try open(path, access: access, label: "SeedDB.check")
            defer { try? queue.close() }
            let pragma = full ? "integrity_check" : "quick_check"
            let rows = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA \(pragma)") }
            if rows == ["ok"] { return .ok }
            problems = rows.isEmpty ? ["no result from \(pragma)"] : rows
        } catch let error as DatabaseError {
            if isFileFailure(error) { try fileFailure(error) }
            problems = [error.message ?? "\(error.resultCode)"]
        } catch {
            problems = ["\(error)"]
        }
        let lines = problems.flatMap { $0.split(whereSeparator: \.isNewline).map(String.init) }
            .filter { !$0.hasPrefix("*** in database ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return .damaged(lines.isEmpty ? problems : lines)
    }

    /// Whether `error` is the disk's failure, not the content's: SQLite could not read or
    /// write a file (`SQLITE_IOERR`, `SQLITE_FULL`, `SQLITE_NOLFS`), open it
    /// (`SQLITE_CANTOPEN`), or open it for writing (`SQLITE_READONLY`: SQLite opens a
    /// file read-only when its read-write open fails, so a write to SeedDB's own staged
    /// copy fails so after an I/O error).
    static func isFileFailure(_ error: DatabaseError) -> Bool {
        [.SQLITE_IOERR, .SQLITE_FULL, .SQLITE_NOLFS, .SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode)
    }

    /// A ``SeedDBError`` `ioFailure` for `error`, a failure of the disk
    /// (``isFileFailure(_:)``) met doing `operation` on SeedDB's own file at `path`; a
    /// full disk says how much is free there.
    static func fileFailure(_ error: DatabaseError, _ operation: String, _ path: String) -> SeedDBError {
        var reason = error.message ?? "\(error.resultCode)"
        if error.resultCode == .SQLITE_FULL { reason += SeedDBError.freeSpace(near: path) }
        return SeedDBError(.ioFailure, "\(operation) \(path): \(reason)", underlying: error)
    }

    /// Whether `error` says another connection holds a lock.
    static func isBusy(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// `error` described by its own result code (`database is locked`): the message GRDB
    /// read from the connection may belong to a later call on it (`no more rows
    /// available` after a busy step), which would make the cause unreadable.
    static func inItsOwnWords(_ error: DatabaseError) -> DatabaseError {
        DatabaseError(resultCode: error.extendedResultCode, sql: error.sql)
    }

    /// Whether `error` says the file is not a database.
    static func isNotADatabase(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    /// A ``SeedDBError`` for a GRDB error met while doing `operation` on `path`: busy is
    /// `inUse`, permission and read-only problems `cannotCreate`, a damaged file
    /// `invalidSeed`, the rest `ioFailure`.
    static func error(_ error: DatabaseError, _ operation: String, _ path: String) -> SeedDBError {
        let code: SeedDBError.Code
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: code = .inUse
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: code = .cannotCreate
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: code = .invalidSeed
        default: code = .ioFailure
        }
        var reason = code == .inUse ? "database in use by another process" : (error.message ?? "\(error.resultCode)")
        if error.resultCode == .SQLITE_FULL { reason += SeedDBError.freeSpace(near: path) }
        return SeedDBError(code, "\(operation) \(path): \(reason)", underlying: code == .inUse ? inItsOwnWords(error) : error)
    }

    /// A `file:` URI for `path` with `query`, percent-encoding every character that is
    /// not unreserved, so `?`, `#` and `%` in a path stay part of the path.
    static func uri(_ path: String, query: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return "file:\(encoded)?\(query)"
    }
}
