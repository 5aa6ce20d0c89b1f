import GRDB
@testable import SeedDB
import Testing

@Suite struct MergeSQLTests {
    @Test(arguments: [
        ("CREATE TABLE notes (id INTEGER PRIMARY KEY)", #"CREATE TABLE "staged".notes (id INTEGER PRIMARY KEY)"#),
        (#"CREATE TABLE "my notes"(a)"#, #"CREATE TABLE "staged"."my notes"(a)"#),
        ("CREATE UNIQUE INDEX i ON t (a)", #"CREATE UNIQUE INDEX "staged".i ON t (a)"#),
        ("CREATE TRIGGER IF NOT EXISTS tr AFTER INSERT ON t BEGIN SELECT 1; END", #"CREATE TRIGGER IF NOT EXISTS "staged".tr AFTER INSERT ON t BEGIN SELECT 1; END"#),
        ("CREATE VIRTUAL TABLE f USING fts5(a)", #"CREATE VIRTUAL TABLE "staged".f USING fts5(a)"#),
        ("CREATE VIEW v AS SELECT 1", #"CREATE VIEW "staged".v AS SELECT 1"#),
        ("CREATE /* note */ TABLE [x](a)", #"CREATE /* note */ TABLE "staged".[x](a)"#),
    ])
    func qualifiesTheCreatedObject(_ sql: String, _ expected: String) {
        #expect(MergeSQL.create(sql, in: "staged") == expected)
        #expect(MergeSQL.create(sql, in: "main") == sql)
    }

    /// The definitions of a `CREATE TABLE` statement, as SQLite keeps the app's text: commas
    /// and parentheses inside quotes, comments and expressions do not split them.
    @Test(arguments: [
        ("CREATE TABLE t (id INTEGER PRIMARY KEY, w TEXT)", ["id INTEGER PRIMARY KEY", "w TEXT"]),
        (#"CREATE TABLE "a(b" (x TEXT DEFAULT 'p,q', "y,z" INT CHECK (y IN (1, 2)), PRIMARY KEY (x))"#,
         [#"x TEXT DEFAULT 'p,q'"#, #""y,z" INT CHECK (y IN (1, 2))"#, "PRIMARY KEY (x)"]),
        ("CREATE TABLE t (a, -- one, two\n b /* c, d */, [e,f] GENERATED ALWAYS AS (a || ',') VIRTUAL) WITHOUT ROWID",
         ["a", "-- one, two\n b /* c, d */", "[e,f] GENERATED ALWAYS AS (a || ',') VIRTUAL"]),
        ("CREATE TABLE t AS SELECT 1", []),
    ])
    func readsATablesDefinitions(_ sql: String, _ expected: [String]) {
        #expect(MergeSQL.tableDefinitions(sql) == expected)
    }

    @Test(arguments: [
        ("CREATE VIRTUAL TABLE f USING fts5(body, content='levels', content_rowid='id')", "levels"),
        ("CREATE VIRTUAL TABLE f USING FTS5(body, content=\"my levels\")", "my levels"),
        ("CREATE VIRTUAL TABLE f USING fts4(body, content=levels)", "levels"),
        ("CREATE VIRTUAL TABLE f USING fts5(body, content='')", ""),
        ("CREATE VIRTUAL TABLE f USING fts5(body, content_rowid='id')", nil),
        ("CREATE VIRTUAL TABLE f USING fts5(body)", nil),
        ("CREATE VIRTUAL TABLE r USING rtree(id, x0, x1)", nil),
    ] as [(String, String?)])
    func readsTheFullTextContentTable(_ sql: String, _ expected: String?) {
        #expect(MergeSQL.fullTextContentTable(sql) == expected)
    }

    @Test(arguments: [
        ("INTEGER", MergeSQL.Affinity.integer), ("BIGINT", .integer), ("VARCHAR(20)", .text), ("TEXT", .text),
        ("CLOB", .text), ("BLOB", .blob), ("", .blob), ("REAL", .real), ("DOUBLE PRECISION", .real),
        ("FLOAT", .real), ("NUMERIC", .numeric), ("DECIMAL(10,5)", .numeric), ("BOOLEAN", .numeric),
        ("DATE", .numeric), ("CHARINT", .integer), ("FLOATING POINT", .integer), ("ANY", .numeric),
    ])
    func affinityFollowsSQLitesRules(_ type: String, _ expected: MergeSQL.Affinity) {
        #expect(MergeSQL.Affinity(declaredType: type) == expected)
    }

    /// The reasoning behind leaving `typeof` out, checked on SQLite itself: in two columns
    /// of one affinity (`INTEGER`, `NUMERIC`, `REAL`, `TEXT`), `IS` finds two stored values
    /// equal exactly when they are the same storage class and value; without affinity it
    /// does not (`1` and `1.0`), so there `typeof` stays.
    @Test(arguments: ["INTEGER", "NUMERIC", "REAL", "TEXT", "BLOB", ""])
    func isIsExactWithinOneAffinity(_ type: String) throws {
        let values = ["1", "1.0", "'1'", "'1.0'", "x'31'", "1.5", "'abc'", "x'616263'", "NULL", "1152921504606846976.0",
                      "1152921504606846976", "9223372036854775807", "9.3e18", "'  1'", "-0.0", "0"]
        let queue = try DatabaseQueue()
        let mixedUp = try queue.write { db in
            try db.execute(sql: "CREATE TABLE a (v \(type)); CREATE TABLE b (v \(type))")
            for value in values { try db.execute(sql: "INSERT INTO a VALUES (\(value)); INSERT INTO b VALUES (\(value))") }
            return try Int.fetchOne(db, sql: """
                SELECT count(*) FROM a, b WHERE (a.v IS b.v COLLATE BINARY) AND NOT \(MergeSQL.same("a.v", "b.v"))
                """) ?? -1
        }
        let column = MergeCatalog.Column(name: "v", type: type, notNull: false, defaultSQL: nil, primaryKeyIndex: 0, generated: false)
        #expect((mixedUp > 0) == MergeSQL.storageClassesMayDiffer(column, column), "\(type): \(mixedUp) pairs IS calls equal in different storage classes")
    }

    @Test func columnsOfDifferentAffinitiesOrAnyKeepTheTypeCheck() {
        func column(_ type: String) -> MergeCatalog.Column {
            MergeCatalog.Column(name: "v", type: type, notNull: false, defaultSQL: nil, primaryKeyIndex: 0, generated: false)
        }
        #expect(!MergeSQL.storageClassesMayDiffer(column("INTEGER"), column("INT")))
        #expect(MergeSQL.storageClassesMayDiffer(column("INTEGER"), column("REAL")))
        #expect(MergeSQL.storageClassesMayDiffer(column("ANY"), column("ANY")))
        #expect(MergeSQL.same("a", "b", storageClassesMayDiffer: false) == "((a) IS (b) COLLATE BINARY)")
    }

    /// The tables a trigger's body writes to, by its words: not a name inside a longer one,
    /// a string or a comment, nor the table the trigger is on.
    @Test(arguments: [
        ("CREATE TRIGGER t AFTER INSERT ON zitems BEGIN INSERT INTO log (msg) VALUES ('added ' || new.id); END", ["log"]),
        ("CREATE TRIGGER t AFTER UPDATE ON notes_meta BEGIN UPDATE notes_meta SET touched = 1 WHERE id = new.id; END", ["notes_meta"]),
        ("CREATE TRIGGER ft AFTER DELETE ON a BEGIN DELETE FROM \"Full Text\" WHERE rowid = old.id; END", ["full text"]),
        ("CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT OR REPLACE INTO main.[Idx] VALUES (new.x); UPDATE OR IGNORE `B` SET y = 1; END", ["idx", "b"]),
        ("CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 'insert into x'; -- delete from y\n /* update z */ END", []),
        ("CREATE TRIGGER t AFTER INSERT ON notes BEGIN SELECT 1; END", []),
    ])
    func aTriggersWrittenTablesAreTheTargetsOfItsStatements(_ sql: String, _ tables: [String]) {
        #expect(MergeSQL.tablesWritten(byTrigger: sql) == Set(tables))
    }

    @Test func tokensAreWordsQuotedNamesAndPunctuation() {
        let tokens = MergeSQL.tokens("SELECT \"a\"\"b\", [c d], 'text', x_1 -- note\n/* more */ FROM t;")
        #expect(tokens.map(\.text) == ["select", "a\"b", ",", "c d", ",", ",", "x_1", "from", "t", ";"])
        #expect(tokens.filter(\.quoted).map(\.text) == ["a\"b", "c d"])
    }
}
