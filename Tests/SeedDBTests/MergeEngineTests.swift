import Foundation
import GRDB
@testable import SeedDB
import Testing

/// The merge on real files: every row of the table, keys, schema moves, the app's tables,
/// full-text search, foreign keys, `fail`.
@Suite struct MergeEngineTests {
    // One row per line of the merge table, by id:
    //   100 user inserted | 101 both inserted alike | 102 both inserted differently
    //   1 seed changed | 2 seed deleted | 3 user deleted | 4 both deleted | 5 user deleted, seed changed
    //   6 user changed name, seed score | 7 same change | 8 different changes | 9 user changed, seed deleted
    static let levels = """
        CREATE TABLE levels (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
        INSERT INTO levels VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3), (4, 'four', 4), (5, 'five', 5),
                                  (6, 'six', 6), (7, 'seven', 7), (8, 'eight', 8), (9, 'nine', 9), (10, 'ten', 10);
        """
    static let userEdits = """
        INSERT INTO levels VALUES (100, 'mine', 0), (101, 'both', 0), (102, 'user''s', 0);
        DELETE FROM levels WHERE id IN (3, 4, 5);
        UPDATE levels SET name = 'SIX' WHERE id = 6;
        UPDATE levels SET name = 'SEVEN' WHERE id = 7;
        UPDATE levels SET name = 'user eight' WHERE id = 8;
        UPDATE levels SET name = 'user nine' WHERE id = 9;
        """
    static let seedEdits = """
        INSERT INTO levels VALUES (101, 'both', 0), (102, 'seed''s', 0);
        UPDATE levels SET score = 11 WHERE id = 1;
        DELETE FROM levels WHERE id IN (2, 4, 9);
        UPDATE levels SET score = 55 WHERE id = 5;
        UPDATE levels SET score = 66 WHERE id = 6;
        UPDATE levels SET name = 'SEVEN' WHERE id = 7;
        UPDATE levels SET name = 'seed eight' WHERE id = 8;
        """

    func fixture() throws -> MergeFixture {
        try MergeFixture(shared: Self.levels, user: Self.userEdits, seed: Self.seedEdits)
    }

    func names(_ fixture: MergeFixture) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        for row in try fixture.rows("SELECT id, name, score FROM levels") {
            guard case .integer(let id) = row[0], case .text(let name) = row[1], case .integer(let score) = row[2] else { continue }
            names[id] = "\(name) \(score)"
        }
        return names
    }

    @Test func userWinsFollowsEveryRowOfTheTable() throws {
        let fixture = try fixture()
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(try names(fixture) == [
            100: "mine 0", 101: "both 0", 102: "user's 0",
            1: "one 11", 6: "SIX 66", 7: "SEVEN 7", 8: "user eight 8", 9: "user nine 9", 10: "ten 10",
        ])
        #expect(result.summary == MergeSummary(inserted: 3, updated: 4, deleted: 3, conflicts: 4))
        #expect(result.conflicts.map { $0.key } == [5, 8, 9, 102].map { [MergeField("id", .integer($0))] })
        #expect(result.conflicts.map(\.column) == [nil, "name", nil, nil])
        #expect(result.conflicts.allSatisfy { $0.kept == .user })
        #expect(result.conflicts[1].json == #"{"table":"levels","key":{"id":8},"column":"name","base":"eight","user":"user eight","seed":"seed eight","kept":"user"}"#)
        #expect(result.conflicts[0].base == .row([MergeField("id", .integer(5)), MergeField("name", .text("five")), MergeField("score", .integer(5))]))
        #expect(result.conflicts[0].user == .absent)
        #expect(result.mergedTables == ["levels"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(result.conflictsJSON.utf8)) as? [[String: Any]])
        #expect(parsed.count == 4)
        #expect((parsed[2]["user"] as? [String: Any])?["name"] as? String == "user nine")
        #expect(parsed[2]["seed"] is NSNull)
    }

    @Test func seedWinsFollowsEveryRowOfTheTable() throws {
        let fixture = try fixture()
        let result = try fixture.merge(MergePolicies(default: .seedWins))
        #expect(try names(fixture) == [
            100: "mine 0", 101: "both 0", 102: "seed's 0",
            1: "one 11", 5: "five 55", 6: "SIX 66", 7: "SEVEN 7", 8: "seed eight 8", 10: "ten 10",
        ])
        #expect(result.summary == MergeSummary(inserted: 2, updated: 2, deleted: 2, conflicts: 4))
        #expect(result.conflicts.allSatisfy { $0.kept == .seed })
    }

    @Test func offLeavesTheSeedAlone() throws {
        let fixture = try fixture()
        let result = try fixture.merge(MergePolicies(default: .off))
        #expect(try fixture.dump() == fixture.dump(fixture.seed))
        #expect(result.summary == MergeSummary())
        #expect(fixture.logs.messages.isEmpty)
    }

    @Test func failChangesNothingAndNamesTheFirstConflict() throws {
        let fixture = try MergeFixture(shared: Self.levels, user: Self.userEdits + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'n');", seed: Self.seedEdits)
        let error = try #require(throws: SeedDBError.self) { try fixture.merge(MergePolicies(default: .fail)) }
        #expect(error.code == .mergeRefused, "the seed is fine: the merge was refused")
        #expect(error.remedy == .conflicts)
        #expect(!error.message.contains("seeddb"), "the library's message names no CLI command: \(error.message)")
        #expect(error.message.contains("\"levels\""))
        #expect(error.message.contains("id=5"))
        let failure = try #require(error.underlying as? MergeFailure)
        #expect(failure.conflicts.count == 4)
        #expect(failure.conflicts.allSatisfy { $0.kept == .none })
        #expect(try fixture.dump() == fixture.dump(fixture.seed))
        let notes: Int? = try fixture.value("SELECT count(*) FROM sqlite_master WHERE name = 'notes'")
        #expect(notes == 0)
    }

    /// `INTEGER PRIMARY KEY DESC` is not the row id (SQLite's quirk): its keys may be text
    /// or reals, so the merge never splits such a table in two halves of integer keys.
    @Test func aKeyThatIsNotTheRowIdIsNeverSplit() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE t (id INTEGER PRIMARY KEY DESC, v TEXT); INSERT INTO t VALUES (1, 'a'), (2.5, 'b'), ('x', 'c'), (400000, 'd');",
            user: "UPDATE t SET v = 'mine' WHERE id IN (2.5, 'x', 400000);")
        let result = try fixture.merge(MergePolicies(default: .userWins), splitting: true)
        #expect(result.summary.updated == 3, "\(result.summary)")
        #expect(try fixture.rows("SELECT id, v FROM t ORDER BY v, typeof(id)") == [
            [.integer(1), .text("a")], [.integer(400000), .text("mine")], [.real(2.5), .text("mine")], [.text("x"), .text("mine")],
        ])
    }

    @Test func failWithoutConflictMerges() throws {
        let fixture = try MergeFixture(shared: Self.levels, user: "UPDATE levels SET name = 'mine' WHERE id = 1;", seed: "UPDATE levels SET score = 0 WHERE id = 1;")
        let result = try fixture.merge(MergePolicies(default: .fail))
        #expect(try fixture.rows("SELECT name, score FROM levels WHERE id = 1") == [[.text("mine"), .integer(0)]])
        #expect(result.conflicts.isEmpty)
    }

    @Test func perTablePoliciesApply() throws {
        let fixture = try MergeFixture(
            shared: Self.levels + "CREATE TABLE catalogue (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO catalogue VALUES (1, 'a');",
            user: "UPDATE levels SET name = 'mine' WHERE id = 1; UPDATE catalogue SET title = 'mine' WHERE id = 1;")
        try fixture.merge(MergePolicies(default: .userWins, tables: ["catalogue": .off]))
        #expect(try fixture.rows("SELECT name FROM levels WHERE id = 1") == [[.text("mine")]])
        #expect(try fixture.rows("SELECT title FROM catalogue") == [[.text("a")]])
    }

    @Test func compositeKeysWithoutRowid() throws {
        let fixture = try MergeFixture(
            shared: """
                CREATE TABLE scores (player TEXT, level INTEGER, stars INTEGER, PRIMARY KEY (player, level)) WITHOUT ROWID;
                INSERT INTO scores VALUES ('ann', 1, 1), ('ann', 2, 2), ('bob', 1, 1);
                """,
            user: "UPDATE scores SET stars = 3 WHERE player = 'ann' AND level = 2; INSERT INTO scores VALUES ('bob', 2, 9); UPDATE scores SET stars = 5 WHERE player = 'bob' AND level = 1;",
            seed: "UPDATE scores SET stars = 0 WHERE player = 'ann' AND level = 1; UPDATE scores SET stars = 4 WHERE player = 'bob' AND level = 1;")
        let result = try fixture.merge(MergePolicies(default: .seedWins))
        #expect(try fixture.rows("SELECT * FROM scores ORDER BY player, level") == [
            [.text("ann"), .integer(1), .integer(0)], [.text("ann"), .integer(2), .integer(3)],
            [.text("bob"), .integer(1), .integer(4)], [.text("bob"), .integer(2), .integer(9)],
        ])
        #expect(result.conflicts.map(\.key) == [[MergeField("player", .text("bob")), MergeField("level", .integer(1))]])
        #expect(result.conflicts.first?.json.contains(#""key":{"player":"bob","level":1},"column":"stars""#) == true)
    }

    @Test func storageClassesAndCollationsAreExact() throws {
        // NOCASE would call 'Ann' and 'ann' equal, and SQLite's numeric comparison 1 and 1.0.
        let fixture = try MergeFixture(
            shared: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, v); INSERT INTO t VALUES (1, 'ann', 1), (2, 'bob', 2);",
            user: "UPDATE t SET name = 'Ann' WHERE id = 1; UPDATE t SET v = 2.0 WHERE id = 2;")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT name, v FROM t ORDER BY id") == [[.text("Ann"), .integer(1)], [.text("bob"), .real(2)]])
        #expect(result.summary.updated == 2)
    }

    @Test func textIsCopiedByteForByte() throws {
        // Not valid UTF-8, and a NUL inside: Swift strings would change both.
        let fixture = try MergeFixture(
            shared: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');",
            user: "UPDATE t SET name = CAST(x'41ff42' AS TEXT) WHERE id = 1; INSERT INTO t VALUES (3, CAST(x'410042' AS TEXT));")
        try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT id, typeof(name), hex(name) FROM t ORDER BY id") == [
            [.integer(1), .text("text"), .text("41FF42")], [.integer(2), .text("text"), .text("62")], [.integer(3), .text("text"), .text("410042")],
        ])
    }

    @Test func schemaMoves() throws {
        // The new seed adds `difficulty`, drops `legacy` and reorders the columns; the app
        // added `favorite` to its copy.
        let fixture = try MergeFixture(
            base: "CREATE TABLE levels (id INTEGER PRIMARY KEY, name TEXT, legacy TEXT); INSERT INTO levels VALUES (1, 'one', 'a'), (2, 'two', 'b');",
            user: """
                ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0;
                UPDATE levels SET favorite = 1 WHERE id = 2;
                UPDATE levels SET legacy = 'edited' WHERE id = 1;
                INSERT INTO levels (id, name, legacy, favorite) VALUES (3, 'mine', 'c', 1);
                """,
            seed: "CREATE TABLE levels (difficulty INTEGER DEFAULT 7, name TEXT, id INTEGER PRIMARY KEY); INSERT INTO levels VALUES (5, 'ONE', 1), (6, 'two', 2);")
        try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT id, name, difficulty, favorite FROM levels ORDER BY id") == [
            [.integer(1), .text("ONE"), .integer(5), .integer(0)],
            [.integer(2), .text("two"), .integer(6), .integer(1)],
            [.integer(3), .text("mine"), .integer(7), .integer(1)],
        ])
        let favorite = try fixture.rows("SELECT type, \"notnull\", dflt_value FROM pragma_table_info('levels') WHERE name = 'favorite'")
        #expect(favorite == [[.text("INTEGER"), .integer(1), .text("0")]])
        #expect(fixture.logs.messages.contains { $0.contains("\"legacy\"") && $0.contains("\"levels\"") })
    }

    @Test func theAppsColumnAlreadyAddedToTheSeedByAMigrationKeepsTheUsersValues() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE levels (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO levels VALUES (1, 'one'), (2, 'two');",
            user: "ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0; UPDATE levels SET favorite = 1 WHERE id = 2;",
            seed: "UPDATE levels SET name = 'TWO' WHERE id = 2; ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0;")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT id, name, favorite FROM levels ORDER BY id") == [
            [.integer(1), .text("one"), .integer(0)], [.integer(2), .text("TWO"), .integer(1)],
        ])
        #expect(result.conflicts.isEmpty)
    }

    @Test func theAppsMigrationsRanOnTheNewSeedFirst() throws {
        // The app's migrations ran on the staged seed before the merge: its `notes` table is
        // there empty, its `favorite` column there with the default.
        let migration = "ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0; CREATE TABLE notes (id INTEGER PRIMARY KEY, level_id INTEGER, body TEXT); CREATE INDEX notes_by_level ON notes (level_id);"
        let fixture = try MergeFixture(
            shared: Self.levels,
            user: migration + "UPDATE levels SET favorite = 1 WHERE id IN (2, 10); INSERT INTO notes VALUES (1, 2, 'hard');",
            seed: "UPDATE levels SET score = 100 WHERE id = 10;" + migration)
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT id, score, favorite FROM levels WHERE favorite = 1 ORDER BY id") == [
            [.integer(2), .integer(2), .integer(1)], [.integer(10), .integer(100), .integer(1)],
        ])
        #expect(try fixture.rows("SELECT * FROM notes") == [[.integer(1), .integer(2), .text("hard")]])
        #expect(result.summary == MergeSummary(updated: 2))
        #expect(result.carriedTables == ["notes"])
    }

    @Test func theAppsTablesAndObjectsAreCarried() throws {
        let fixture = try MergeFixture(
            shared: Self.levels,
            user: """
                CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, level_id INTEGER, body TEXT);
                CREATE INDEX notes_by_level ON notes (level_id);
                CREATE TABLE log (line TEXT);
                CREATE TRIGGER notes_log AFTER INSERT ON notes BEGIN INSERT INTO log VALUES (new.body); END;
                INSERT INTO notes (level_id, body) VALUES (1, 'first'), (2, 'second');
                DELETE FROM notes WHERE id = 2;
                CREATE INDEX levels_by_name ON levels (name);
                CREATE VIEW noted AS SELECT levels.name, notes.body FROM notes JOIN levels ON levels.id = notes.level_id;
                """,
            seed: "UPDATE levels SET score = 0;")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(result.carriedTables == ["log", "notes"])
        #expect(result.carriedRows == 3)
        #expect(try fixture.rows("SELECT id, level_id, body FROM notes") == [[.integer(1), .integer(1), .text("first")]])
        #expect(try fixture.rows("SELECT line FROM log ORDER BY line") == [[.text("first")], [.text("second")]])
        #expect(try fixture.rows("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') ORDER BY name")
            == [[.text("levels_by_name")], [.text("noted")], [.text("notes_by_level")], [.text("notes_log")]])
        #expect(try fixture.rows("SELECT seq FROM sqlite_sequence WHERE name = 'notes'") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT body FROM noted") == [[.text("first")]])
    }

    @Test func tablesThatCannotBeMergedAreNamedOnce() throws {
        let fixture = try MergeFixture(
            shared: """
                CREATE TABLE plain (a, b); INSERT INTO plain VALUES (1, 2);
                CREATE TABLE quiet (a); INSERT INTO quiet VALUES (1);
                CREATE VIRTUAL TABLE search USING fts5(body); INSERT INTO search VALUES ('hello');
                """,
            user: "INSERT INTO plain VALUES (3, 4); INSERT INTO quiet VALUES (2); INSERT INTO search VALUES ('mine');")
        let result = try fixture.merge(MergePolicies(default: .userWins, tables: ["quiet": .off]))
        #expect(result.unmergedTables == ["plain", "search"])
        #expect(try fixture.rows("SELECT * FROM plain") == [[.integer(1), .integer(2)]])
        let warnings = fixture.logs.messages.filter { $0.contains("not merged") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"plain\"") == true && warnings.first?.contains("\"search\"") == true)
        #expect(warnings.first?.contains("quiet") == false)
        #expect(warnings.first?.contains("search_data") == false)
    }

    @Test func autoincrementCountersNeverGoBackAndAreNotWarnedAbout() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT); INSERT INTO items (name) VALUES ('a'), ('b');",
            user: "INSERT INTO items (name) VALUES ('c'), ('d'); DELETE FROM items WHERE id = 4;",
            seed: "INSERT INTO items (name) VALUES ('seed');")
        try fixture.merge(MergePolicies(default: .seedWins))
        #expect(try fixture.rows("SELECT seq FROM sqlite_sequence WHERE name = 'items'") == [[.integer(4)]])
        #expect(fixture.logs.messages.isEmpty)
    }

    @Test func statisticsTheAppGatheredAreNamedAsNotMerged() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX items_name ON items (name); INSERT INTO items VALUES (1, 'a'), (2, 'b'); ANALYZE;",
            user: "INSERT INTO items VALUES (3, 'c'); ANALYZE;")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(result.unmergedTables == ["sqlite_stat1"])
    }

    @Test(arguments: [false, true])
    func fullTextSearchMatchesTheMergedRows(triggers: Bool) throws {
        let keep = """
            CREATE TRIGGER levels_ai AFTER INSERT ON levels BEGIN INSERT INTO levels_fts (rowid, background) VALUES (new.id, new.background); END;
            CREATE TRIGGER levels_ad AFTER DELETE ON levels BEGIN INSERT INTO levels_fts (levels_fts, rowid, background) VALUES ('delete', old.id, old.background); END;
            CREATE TRIGGER levels_au AFTER UPDATE ON levels BEGIN
              INSERT INTO levels_fts (levels_fts, rowid, background) VALUES ('delete', old.id, old.background);
              INSERT INTO levels_fts (rowid, background) VALUES (new.id, new.background);
            END;
            """
        let fixture = try MergeFixture(
            shared: """
                CREATE TABLE levels (id INTEGER PRIMARY KEY, background TEXT);
                CREATE VIRTUAL TABLE levels_fts USING fts5(background, content='levels', content_rowid='id');
                \(triggers ? keep : "")
                INSERT INTO levels VALUES (1, 'forest'), (2, 'desert'), (3, 'ocean');
                INSERT INTO levels_fts (levels_fts) VALUES ('rebuild');
                """,
            user: "UPDATE levels SET background = 'volcano' WHERE id = 2; INSERT INTO levels VALUES (4, 'glacier'); DELETE FROM levels WHERE id = 3;",
            seed: "UPDATE levels SET background = 'jungle' WHERE id = 1; INSERT INTO levels_fts (levels_fts) VALUES ('rebuild');")
        try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.rows("SELECT rowid FROM levels_fts WHERE levels_fts MATCH 'volcano'") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT rowid FROM levels_fts WHERE levels_fts MATCH 'glacier'") == [[.integer(4)]])
        #expect(try fixture.rows("SELECT rowid FROM levels_fts WHERE levels_fts MATCH 'jungle'") == [[.integer(1)]])
        #expect(try fixture.rows("SELECT rowid FROM levels_fts WHERE levels_fts MATCH 'desert OR ocean'") == [])
        let check: String? = try fixture.value("SELECT 'ok' FROM levels_fts WHERE levels_fts MATCH 'volcano'")
        #expect(check == "ok")
        try fixture.run("INSERT INTO levels_fts (levels_fts) VALUES ('integrity-check')", on: fixture.staged)
        // An index that follows a merged table is not reported as unmerged.
        #expect(!fixture.logs.messages.contains { $0.contains("levels_fts") })
    }

    @Test func theAppsOwnFullTextTableIsCarried() throws {
        let fixture = try MergeFixture(
            shared: Self.levels,
            user: "CREATE VIRTUAL TABLE my_search USING fts5(body); INSERT INTO my_search (rowid, body) VALUES (4, 'hello world');")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(result.carriedTables == ["my_search"])
        #expect(try fixture.rows("SELECT rowid, body FROM my_search WHERE my_search MATCH 'hello'") == [[.integer(4), .text("hello world")]])
    }

    @Test func aTableTheSeedDroppedIsGoneWithAWarningWhenTheUserEditedIt() throws {
        let fixture = try MergeFixture(
            base: Self.levels + "CREATE TABLE old (id INTEGER PRIMARY KEY, v); INSERT INTO old VALUES (1, 'a');",
            user: "UPDATE old SET v = 'b';",
            seed: Self.levels)
        try fixture.merge(MergePolicies(default: .userWins))
        let old: Int? = try fixture.value("SELECT count(*) FROM sqlite_master WHERE name = 'old'")
        #expect(old == 0)
        #expect(fixture.logs.messages.contains { $0.contains("\"old\"") && $0.contains("gone") })
    }

    @Test func aUsersRowPointingAtARowTheSeedDeletedFailsTheMerge() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE levels (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO levels VALUES (1, 'one'), (3, 'three');",
            user: "CREATE TABLE notes (id INTEGER PRIMARY KEY, level_id INTEGER REFERENCES levels (id), body TEXT); INSERT INTO notes VALUES (7, 3, 'mine');",
            seed: "DELETE FROM levels WHERE id = 3;")
        let error = try #require(throws: SeedDBError.self) { try fixture.merge(MergePolicies(default: .userWins)) }
        #expect(error.code == .invalidSeed)
        #expect(error.message.contains("\"notes\""))
        #expect(error.message.contains("id=7"))
        #expect(error.message.contains("\"levels\""))
        #expect(try fixture.dump() == fixture.dump(fixture.seed))
    }

    @Test func foreignKeyViolationInAWithoutRowidTableNamesItsKey() throws {
        let fixture = try MergeFixture(
            shared: """
                CREATE TABLE levels (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO levels VALUES (1, 'one'), (3, 'three');
                CREATE TABLE stars (player TEXT, level INTEGER REFERENCES levels (id), n INTEGER, PRIMARY KEY (player, level)) WITHOUT ROWID;
                INSERT INTO stars VALUES ('ann', 1, 1);
                """,
            user: "INSERT INTO stars VALUES ('bob', 3, 2);",
            seed: "DELETE FROM levels WHERE id = 3;")
        let error = try #require(throws: SeedDBError.self) { try fixture.merge(MergePolicies(default: .userWins)) }
        #expect(error.message.contains("\"stars\""))
        #expect(error.message.contains("key [level=3,player=\"bob\"]"))
    }

    /// Without a base nothing tells what the user changed: every row of the user's copy
    /// stays, each cell that differs from the seed is a conflict the policy resolves, the
    /// seed's other rows come in (a row the user deleted comes back), the app's tables are
    /// carried.
    @Test func withoutBaseNothingOfTheUsersIsLost() throws {
        let fixture = try MergeFixture(
            shared: Self.levels + "CREATE TABLE favorites (level_id INTEGER PRIMARY KEY);",
            user: Self.userEdits + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'n'); INSERT INTO favorites VALUES (2);",
            seed: Self.seedEdits)
        let seedRows = try fixture.rows("SELECT * FROM levels WHERE id IN (3, 5) ORDER BY id", in: fixture.seed)
        let userRows = try fixture.rows("SELECT * FROM levels ORDER BY id", in: fixture.user)
        let result = try fixture.merge(MergePolicies(default: .userWins), withBase: false)
        let merged = try fixture.rows("SELECT * FROM levels ORDER BY id")
        #expect(Set(merged.map { "\($0)" }) == Set((userRows + seedRows).map { "\($0)" }))
        #expect(try fixture.rows("SELECT * FROM notes") == [[.integer(1), .text("n")]])
        #expect(try fixture.rows("SELECT * FROM favorites") == [[.integer(2)]])
        #expect(result.carriedTables == ["favorites", "notes"])
        var expected = MergeSummary(inserted: 3, updated: 4, deleted: 0, conflicts: 5)
        expected.withoutBase = true
        #expect(result.summary == expected)
        #expect(result.conflicts.allSatisfy { $0.base == .noColumn && $0.kept == .user })
    }

    @Test func withoutBaseFailRefuses() throws {
        let fixture = try fixture()
        let error = try #require(throws: SeedDBError.self) { try fixture.merge(MergePolicies(default: .userWins, tables: ["levels": .fail]), withBase: false) }
        #expect(error.code == .mergeRefused)
        #expect(try fixture.dump() == fixture.dump(fixture.seed))
    }

    @Test func mergesOnTheCallersConnectionInsideItsTransaction() throws {
        // The caller holds a transaction on the working copy and attached the other two.
        let fixture = try MergeFixture(shared: Self.levels,
                                       user: Self.userEdits + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX notes_body ON notes (body); INSERT INTO notes VALUES (1, 'n');",
                                       seed: Self.seedEdits)
        try FileManager.default.copyItem(atPath: fixture.seed, toPath: fixture.staged)
        let queue = try DatabaseQueue(path: fixture.user)
        let result = try queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS staged", arguments: [fixture.staged])
            try db.execute(sql: "ATTACH DATABASE ? AS pristine", arguments: [fixture.base])
            var result: MergeResult?
            try db.inTransaction(.immediate) {
                result = try ThreeWayMerge(policies: MergePolicies(default: .userWins), logger: fixture.logs.logger)
                    .merge(in: db, base: "pristine", user: "main", into: "staged")
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE staged; DETACH DATABASE pristine")
            return result!
        }
        try queue.close()
        #expect(result.summary == MergeSummary(inserted: 3, updated: 4, deleted: 3, conflicts: 4))
        #expect(try fixture.rows("SELECT * FROM notes") == [[.integer(1), .text("n")]])
        #expect(try fixture.rows("SELECT name FROM sqlite_master WHERE name = 'notes_body'") == [[.text("notes_body")]])
        #expect(try names(fixture)[102] == "user's 0")
    }

    @Test func mergingTwiceGivesTheSameBytesOfUserData() throws {
        let fixture = try fixture()
        try fixture.merge(MergePolicies(default: .userWins))
        let first = try fixture.dump()
        try fixture.merge(MergePolicies(default: .userWins))
        #expect(try fixture.dump() == first)
    }

    @Test func aMissingFileIsNotAMerge() throws {
        let fixture = try fixture()
        try FileManager.default.removeItem(atPath: fixture.user)
        let error = try #require(throws: SeedDBError.self) { try fixture.merge(MergePolicies(default: .userWins)) }
        #expect(error.code != .invalidSeed)
    }
}
