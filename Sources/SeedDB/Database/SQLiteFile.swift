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
    static func check(_ path: String, access: Access, full: Bool) -> String {
        integrity(of: path, access: access, full: full).description
    }

    /// Runs `PRAGMA integrity_check` (or `quick_check` when not `full`) on `path`: each
    /// problem it lists becomes one element (SQLite may pack several lines into one row,
    /// under a `*** in database main ***` heading, which is dropped).
    static func integrity(of path: String, access: Access, full: Bool) -> IntegrityResult {
        let problems: [String]
        do {
            let queue = try open(path, access: access, label: "SeedDB.check")
            defer { try? queue.close() }
            let pragma = full ? "integrity_check" : "quick_check"
            let rows = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA \(pragma)") }
            if rows == ["ok"] { return .ok }
            problems = rows.isEmpty ? ["no result from \(pragma)"] : rows
        } catch let error as DatabaseError {
            problems = [error.message ?? "\(error.resultCode)"]
        } catch {
            problems = ["\(error)"]
        }
        let lines = problems.flatMap { $0.split(whereSeparator: \.isNewline).map(String.init) }
            .filter { !$0.hasPrefix("*** in database ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return .damaged(lines.isEmpty ? problems : lines)
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
