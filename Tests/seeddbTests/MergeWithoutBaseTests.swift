import Foundation
import Testing

/// Merging turned on in a later release (no merge base yet) never loses a row the user
/// inserted: rows only in the user's copy stay (conflicts under `fail`), cells that differ
/// from the new seed are conflicts the policy resolves, and the line says the merge had
/// no base. A conflict's JSON shows only the columns each side has.
@Suite struct MergeWithoutBaseTests {
    let cli = CLIHarness()

    private func sql(_ statement: String) throws -> String {
        let result = try cli.shell("sqlite3 '\(cli.workingCopy)' \"\(statement)\"")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// v1 deployed without merging (no base kept), then the user's edits: a background v2
    /// also changes, a new level, and a column of the app's own.
    private func deployV1WithoutMergingAndEdit() throws {
        #expect(try cli.run(["deploy", "--merge", "off"] + cli.seedFlags(1)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.appData + "/levels.sqlite.base"))
        _ = try sql("""
            UPDATE levels SET background = 'my cave' WHERE ix = 2;
            INSERT INTO levels(ix, background, map) SELECT 100, 'mine', map FROM levels WHERE ix = 1;
            ALTER TABLE levels ADD COLUMN favorite INTEGER;
            UPDATE levels SET favorite = 1, background = 'fav' WHERE ix = 3;
            """)
    }

    @Test func userWinsKeepsTheUsersRowsAndCellsAndSaysThereWasNoBase() throws {
        try deployV1WithoutMergingAndEdit()
        let result = try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("merged without a base: "), "\(result.stdout)")
        #expect(try sql("SELECT background FROM levels WHERE ix = 100") == "mine")
        #expect(try sql("SELECT background FROM levels WHERE ix = 2") == "my cave")
        #expect(try sql("SELECT favorite FROM levels WHERE ix = 3") == "1")
        #expect(try sql("SELECT background FROM levels WHERE ix = 4") == "meadow", "no base tells the seed changed it: a conflict, the user's kept")
        let json = try cli.run(["deploy", "--json", "--merge", "user-wins"] + cli.seedFlags(2))
        #expect(json.status == 0)
        let conflicts = try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).json()
        let list = try #require((conflicts["seeds"] as? [[String: Any]])?.first?["conflicts"] as? [[String: Any]])
        let cave = try #require(list.first { ($0["key"] as? [String: Any])?["ix"] as? Int == 2 && $0["column"] as? String == "background" })
        #expect(cave["base"] == nil, "no base: the side is left out, not null")
        #expect(cave["user"] as? String == "my cave" && cave["seed"] as? String == "cave-hd" && cave["kept"] as? String == "user")
        let human = try cli.run(["conflicts"] + cli.seedFlags(2)).stdout
        #expect(human.contains(#"background: base (absent), user "my cave", seed "cave-hd"; kept the user's"#), "\(human)")
    }

    /// Without a base, a table the user never changed (its digest is still the one
    /// recorded with v1) takes v2's rows: its cells that differ from v2 are v1's, not the
    /// user's. The table the user did change merges without a base as before.
    @Test func aTableTheUserLeftAloneTakesTheNewSeedsRowsWithoutABase() throws {
        let (v1, v2) = (cli.root + "/v1/s.sqlite", cli.root + "/v2/s.sqlite")
        #expect(try cli.shell("""
            mkdir -p '\(cli.root)/v1' '\(cli.root)/v2' && sqlite3 '\(v1)' "CREATE TABLE words(id INTEGER PRIMARY KEY, w); CREATE TABLE tags(id INTEGER PRIMARY KEY, t);
            INSERT INTO words VALUES (1, 'a'), (2, 'b'); INSERT INTO tags VALUES (1, 'x'), (2, 'y')" && cp '\(v1)' '\(v2)' &&
            sqlite3 '\(v2)' "UPDATE words SET w = 'B2' WHERE id = 2; UPDATE tags SET t = 'x2' WHERE id = 1; INSERT INTO tags VALUES (3, 'z')"
            """).status == 0)
        let workingCopy = cli.appData + "/s.sqlite"
        #expect(try cli.run(["deploy", "--merge", "off", "--app", cli.app, "--seed", v1, "--version", "1"]).status == 0)
        #expect(try cli.shell("sqlite3 '\(workingCopy)' \"UPDATE words SET w = 'mine' WHERE id = 1\"").status == 0)
        let result = try cli.run(["deploy", "--json", "--app", cli.app, "--seed", v2, "--version", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let merge = try #require(try result.seeds().first?["merge"] as? [String: Any], "\(result.stdout)")
        #expect(merge["withoutBase"] as? Bool == true)
        let rows = try cli.shell("sqlite3 '\(workingCopy)' \"SELECT group_concat(t, ',') FROM (SELECT t FROM tags ORDER BY id); SELECT group_concat(w, ',') FROM (SELECT w FROM words ORDER BY id)\"")
        #expect(rows.stdout == "x2,y,z\nmine,b\n", "tags was never written: v2's rows; words keeps the user's cells (no base tells v1's 'b' from an edit)")
    }

    /// Under `fail`, with only an app table written, no seed table is the user's: the
    /// dry run and the run both merge without conflict, the seed's changes, emptied and
    /// dropped tables included, stand.
    @Test func aFailMergeWithoutABaseIsNoConflictWhereTheUserLeftTheSeedTablesAlone() throws {
        let (v1, v2) = (cli.root + "/v1/s.sqlite", cli.root + "/v2/s.sqlite")
        #expect(try cli.shell("""
            mkdir -p '\(cli.root)/v1' '\(cli.root)/v2' && sqlite3 '\(v1)' "CREATE TABLE words(id INTEGER PRIMARY KEY, w); CREATE TABLE gone(id INTEGER PRIMARY KEY, g);
            CREATE TABLE emptied(id INTEGER PRIMARY KEY, e); INSERT INTO words VALUES (1, 'a'); INSERT INTO gone VALUES (1, 'g'); INSERT INTO emptied VALUES (1, 'e')" &&
            cp '\(v1)' '\(v2)' && sqlite3 '\(v2)' "UPDATE words SET w = 'A2'; DROP TABLE gone; DELETE FROM emptied"
            """).status == 0)
        let workingCopy = cli.appData + "/s.sqlite"
        let flags = ["--app", cli.app, "--seed", v2, "--version", "2", "--merge", "fail"]
        #expect(try cli.run(["deploy", "--merge", "off", "--app", cli.app, "--seed", v1, "--version", "1"]).status == 0)
        #expect(try cli.shell("sqlite3 '\(workingCopy)' \"CREATE TABLE notes(n); INSERT INTO notes VALUES ('mine')\"").status == 0)
        let planned = try cli.run(["deploy", "--dry-run"] + flags)
        #expect(planned.status == 0, "the dry run refuses what the run does not: \(planned.stderr)")
        let result = try cli.run(["deploy"] + flags)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try cli.shell("sqlite3 '\(workingCopy)' \"SELECT w FROM words; SELECT count(*) FROM emptied; SELECT count(*) FROM sqlite_schema WHERE name = 'gone'; SELECT n FROM notes\"")
        #expect(rows.stdout == "A2\n0\n0\nmine\n", "\(rows.stdout) \(rows.stderr)")
    }

    @Test func seedWinsTakesTheSeedsCellsButKeepsTheUsersRows() throws {
        try deployV1WithoutMergingAndEdit()
        let result = try cli.run(["deploy", "--json", "--merge", "seed-wins"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        let merge = try #require(try result.seeds().first?["merge"] as? [String: Any])
        #expect(merge["withoutBase"] as? Bool == true)
        #expect(try sql("SELECT background FROM levels WHERE ix = 100") == "mine")
        #expect(try sql("SELECT background FROM levels WHERE ix = 2") == "cave-hd")
        #expect(try sql("SELECT background FROM levels WHERE ix = 4") == "glacier")
    }

    @Test func failRefusesNamingTheConflictsAndChangesNothing() throws {
        try deployV1WithoutMergingAndEdit()
        let settings = cli.bytes(cli.settingsFile)
        let dryRun = try cli.run(["deploy", "--dry-run", "--merge", "fail"] + cli.seedFlags(2))
        #expect(dryRun.status == 65, "\(dryRun.stderr)")
        // The run's words, but no `seeddb conflicts` to run: a dry run writes no conflicts
        // file (it pointed there, and named no path; found by a contract probe).
        let refusal = try #require(dryRun.stderr.split(separator: "\n").last)
        #expect(refusal.hasPrefix("seeddb: error: cannot carry the user's data into \(cli.workingCopy): merge refused"), "\(dryRun.stderr)")
        #expect(!dryRun.stderr.contains("seeddb conflicts"), "\(dryRun.stderr)")
        #expect(try cli.run(["conflicts"] + cli.seedFlags(2)).stdout == "levels.sqlite: no merge has run\n")
        let result = try cli.run(["deploy", "--merge", "fail"] + cli.seedFlags(2))
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("seeddb conflicts"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot carry the user's data into \(cli.workingCopy): merge refused"), "\(result.stderr)")
        // The warning promises nothing the refused run does not do: no base is kept.
        let warning = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("seeddb: warning: merge base ") })
        #expect(warning.hasSuffix("is not known for the old copy (it was deployed with merging off, or a rollback could not restore its base): merging without a base (a cell that differs from the new seed is a conflict); once a deploy succeeds, its base is kept for the next upgrade"), "\(warning)")
        #expect(!cli.list(cli.appData).contains { $0.hasSuffix(".base") }, "\(cli.list(cli.appData))")
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(try sql("SELECT background FROM levels WHERE ix = 100") == "mine")
        let conflicts = try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).json()
        let list = try #require((conflicts["seeds"] as? [[String: Any]])?.first?["conflicts"] as? [[String: Any]])
        #expect(list.contains { ($0["key"] as? [String: Any])?["ix"] as? Int == 100 && $0["column"] is NSNull }, "the user's row is a conflict")
    }

    @Test func failMergesWhenOnlyTheAppsColumnDiffers() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        _ = try sql("ALTER TABLE levels ADD COLUMN favorite INTEGER; UPDATE levels SET favorite = 1 WHERE ix = 3;")
        // The same levels again, as version 2 of the same content: only the app's column differs.
        let result = try cli.run(["deploy", "--merge", "fail", "--app", cli.app, "--seed", "\(CLIHarness.seeds)/v1/levels.sqlite", "--version", "1b"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sql("SELECT favorite FROM levels WHERE ix = 3") == "1")
    }

    @Test func aColumnOnlyTheAppHasIsLeftOutOfTheBaseAndSeedSides() throws {
        // With a base: v1 merged (base kept), the app adds a column, v2 changes the row.
        #expect(try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(1)).status == 0)
        _ = try sql("ALTER TABLE levels ADD COLUMN note TEXT; DELETE FROM levels WHERE ix = 4; UPDATE levels SET background = 'mine' WHERE ix = 2;")
        #expect(try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(2)).status == 0)
        let conflicts = try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).json()
        let list = try #require((conflicts["seeds"] as? [[String: Any]])?.first?["conflicts"] as? [[String: Any]])
        let deleted = try #require(list.first { ($0["key"] as? [String: Any])?["ix"] as? Int == 4 })
        let base = try #require(deleted["base"] as? [String: Any])
        let seed = try #require(deleted["seed"] as? [String: Any])
        #expect(base["note"] == nil && seed["note"] == nil, "note is the app's column: neither the base nor the seed has it")
        #expect(deleted["user"] is NSNull, "the user deleted the row")
    }
}
