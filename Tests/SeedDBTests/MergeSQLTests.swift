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
}
