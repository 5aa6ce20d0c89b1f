import Foundation
import GRDB
import Logging
import PropertyBased
import SeedDB
import Testing

/// Every name SQLite accepts goes through SeedDB's SQL as itself: table and column names
/// made of `"`, `'`, `` ` ``, `]`, spaces, dots, Unicode and SQL keywords, through the
/// quoting function, `preserve`, the carry of the app's tables, the merge and the
/// conflicts file.
@Suite struct IdentifierQuotingTests {
    static let fragments = ["\"", "'", "`", "]", "[", " ", ".", "my\"t", "select", "TABLE", "é", "表", "-", "x", ";", "--", "\"\""]
    static let names = Gen.element(of: fragments).array(of: 1...4).map { $0.compactMap { $0 }.joined() }

    @Test func quotedNamesReadBackAsThemselves() async {
        await propertyCheck(count: 200, input: Self.names, Self.names) { table, column in
            let queue = try DatabaseQueue()
            let (readTable, readColumn) = try await queue.write { db in
                try db.execute(sql: "CREATE TABLE \(table.quotedSQLIdentifier) (\(column.quotedSQLIdentifier) INTEGER PRIMARY KEY)")
                try db.execute(sql: "INSERT INTO \(table.quotedSQLIdentifier) (\(column.quotedSQLIdentifier)) VALUES (7)")
                return (try String.fetchOne(db, sql: "SELECT name FROM sqlite_master"),
                        try String.fetchOne(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
            }
            #expect(readTable == table)
            #expect(readColumn == column)
        }
    }

    /// A seed whose table and key column have hostile names: the app's rows are carried
    /// by `preserve`, its own hostile-named table is carried, and a merge with a conflict
    /// names the table in the conflicts file.
    @Test func hostileNamesThroughPreserveCarryMergeAndConflicts() async {
        await propertyCheck(count: 12, input: Self.names, Self.names, Self.names) { table, column, appTable in
            guard table != appTable, !table.lowercased().hasPrefix("sqlite_"), !appTable.lowercased().hasPrefix("sqlite_") else { return }
            let directory = TemporaryDirectory()
            let t = table.quotedSQLIdentifier, c = column.quotedSQLIdentifier
            func seed(_ name: String, value: String) throws -> String {
                let path = directory.file(name)
                let queue = try DatabaseQueue(path: path)
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "CREATE TABLE \(t) (\(c) INTEGER PRIMARY KEY, v TEXT); INSERT INTO \(t) VALUES (1, '\(value)'), (2, 'same')")
                }
                try queue.close()
                return path
            }
            let v1 = try seed("v1.sqlite", value: "one"), v2 = try seed("v2.sqlite", value: "two")
            let deployer = Deployer(directories: directory.xdg, logger: Logger(label: "test"))
            func make(_ source: String, _ version: String, preserve: [String] = [], merge: MergePolicy = .off) throws -> Seed {
                try Seed(app: AppIdentifier("com.example.names"), source: source, version: SeedVersion(version),
                         name: SeedName("names.sqlite"), preservedTables: preserve, merge: MergePolicies(default: merge))
            }
            try deployer.deploy(make(v1, "1", merge: .userWins))
            let working = deployer.paths(for: try make(v1, "1")).workingCopy
            func edit(_ sql: String) throws {
                let queue = try DatabaseQueue(path: working)
                try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
                try queue.close()
            }
            try edit("INSERT INTO \(t) VALUES (3, 'users'); CREATE TABLE \(appTable.quotedSQLIdentifier) (\(c)); INSERT INTO \(appTable.quotedSQLIdentifier) VALUES (9)")
            // Merged: the user's row kept, the app's table carried.
            let upgraded = try deployer.deploy(make(v2, "2", merge: .userWins))
            #expect(upgraded.carried.contains(appTable))
            // A conflict on the hostile-named table and column, in the conflicts file.
            try edit("UPDATE \(t) SET v = 'edited' WHERE \(c) = 1")
            let merged = try deployer.deploy(make(v1, "3", merge: .userWins))
            #expect(merged.merge?.conflicts == 1)
            let conflicts = try deployer.conflicts(make(v1, "3"))
            let list = try #require(try JSONSerialization.jsonObject(with: Data(conflicts.utf8)) as? [[String: Any]])
            #expect(list.count == 1 && list.allSatisfy { $0["table"] as? String == table && $0["column"] as? String == "v" }, "\(conflicts)")
            // Preserved: the user's rows replace the seed's.
            let preserved = try deployer.deploy(make(v2, "4", preserve: [table]))
            #expect(Set(preserved.carried) == [table, appTable])
            let queue = try DatabaseQueue(path: working)
            defer { try? queue.close() }
            let (count, carried) = try await queue.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(t)"), try Int.fetchOne(db, sql: "SELECT \(c) FROM \(appTable.quotedSQLIdentifier)"))
            }
            #expect(count == 3)
            #expect(carried == 9)
        }
    }
}
