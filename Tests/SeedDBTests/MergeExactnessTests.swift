import Foundation
import GRDB
@testable import SeedDB
import SeedDBCore
import Testing

/// What a merge and the table digests tell apart exactly: a text past a NUL byte (GRDB's
/// `String` ends there), a full-text table's rows (by its shadow tables), the tables the
/// merge leaves to the new seed that the user changed, and the header's `user_version`.
@Suite struct MergeExactnessTests {
    @Test func aTextEditAfterANulByteIsTheUsersEdit() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'a'), (2, 'b'), (3, 'c');",
            user: "UPDATE words SET word = CAST(x'6200' AS TEXT) WHERE id = 2; UPDATE words SET word = CAST(x'630041' AS TEXT) WHERE id = 3;",
            seed: "INSERT INTO words VALUES (4, 'd');")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(result.summary.updated == 2, "both edits are the user's: \(result.summary)")
        #expect(try fixture.rows("SELECT id, hex(word) FROM words ORDER BY id")
            == [[.integer(1), .text("61")], [.integer(2), .text("6200")], [.integer(3), .text("630041")], [.integer(4), .text("64")]])
    }

    @Test func twoTextsThatAreNotValidUTF8StayApart() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, CAST(x'41FF' AS TEXT));",
            user: "UPDATE words SET word = CAST(x'41FE' AS TEXT) WHERE id = 1;",
            seed: "INSERT INTO words VALUES (2, 'b');")
        let result = try fixture.merge(MergePolicies(default: .userWins))
        #expect(result.summary.updated == 1, "\(result.summary)")
        #expect(try fixture.rows("SELECT hex(word) FROM words WHERE id = 1") == [[.text("41FE")]])
        #expect(SQLiteText.string(exactly: [0x41, 0xFF]) != SQLiteText.string(exactly: [0x41, 0xFE]))
        #expect(SQLiteText.string(exactly: Array("é\u{0}".utf8)) == "é\u{0}")
    }

    @Test func aSeedChangeAfterANulByteMeetsTheUsersChange() throws {
        let fixture = try MergeFixture(
            shared: "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'a');",
            user: "UPDATE words SET word = 'b' WHERE id = 1;",
            seed: "UPDATE words SET word = CAST(x'6100' AS TEXT) WHERE id = 1;")
        let result = try fixture.merge(MergePolicies(default: .seedWins))
        #expect(result.summary.conflicts == 1, "both changed the cell: \(result.summary)")
        #expect(try fixture.rows("SELECT hex(word) FROM words") == [[.text("6100")]], "seed-wins keeps the seed's, NUL and all")
    }

    @Test func digestsTellTextsApartAfterANulByteAndCoverFullTextTables() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('b');
                CREATE VIRTUAL TABLE search USING fts5(body); INSERT INTO search VALUES ('hello');
                CREATE VIRTUAL TABLE search_more USING fts5(body);
                """)
            let before = try TableDigest.digests(in: "main", db: db)
            #expect(Set(before.keys) == ["t", "search", "search_more"], "shadow tables are counted for their virtual table, not on their own")
            try db.execute(sql: "UPDATE t SET x = CAST(x'6200' AS TEXT); INSERT INTO search VALUES ('mine')")
            let after = try TableDigest.digests(in: "main", db: db)
            #expect(after["t"] != before["t"])
            #expect(after["search"] != before["search"])
            #expect(after["search_more"] == before["search_more"])
            try db.execute(sql: "INSERT INTO search_more VALUES ('more')")
            let more = try TableDigest.digests(in: "main", db: db)
            #expect(more["search_more"] != after["search_more"])
            #expect(more["search"] == after["search"], "search_more's shadow tables are its own, not search's")
        }
    }

    @Test func tablesTheMergeCannotMergeAreNamedOnlyWhenTheUserChangedThem() throws {
        let shared = """
            CREATE TABLE plain (a, b); INSERT INTO plain VALUES (1, 2);
            CREATE VIRTUAL TABLE search USING fts5(body); INSERT INTO search VALUES ('hello');
            CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'a');
            """
        let untouched = try MergeFixture(shared: shared, user: "UPDATE words SET word = 'mine';")
        #expect(try untouched.merge(MergePolicies(default: .userWins)).unmergedTables == [])
        #expect(!untouched.logs.messages.contains { $0.contains("not merged") })

        let written = try MergeFixture(shared: shared, user: "INSERT INTO search VALUES ('mine');")
        #expect(try written.merge(MergePolicies(default: .userWins)).unmergedTables == ["search"])

        // Without a base, which changed is not known: a table without a primary key is
        // named all the same (a virtual one is not warned about without a base).
        let withoutBase = try MergeFixture(shared: shared)
        let unmerged = try withoutBase.merge(MergePolicies(default: .userWins), withBase: false).unmergedTables
        #expect(unmerged == ["plain"], "\(unmerged)")
    }

    /// `(base, user, seed, policies, with a base, expected)`.
    static let userVersions: [(Int, Int, Int, MergePolicies, Bool, Int)] = [
        (0, 1, 0, MergePolicies(default: .userWins), true, 1), // the app's migration
        (0, 1, 0, MergePolicies(default: .seedWins), true, 1), // the user's alone, whatever the policy
        (0, 0, 5, MergePolicies(default: .userWins), true, 5), // the seed's alone
        (0, 1, 5, MergePolicies(default: .userWins), true, 5), // both changed it: the larger
        (0, 7, 5, MergePolicies(default: .seedWins), true, 7),
        (0, 1, 0, MergePolicies(default: .off), true, 0), // merging nothing: the seed's header
        (0, 1, 0, MergePolicies(default: .off, tables: ["words": .userWins]), true, 1), // one table merges
        (1, 1, 2, MergePolicies(default: .userWins), false, 2), // no base, the seed ahead
        (0, 2, 0, MergePolicies(default: .userWins), false, 2), // no base, the user ahead
    ]

    @Test(arguments: userVersions.indices) func theUserVersionIsMergedAsOneMoreCell(_ index: Int) throws {
        let (base, user, seed, policies, withBase, expected) = Self.userVersions[index]
        let fixture = try MergeFixture(
            shared: "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'a'); PRAGMA user_version = \(base);",
            user: "PRAGMA user_version = \(user);",
            seed: "PRAGMA user_version = \(seed);")
        try fixture.merge(policies, withBase: withBase)
        #expect(try fixture.value("PRAGMA user_version") == expected)
    }
}
