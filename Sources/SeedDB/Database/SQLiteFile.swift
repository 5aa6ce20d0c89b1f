import Foundation
import GRDB
import SeedDBCore

/// SQLite checks on database files SeedDB does not share with anyone (seeds, fresh
/// copies) or only reads (verify), all through GRDB.
enum SQLiteFile {
    /// How a check opens the file.
    enum Access {
        /// `immutable=1`: no locks, no sidecar files; for files nobody else writes.
        case immutable
        /// An ordinary read-only connection that honours other processes' locks and WAL.
        case shared
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
            let queue = try open(path, access: access)
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

    /// Opens `path` read-only.
    static func open(_ path: String, access: Access) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "SeedDB.check"
        switch access {
        case .immutable:
            return try DatabaseQueue(path: uri(path, query: "immutable=1"), configuration: configuration)
        case .shared:
            return try DatabaseQueue(path: path, configuration: configuration)
        }
    }

    /// A ``SeedDBError`` for a GRDB error met while doing `operation` on `path`: busy is
    /// `inUse`, permission and read-only problems `cannotCreate`, the rest `ioFailure`.
    static func error(_ error: DatabaseError, _ operation: String, _ path: String) -> SeedDBError {
        let code: SeedDBError.Code
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: code = .inUse
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: code = .cannotCreate
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: code = .invalidSeed
        default: code = .ioFailure
        }
        let reason = code == .inUse ? "database in use by another process" : (error.message ?? "\(error.resultCode)")
        return SeedDBError(code, "\(operation) \(path): \(reason)", underlying: error)
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
