import Foundation
import GRDB
import Logging
@testable import SeedDB

/// Three databases on temporary files, the previous seed (base), the working copy (user)
/// and the new seed, and a staged copy of the new seed to merge into.
final class MergeFixture {
    let directory = TemporaryDirectory()
    let logs = LogCapture()
    var base: String { directory.file("base.sqlite") }
    var user: String { directory.file("user.sqlite") }
    var seed: String { directory.file("seed.sqlite") }
    var staged: String { directory.file("staged.sqlite") }

    /// Creates the three databases: `shared` runs on all of them first, then each side's
    /// own script.
    init(shared: String = "", base: String = "", user: String = "", seed: String = "") throws {
        try run(shared + base, on: self.base)
        try run(shared + base + user, on: self.user)
        try run(shared + seed, on: self.seed)
    }

    func run(_ sql: String, on path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            if !sql.isEmpty { try db.execute(sql: sql) }
        }
        try queue.close()
    }

    /// Copies the new seed to the staged path and merges into it.
    ///
    /// - Parameter splitting: Whether a second connection searches the upper half of every
    ///   table keyed by its row id, whatever its size (``MergeSecondReader``).
    @discardableResult
    func merge(_ policies: MergePolicies, withBase: Bool = true, splitting: Bool = false) throws -> MergeResult {
        try? FileManager.default.removeItem(atPath: staged)
        try FileManager.default.copyItem(atPath: seed, toPath: staged)
        var merge = ThreeWayMerge(policies: policies, logger: logs.logger)
        if splitting {
            merge.secondReader = try MergeSecondReader(
                base: (SQLiteFile.uri(base, query: "immutable=1"), "base"), user: (SQLiteFile.uri(user, query: "immutable=1"), "user"), minimumSpan: 0)
        }
        defer { merge.secondReader?.close() }
        return try merge.merge(base: withBase ? base : nil, user: user, into: staged)
    }

    /// The rows of `sql` on the staged copy (or `path`), as merge values.
    func rows(_ sql: String, in path: String? = nil) throws -> [[MergeValue]] {
        let queue = try DatabaseQueue(path: path ?? staged)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql).map { row in (0..<row.count).map { MergeValue(row[$0] as DatabaseValue) } }
        }
    }

    /// One value of `sql` on the staged copy (or `path`).
    func value<T: DatabaseValueConvertible>(_ sql: String, in path: String? = nil) throws -> T? {
        let queue = try DatabaseQueue(path: path ?? staged)
        defer { try? queue.close() }
        return try queue.read { db in try T.fetchOne(db, sql: sql) }
    }

    /// Every user table of the database at `path` (staged by default), dumped in key order.
    func dump(_ path: String? = nil) throws -> [String: [[MergeValue]]] {
        let queue = try DatabaseQueue(path: path ?? staged)
        defer { try? queue.close() }
        return try queue.read { db in
            var tables: [String: [[MergeValue]]] = [:]
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'") {
                let count = try Row.fetchAll(db, sql: "PRAGMA table_info(\(name.quotedSQLIdentifier))").count
                let order = (1...count).map(String.init).joined(separator: ", ")
                tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedSQLIdentifier) ORDER BY \(order)").map { row in
                    (0..<row.count).map { MergeValue(row[$0] as DatabaseValue) }
                }
            }
            return tables
        }
    }
}

extension MergeValue {
    /// The value to bind with GRDB.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let value): return value.databaseValue
        case .real(let value): return value.databaseValue
        case .text(let value): return value.databaseValue
        case .blob(let bytes): return Data(bytes).databaseValue
        }
    }
}
