import Foundation
import GRDB
@testable import SeedDB
import SeedDBCore
import Testing

/// `TableCarry`, the one way a table is carried whole (by the `carry` step and by the
/// merge): one row-id rule, counters that never go back, columns by name, virtual tables
/// through their module, the app's indexes, triggers and views, and one error wording.
@Suite struct TableCarryTests {
    /// The old working copy and the new seed on temporary files.
    private struct Copies {
        let directory = TemporaryDirectory()
        let logs = LogCapture()
        var old: String { directory.file("old.sqlite") }
        var new: String { directory.file("new.sqlite") }

        init(old oldSQL: String = "", new newSQL: String = "") throws {
            try run(oldSQL, on: directory.file("old.sqlite"))
            try run(newSQL, on: directory.file("new.sqlite"))
        }

        private func run(_ sql: String, on path: String) throws {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in if !sql.isEmpty { try db.execute(sql: sql) } }
            try queue.close()
        }

        /// Runs the `carry` step's carry from `old` into `new`.
        @discardableResult
        func carry(preserving preserved: [String] = [], _ appTables: TableCarry.AppTables = .notInTheNewSeed) throws(SeedDBError) -> [String] {
            do {
                let queue = try DatabaseQueue(path: new)
                defer { try? queue.close() }
                return try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [old])
                    defer { try? db.execute(sql: "DETACH DATABASE old") }
                    return try TableCarry.carryUserTables(preserving: preserved, appTables: appTables, in: db, logger: logs.logger)
                }
            } catch let error as SeedDBError {
                throw error
            } catch {
                throw SeedDBError(.ioFailure, "\(error)")
            }
        }

        /// The rows of `sql` on the new copy.
        func rows(_ sql: String) throws -> [[MergeValue]] {
            let queue = try DatabaseQueue(path: new)
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in (0..<row.count).map { MergeValue(row[$0] as DatabaseValue) } }
            }
        }
    }

    // MARK: Row ids

    @Test func aRowidTableKeepsItsRowIds() throws {
        let carry = try Copies(old: "CREATE TABLE notes (body TEXT); INSERT INTO notes (rowid, body) VALUES (4, 'a'), (9, 'b');")
        try carry.carry()
        #expect(try carry.rows("SELECT rowid, body FROM notes ORDER BY rowid") == [[.integer(4), .text("a")], [.integer(9), .text("b")]])
    }

    @Test func anIntegerPrimaryKeyCarriesTheRowIds() throws {
        let carry = try Copies(old: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (7, 'a');")
        try carry.carry()
        #expect(try carry.rows("SELECT rowid, id, body FROM notes") == [[.integer(7), .integer(7), .text("a")]])
    }

    @Test func aColumnNamedRowidIsNotMistakenForTheRowId() throws {
        let carry = try Copies(old: "CREATE TABLE odd (rowid TEXT, v); INSERT INTO odd (_rowid_, rowid, v) VALUES (5, 'mine', 1);")
        try carry.carry()
        #expect(try carry.rows("SELECT _rowid_, rowid, v FROM odd") == [[.integer(5), .text("mine"), .integer(1)]])
    }

    @Test func aWithoutRowidTableIsCarriedByItsColumns() throws {
        let carry = try Copies(old: "CREATE TABLE pairs (a, b, PRIMARY KEY (a, b)) WITHOUT ROWID; INSERT INTO pairs VALUES (1, 2), (3, 4);")
        #expect(try carry.carry() == ["pairs"])
        #expect(try carry.rows("SELECT a, b FROM pairs ORDER BY a") == [[.integer(1), .integer(2)], [.integer(3), .integer(4)]])
    }

    @Test func anAutoincrementCounterNeverGoesBack() throws {
        let carry = try Copies(old: """
            CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, v); INSERT INTO log (v) VALUES (1), (2), (3); DELETE FROM log WHERE id = 3;
            """)
        try carry.carry()
        #expect(try carry.rows("SELECT seq FROM sqlite_sequence WHERE name = 'log'") == [[.integer(3)]])
        #expect(try carry.rows("SELECT count(*) FROM sqlite_sequence") == [[.integer(1)]])
    }

    // MARK: Columns

    @Test func theAppsTableTheSeedAlsoHasKeepsTheAppsColumns() throws {
        let carry = try Copies(
            old: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, mood TEXT); INSERT INTO notes VALUES (1, 'a', 'happy');",
            new: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, stars INTEGER DEFAULT 0); INSERT INTO notes VALUES (2, 'seed', 5);")
        try carry.carry(.notInTheOldSeed([]))
        #expect(try carry.rows("SELECT id, body, stars, mood FROM notes") == [[.integer(1), .text("a"), .integer(0), .text("happy")]])
    }

    @Test func aPreservedTableTakesTheNewSeedsColumns() throws {
        let carry = try Copies(
            old: "CREATE TABLE scores (id INTEGER PRIMARY KEY, points, old_column); INSERT INTO scores VALUES (1, 10, 'x');",
            new: "CREATE TABLE scores (id INTEGER PRIMARY KEY, points, added DEFAULT 'd'); INSERT INTO scores VALUES (2, 20, 'seed');")
        #expect(try carry.carry(preserving: ["scores"]) == ["scores"])
        #expect(try carry.rows("SELECT * FROM scores") == [[.integer(1), .integer(10), .text("d")]])
        #expect(carry.logs.messages.contains { $0.contains("\"old_column\"") && $0.contains("dropped") })
    }

    // MARK: Which tables

    @Test func aTableTheOldSeedHadAndTheNewSeedDroppedGoes() throws {
        let carry = try Copies(old: "CREATE TABLE retired (v); INSERT INTO retired VALUES (1); CREATE TABLE mine (v); INSERT INTO mine VALUES (2);")
        #expect(try carry.carry(.notInTheOldSeed(["retired"])) == ["mine"])
        #expect(try carry.rows("SELECT name FROM sqlite_master WHERE type = 'table'") == [[.text("mine")]])
    }

    @Test func afterAMergeOnlyThePreservedTablesAreLeft() throws {
        let carry = try Copies(
            old: "CREATE TABLE mine (v); INSERT INTO mine VALUES (1); CREATE TABLE kept (v); INSERT INTO kept VALUES ('user');",
            new: "CREATE TABLE kept (v); INSERT INTO kept VALUES ('seed');")
        #expect(try carry.carry(preserving: ["kept"], .carriedByTheMerge(["merged_elsewhere"])) == ["merged_elsewhere", "kept"])
        #expect(try carry.rows("SELECT v FROM kept") == [[.text("user")]])
        #expect(try carry.rows("SELECT count(*) FROM sqlite_master WHERE name = 'mine'") == [[.integer(0)]], "the merge decided the app's tables")
    }

    // MARK: Virtual tables and objects

    @Test func theAppsFullTextTableIsFilledThroughItsModule() throws {
        let carry = try Copies(old: "CREATE VIRTUAL TABLE search USING fts5(body); INSERT INTO search (rowid, body) VALUES (4, 'hello world');")
        #expect(try carry.carry() == ["search"])
        #expect(try carry.rows("SELECT rowid, body FROM search WHERE search MATCH 'hello'") == [[.integer(4), .text("hello world")]])
        #expect(try carry.rows("SELECT count(*) FROM search_data") != [[.integer(0)]])
    }

    @Test func anIndexOverExternalContentIsRebuiltFromTheCarriedContent() throws {
        let carry = try Copies(old: """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id');
            INSERT INTO notes VALUES (3, 'carried text'); INSERT INTO notes_fts (notes_fts) VALUES ('rebuild');
            """)
        #expect(try carry.carry() == ["notes", "notes_fts"])
        #expect(try carry.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'carried'") == [[.integer(3)]])
    }

    @Test func aContentlessIndexIsLeftEmptyWithAWarning() throws {
        let carry = try Copies(old: "CREATE VIRTUAL TABLE words USING fts5(w, content=''); INSERT INTO words (rowid, w) VALUES (1, 'x');")
        #expect(try carry.carry() == ["words"])
        #expect(try carry.rows("SELECT count(*) FROM words WHERE words MATCH 'x'") == [[.integer(0)]])
        #expect(carry.logs.messages.contains { $0.contains("contentless") && $0.contains("\"words\"") })
    }

    @Test func theIndexesTriggersAndViewsOfACarriedTableGoWithIt() throws {
        let carry = try Copies(old: """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, at INTEGER);
            CREATE INDEX notes_at ON notes (at);
            CREATE TABLE audit (id INTEGER);
            CREATE TRIGGER notes_audit AFTER INSERT ON notes BEGIN INSERT INTO audit VALUES (new.id); END;
            CREATE VIEW recent AS SELECT * FROM notes WHERE at > 10;
            INSERT INTO notes VALUES (1, 'a', 20);
            """)
        try carry.carry()
        #expect(try carry.rows("SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') ORDER BY name")
            == [[.text("index"), .text("notes_at")], [.text("trigger"), .text("notes_audit")], [.text("view"), .text("recent")]])
        #expect(try carry.rows("SELECT count(*) FROM audit") == [[.integer(1)]], "the carried row is not a new insert")
    }

    @Test func anObjectThatNoLongerFitsIsLeftOutWithAWarning() throws {
        let carry = try Copies(
            old: "CREATE TABLE levels (id INTEGER PRIMARY KEY); CREATE VIEW summary AS SELECT count(*) FROM levels;",
            new: "CREATE TABLE levels (id INTEGER PRIMARY KEY); CREATE TABLE summary (total);")
        try carry.carry(.notInTheOldSeed(["levels"]))
        #expect(carry.logs.messages.contains { $0.contains("view \"summary\"") && $0.contains("left out") }, "\(carry.logs.messages)")
        #expect(try carry.rows("SELECT type FROM sqlite_master WHERE name = 'summary'") == [[.text("table")]])
    }

    // MARK: Errors

    @Test func aPreservedTableNeitherCopyHasIsATypo() throws {
        let carry = try Copies(new: "CREATE TABLE scores (id INTEGER PRIMARY KEY);")
        let error = try #require(throws: SeedDBError.self) { try carry.carry(preserving: ["scroes"]) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message == "preserved table \"scroes\" is not in the working copy or the new seed; did you mean \"scores\"?; nothing was changed")
    }

    @Test func rowsThatDoNotFitAreOneErrorAndChangeNothing() throws {
        let carry = try Copies(
            old: "CREATE TABLE mine (v); INSERT INTO mine VALUES (1); CREATE TABLE scores (id INTEGER PRIMARY KEY, points); INSERT INTO scores VALUES (1, NULL);",
            new: "CREATE TABLE scores (id INTEGER PRIMARY KEY, points NOT NULL); INSERT INTO scores VALUES (2, 20);")
        let error = try #require(throws: SeedDBError.self) { try carry.carry(preserving: ["scores"]) }
        #expect(error.code == .invalidSeed)
        #expect(error.message.hasPrefix("cannot carry table \"scores\" into the new seed: NOT NULL constraint failed"), "\(error.message)")
        #expect(error.message.hasSuffix("; nothing was changed"))
        #expect(try carry.rows("SELECT * FROM scores") == [[.integer(2), .integer(20)]])
        #expect(try carry.rows("SELECT count(*) FROM sqlite_master WHERE name = 'mine'") == [[.integer(0)]], "the app's table carried first is undone")
    }
}
