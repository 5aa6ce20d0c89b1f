import Foundation
import Testing

/// Issue 30, item 1: nothing the user wrote is lost by default. A `data` seed merges with
/// `user-wins` unless it says otherwise; `"merge": "off"` replaces and names the tables it
/// replaced; a working copy nobody wrote takes the plain replace; `reseed` follows the
/// policy and `reseed --merge off` gets the seed's own rows back.
@Suite struct DefaultMergeTests {
    let cli = CLIHarness()

    /// Seeds v1 and v2 with three seed tables (`tags`, `words`, `other`); v2 changes a row
    /// of each.
    func makeSeeds() throws {
        try makeSeeds { version in """
            CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT);
            CREATE TABLE other (id INTEGER PRIMARY KEY, x TEXT);
            INSERT INTO tags VALUES (1, 'a\(version)'), (2, 'b'), (3, 'c');
            INSERT INTO words VALUES (1, 'w\(version)'), (2, 'x');
            INSERT INTO other VALUES (1, 'o\(version)');
            """
        }
    }

    /// Seeds v1 and v2, each made by the statements `schema` gives for its version.
    func makeSeeds(_ schema: (Int) -> String) throws {
        for version in 1...2 {
            let made = try cli.shell("mkdir -p '\(cli.root)/seeds' && sqlite3 '\(cli.root)/seeds/v\(version).sqlite' \"\(schema(version))\"")
            #expect(made.status == 0, "\(made.stderr)")
        }
    }

    /// A manifest of seed `version`, with `extra` JSON members in its seed entry.
    func manifest(_ version: Int, _ extra: String = "") throws -> String {
        let path = "\(cli.root)/seeds/v\(version).json"
        let text = #"{"app":"\#(cli.app)","seeds":[{"source":"v\#(version).sqlite","name":"levels.sqlite","version":"\#(version)"\#(extra)}]}"#
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Flags for seed `version` with no `--merge`.
    func flags(_ version: Int) -> [String] {
        ["--app", cli.app, "--seed", "\(cli.root)/seeds/v\(version).sqlite", "--version", "\(version)", "--name", "levels.sqlite"]
    }

    func sql(_ statement: String) throws -> String {
        let result = try cli.shell("sqlite3 '\(cli.workingCopy)' \"\(statement)\"")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// The user's edit, insert and delete in two seed tables.
    func editTagsAndWords() throws {
        _ = try sql("UPDATE tags SET name = 'mine' WHERE id = 2; DELETE FROM tags WHERE id = 3; INSERT INTO words VALUES (3, 'new');")
    }

    @Test func theUsersEditInsertAndDeleteSurviveAnUpgradeWithNoMergeInTheManifest() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        try editTagsAndWords()
        let upgrade = try cli.run(["deploy", "--manifest", try manifest(2), "--json"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let entry = try #require(try upgrade.seeds().first)
        #expect(entry["merge"] != nil, "the default merges: \(upgrade.stdout)")
        #expect(entry["discarded"] == nil)
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|a2\n2|mine\n", "v2's change and the user's edit and deletion")
        #expect(try sql("SELECT id, word FROM words ORDER BY id") == "1|w2\n2|x\n3|new\n", "the user's insert")
        #expect(try sql("SELECT x FROM other") == "o2\n")
    }

    @Test func theDefaultOfFlagsMergesTooAndACacheSeedStillReplaces() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        try editTagsAndWords()
        #expect(try cli.run(["deploy"] + flags(2)).status == 0)
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "mine\n")

        func cache(_ version: Int) -> [String] {
            ["--app", cli.app, "--seed", "\(cli.root)/seeds/v\(version).sqlite", "--version", "\(version)", "--location", "cache", "--name", "cached.sqlite"]
        }
        #expect(try cli.run(["deploy"] + cache(1)).status == 0)
        let cached = cli.root + "/cache/" + cli.app + "/cached.sqlite"
        #expect(try cli.shell("sqlite3 '\(cached)' \"UPDATE tags SET name = 'mine' WHERE id = 2\"").status == 0)
        let upgrade = try cli.run(["deploy", "--json"] + cache(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try upgrade.seeds().first?["merge"] == nil, "a cache seed does not merge by default")
        #expect(try upgrade.seeds().first?["discarded"] == nil, "nor reports what it replaced: it can be regenerated")
        #expect(try cli.shell("sqlite3 '\(cached)' \"SELECT name FROM tags WHERE id = 2\"").stdout == "b\n")
    }

    @Test func mergeOffReplacesAndNamesTheTablesTheUserChanged() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1, #","merge":"off""#)]).status == 0)
        try editTagsAndWords()
        let upgrade = try cli.run(["deploy", "--manifest", try manifest(2, #","merge":"off""#)])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout == "levels.sqlite: replaced 1 -> 2 by swap (\(cli.workingCopy)); merge is off: the user's changes to 2 seed tables (tags, words) were replaced; the old copy is levels.sqlite.previous\n")
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|a2\n2|b\n3|c\n", "the seed's rows")
        let previous = try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT name FROM tags WHERE id = 2\"")
        #expect(previous.stdout == "mine\n", "the old copy keeps the user's edit")

        // The same in JSON, from a second run over a fresh edit.
        _ = try sql("UPDATE words SET word = 'again' WHERE id = 2")
        let reseed = try cli.run(["reseed", "--manifest", try manifest(2, #","merge":"off""#), "--json"])
        #expect(try reseed.seeds().first?["discarded"] as? [String] == ["words"], "\(reseed.stdout)")
    }

    /// With merging off, a rollback (or `--keep-previous false`) replaced the user's changes
    /// and kept no copy of them: the line said `the old copy was not kept` (found by a
    /// contract probe). The old copy is kept as an adopted copy, as a merging run keeps
    /// what it could not merge.
    @Test func mergeOffWithNoPreviousGenerationKeepsTheOldCopy() throws {
        try makeSeeds()
        let off = #","merge":"off""#
        #expect(try cli.run(["deploy", "--manifest", try manifest(1, off)]).status == 0)
        #expect(try cli.run(["deploy", "--manifest", try manifest(2, off)]).status == 0)
        _ = try sql("UPDATE words SET word = 'mine' WHERE id = 2")
        let rollback = try cli.run(["rollback", "--manifest", try manifest(2, off), "--json"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let entry = try #require(try rollback.seeds().first)
        #expect(entry["discarded"] as? [String] == ["words"], "\(rollback.stdout)")
        let kept = try #require(entry["oldCopyKeptAs"] as? String, "\(rollback.stdout)")
        #expect(try cli.shell("sqlite3 '\(kept)' \"SELECT word FROM words WHERE id = 2\"").stdout == "mine\n", "the old copy keeps the user's edit")

        _ = try sql("UPDATE words SET word = 'again' WHERE id = 2")
        // (The rollback holds version 1 while version 2 ships: a reseed replaces it.)
        let upgrade = try cli.run(["reseed", "--manifest", try manifest(2, off), "--keep-previous", "false"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout.contains("merge is off: the user's changes to 1 seed table (words) were replaced; the old copy is kept as levels.sqlite.adopted-"), "\(upgrade.stdout)")
        let directory = (cli.workingCopy as NSString).deletingLastPathComponent
        let adopted = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("levels.sqlite.adopted-") }
        let again = try adopted.map { try cli.shell("sqlite3 '\(directory)/\($0)' \"SELECT word FROM words WHERE id = 2\"").stdout }
        #expect(again.contains("again\n"), "\(adopted)")
    }

    /// A live replace killed after its commit, before its record (its seed's base not yet
    /// in place), then a deploy of the next version or a rollback: the run merged the copy
    /// against the old seed's base, so the killed seed's rows counted as the user's and won
    /// over the new seed's as conflicts (1,993 of them in a contract probe), or were carried
    /// into the restored copy, under a record of another version. The killed replace is
    /// done again first, from the copy of its seed it staged: either way the copy then
    /// holds that version with the user's changes, and the run merges against its base.
    @Test(arguments: ["deploy", "rollback"])
    func aLiveReplaceKilledAfterItsCommitIsDoneAgainFirst(next: String) throws {
        try cli.shell("mkdir -p '\(cli.root)/seeds'")
        for version in 1...3 {
            // Version 3 adds a table its manifest names (not in 2: the redo does not check it).
            let fresh = version == 3 ? " CREATE TABLE fresh (id INTEGER PRIMARY KEY); INSERT INTO fresh VALUES (1);" : ""
            let made = try cli.shell("sqlite3 '\(cli.root)/seeds/v\(version).sqlite' \"CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'w\(version)'), (2, 'x'); CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO tags VALUES (1, 'a\(version)');\(fresh)\"")
            #expect(made.status == 0, "\(made.stderr)")
        }
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        _ = try sql("UPDATE words SET word = 'mine' WHERE id = 2")
        let started = try cli.start(["reseed", "--manifest", try manifest(2), "--strategy", "live"], environment: ["SEEDDB_TEST_STOP_BEFORE": "record"])
        started.waitUntilStopped()
        started.signal(SIGKILL)
        _ = cli.finish(started)
        #expect(try sql("SELECT word FROM words WHERE id = 1") == "w2\n", "the killed replace committed")

        if next == "deploy" {
            let upgrade = try cli.run(["deploy", "--manifest", try manifest(3, #","mergeTables":{"fresh":"seed-wins"}"#), "--json"])
            #expect(upgrade.status == 0, "\(upgrade.stderr)")
            #expect((try upgrade.seeds().first?["merge"] as? [String: Any])?["conflicts"] as? Int == 0, "\(upgrade.stdout)")
            #expect(try sql("SELECT id, word FROM words ORDER BY id") == "1|w3\n2|mine\n", "the new seed's row, the user's edit")
            #expect(try sql("SELECT name FROM tags") == "a3\n")
            #expect(cli.settingsEntry()?["version"] as? String == "3")
        } else {
            let rollback = try cli.run(["rollback", "--manifest", try manifest(2)])
            #expect(rollback.status == 0, "\(rollback.stderr)")
            #expect(try sql("SELECT id, word FROM words ORDER BY id") == "1|w1\n2|mine\n", "version 1's row, the user's edit")
            #expect(try sql("SELECT name FROM tags") == "a1\n")
            #expect(cli.settingsEntry()?["version"] as? String == "1")
        }
    }

    /// A replace with merging off killed after its switch, finished by the next deploy:
    /// that run's line and JSON said nothing of the user's changes it had replaced (found
    /// by a contract probe). The finish names them, compared in the previous generation
    /// against the digests the old record took.
    @Test func aFinishedReplaceWithMergingOffNamesTheTablesItReplaced() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1, #","merge":"off""#)]).status == 0)
        try editTagsAndWords()
        let killed = try cli.run(["deploy", "--manifest", try manifest(2, #","merge":"off""#)], environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL)
        let finished = try cli.run(["deploy", "--manifest", try manifest(2, #","merge":"off""#), "--json"])
        #expect(finished.status == 0, "\(finished.stderr)")
        let entry = try #require(try finished.seeds().first)
        #expect(entry["action"] as? String == "replaced" && entry["discarded"] as? [String] == ["tags", "words"], "\(finished.stdout)")
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "b\n", "the seed's row")
        let previous = try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT name FROM tags WHERE id = 2\"")
        #expect(previous.stdout == "mine\n", "the old copy keeps the user's edit")
    }

    /// A merging upgrade killed after its switch, finished by the next deploy: that run's
    /// line and JSON said nothing of the merge, and `conflicts` said `no merge has run`
    /// (the conflicts file was written after the record). The killed run writes both down
    /// before its switch (its conflicts file, its carry in its marker); the finish reports
    /// them.
    @Test func aFinishedMergingUpgradeReportsItsMergeAndItsConflicts() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        // Row 1 of tags conflicts with v2's change of it; row 2 merges.
        _ = try sql("UPDATE tags SET name = 'u1' WHERE id = 1; UPDATE tags SET name = 'mine' WHERE id = 2")
        let killed = try cli.run(["deploy", "--manifest", try manifest(2)], environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL)
        let finished = try cli.run(["deploy", "--manifest", try manifest(2), "--json"])
        #expect(finished.status == 0, "\(finished.stderr)")
        let entry = try #require(try finished.seeds().first)
        #expect(entry["action"] as? String == "replaced", "\(finished.stdout)")
        let merge = try #require(entry["merge"] as? [String: Any], "\(finished.stdout)")
        #expect(merge["updated"] as? Int == 2 && merge["conflicts"] as? Int == 1, "\(finished.stdout)")
        let conflicts = try cli.run(["conflicts", "--manifest", try manifest(2)])
        #expect(conflicts.stdout.hasPrefix("levels.sqlite: 1 conflict in the last merge\n"), "\(conflicts.stdout)")
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|u1\n2|mine\n3|c\n")
    }

    /// A merging rollback killed after its switch: the run that finishes it keeps the
    /// conflicts file the rollback's merge wrote (a review found the finish removing it, as
    /// a rollback that merged nothing does), and reports the merge.
    @Test func aFinishedMergingRollbackKeepsItsConflicts() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        _ = try sql("UPDATE tags SET name = 'mine' WHERE id = 2")
        #expect(try cli.run(["deploy", "--manifest", try manifest(2)]).status == 0)
        // v2 changed row 1; the user changes it again: the rollback's merge meets v1's value.
        _ = try sql("UPDATE tags SET name = 'u1' WHERE id = 1")
        let killed = try cli.run(["rollback", "--manifest", try manifest(2)], environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL)
        let finished = try cli.run(["rollback", "--manifest", try manifest(2), "--json"])
        #expect(finished.status == 0, "\(finished.stderr)")
        let merge = try #require(try finished.seeds().first?["merge"] as? [String: Any], "\(finished.stdout)")
        #expect(merge["conflicts"] as? Int == 1, "\(finished.stdout)")
        let conflicts = try cli.run(["conflicts", "--manifest", try manifest(2)])
        #expect(conflicts.stdout.hasPrefix("levels.sqlite: 1 conflict in the last merge\n"), "\(conflicts.stdout)")
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|u1\n2|mine\n3|c\n")
    }

    /// A seed table the app dropped from its copy came back with the new seed's rows and
    /// nothing said (found by a contract probe), where merging off names it. The merge
    /// names it too, with a warning: its changes were replaced.
    @Test func aSeedTableTheAppDroppedIsNamedAsReplaced() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        _ = try sql("DROP TABLE other; UPDATE tags SET name = 'mine' WHERE id = 2")
        let upgrade = try cli.run(["deploy", "--manifest", try manifest(2), "--json"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let entry = try #require(try upgrade.seeds().first)
        #expect(entry["discarded"] as? [String] == ["other"], "\(upgrade.stdout)")
        #expect(upgrade.stderr.contains("not merged") && upgrade.stderr.contains("dropped from the user's copy"), "\(upgrade.stderr)")
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "mine\n", "the other tables merge")
        let previous = try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT count(*) FROM sqlite_schema WHERE name = 'other'\"")
        #expect(previous.stdout == "0\n", "the old copy, as the app left it")

        // A seed column the app dropped: named the same way.
        _ = try sql("ALTER TABLE words DROP COLUMN word")
        let reseed = try cli.run(["reseed", "--manifest", try manifest(2), "--json"])
        #expect(reseed.status == 0, "\(reseed.stderr)")
        #expect(try reseed.seeds().first?["discarded"] as? [String] == ["words"], "\(reseed.stdout)")
        #expect(reseed.stderr.contains("column \"word\" of table \"words\" is gone from the user's copy"), "\(reseed.stderr)")
    }

    /// A column the app added to a seed table is added to the new copy as the app declared
    /// it: a generated column was left out with no word (and the app's index on it then
    /// did not fit), and a column's collation and check were dropped (found by a contract
    /// probe).
    @Test func theAppsColumnsKeepTheirDeclaration() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        _ = try sql("""
            ALTER TABLE words ADD COLUMN up TEXT GENERATED ALWAYS AS (upper(word)) VIRTUAL;
            ALTER TABLE words ADD COLUMN note TEXT COLLATE NOCASE DEFAULT 'n' CHECK (length(note) < 10);
            CREATE INDEX words_up ON words(up);
            UPDATE words SET note = 'Hello' WHERE id = 2;
            """)
        let upgrade = try cli.run(["deploy", "--manifest", try manifest(2)])
        #expect(upgrade.status == 0 && upgrade.stderr.isEmpty, "\(upgrade.stderr)")
        let schema = try sql("SELECT sql FROM sqlite_schema WHERE name = 'words'")
        for declared in ["up TEXT GENERATED ALWAYS AS (upper(word)) VIRTUAL", "note TEXT COLLATE NOCASE DEFAULT 'n' CHECK (length(note) < 10)"] {
            #expect(schema.contains(declared), "\(schema)")
        }
        #expect(try sql("SELECT up, note FROM words WHERE id = 2") == "X|Hello\n")
        #expect(try sql("SELECT count(*) FROM words WHERE note = 'hello'") == "1\n", "the collation")
        #expect(try sql("SELECT name FROM sqlite_schema WHERE name = 'words_up'") == "words_up\n", "the app's index on the generated column")
    }

    @Test func aCopyNobodyWroteTakesThePlainReplaceAndOneWriteMakesItMerge() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        // A dry run says it too: it plans as the run does.
        let planned = try cli.run(["deploy", "--dry-run", "--json"] + flags(2))
        #expect(try planned.seeds().first?["mergeSkipped"] as? Bool == true, "\(planned.stdout)")
        let untouched = try cli.run(["deploy", "--json"] + flags(2))
        let entry = try #require(try untouched.seeds().first)
        #expect(entry["mergeSkipped"] as? Bool == true, "\(untouched.stdout)")
        #expect(entry["merge"] == nil)
        // Every key the run writes is in the JSON reference.md documents (a contract probe
        // found `mergeSkipped` only in merge.md).
        let reference = String(decoding: cli.bytes(ShippingTests.repository + "/docs/reference.md") ?? Data(), as: UTF8.self)
        for key in entry.keys { #expect(reference.contains("\"\(key)\""), "docs/reference.md does not name \"\(key)\"") }

        _ = try sql("UPDATE words SET word = 'w' WHERE id = 2")
        let plannedWritten = try cli.run(["reseed", "--dry-run", "--json"] + flags(2))
        #expect(try plannedWritten.seeds().first?["mergeSkipped"] == nil, "\(plannedWritten.stdout)")
        let written = try cli.run(["reseed", "--json"] + flags(2))
        #expect(try written.seeds().first?["merge"] != nil, "one write makes it merge: \(written.stdout)")

        // Merging off: an unwritten copy replaced names nothing (and says so as []).
        #expect(try cli.run(["reseed"] + flags(2) + ["--merge", "off"]).status == 0)
        let off = try cli.run(["reseed", "--json"] + flags(2) + ["--merge", "off"])
        #expect(try off.seeds().first?["discarded"] as? [String] == [], "\(off.stdout)")
    }

    /// An upgrade that found the copy unwritten once skipped the merge of a write made
    /// while it staged (before the writer's lock): the edit was only in `.previous`. The
    /// run now looks again under the lock, is undone, and plans again: it merges.
    @Test func aWriteWhileTheUpgradeStagesIsMerged() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        let started = try cli.start(["deploy"] + flags(2), environment: ["SEEDDB_TEST_STOP_AFTER": "stage"])
        #expect(started.waitUntilStopped(), "the run never stopped after staging")
        _ = try sql("UPDATE tags SET name = 'mine' WHERE id = 2")
        started.signal(SIGCONT)
        // Found written under the lock, the run is undone and stages again, to merge.
        #expect(started.waitUntilStopped(), "the run did not stage again")
        started.signal(SIGCONT)
        let upgrade = cli.finish(started)
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(!upgrade.stdout.contains("nothing to merge"), "\(upgrade.stdout)")
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|a2\n2|mine\n3|c\n", "the edit made while the run staged")
    }

    /// The identity recorded as the seed's own, unwritten, was taken after the link named
    /// the new generation: a write the app made in between counted as the seed's, and the
    /// next upgrade skipped its merge. It is taken before the switch now.
    @Test func aWriteRightAfterTheSwitchIsMergedByTheNextUpgrade() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        let started = try cli.start(["reseed"] + flags(1), environment: ["SEEDDB_TEST_STOP_AFTER": "install"])
        #expect(started.waitUntilStopped(), "the run never stopped after its switch")
        _ = try sql("UPDATE tags SET name = 'mine' WHERE id = 2")
        started.signal(SIGCONT)
        let reseed = cli.finish(started)
        #expect(reseed.status == 0, "\(reseed.stderr)")
        let upgrade = try cli.run(["deploy"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(!upgrade.stdout.contains("nothing to merge"), "\(upgrade.stdout)")
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "mine\n", "the edit made right after the switch")
    }

    /// The seed's own trigger fired as the merge wrote the user's row into its table,
    /// adding to the log (a merged table too) a row nobody wrote: the merge brings the
    /// log's rows itself, and such a trigger does not fire while it writes.
    @Test func aSeedTriggerDoesNotWriteTwiceWhatTheMergeBrings() throws {
        try makeSeeds { version in """
            CREATE TABLE zitems (id INTEGER PRIMARY KEY, v TEXT);
            CREATE TABLE log (id INTEGER PRIMARY KEY, msg TEXT);
            CREATE TRIGGER zitems_ai AFTER INSERT ON zitems BEGIN INSERT INTO log (msg) VALUES ('added ' || new.id); END;
            INSERT INTO zitems VALUES (1, 'seed v\(version)');
            """
        }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("INSERT INTO zitems VALUES (2, 'mine')")
        let upgrade = try cli.run(["deploy"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try sql("SELECT id, msg FROM log ORDER BY id") == "1|added 1\n2|added 2\n")
        #expect(try sql("SELECT id, v FROM zitems ORDER BY id") == "1|seed v2\n2|mine\n")
        _ = try sql("INSERT INTO zitems VALUES (3, 'again')")
        #expect(try sql("SELECT msg FROM log WHERE id = 3") == "added 3\n", "the trigger is back once the merge is done")
    }

    /// A full-text table the merge does not merge was taken for one a trigger keeps when
    /// any trigger's text held its name inside a longer word (`notes` in `notes_meta`):
    /// the user's rows went with no warning. Only a trigger that writes to it counts.
    @Test func aFullTextTableNoTriggerWritesIsNamedAsNotMerged() throws {
        try makeSeeds { version in """
            CREATE TABLE notes_meta (id INTEGER PRIMARY KEY, touched INTEGER);
            CREATE TRIGGER meta_touch AFTER UPDATE ON notes_meta BEGIN UPDATE notes_meta SET touched = 1 WHERE id = new.id; END;
            CREATE VIRTUAL TABLE notes USING fts5(body);
            INSERT INTO notes VALUES ('seed v\(version)');
            """
        }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("INSERT INTO notes VALUES ('USER NOTE')")
        let upgrade = try cli.run(["deploy"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stderr.contains("not merged") && upgrade.stderr.contains("\"notes\""), "\(upgrade.stderr)")
    }

    @Test(arguments: [true, false])
    func aReseedKeepsWhatTheUserWroteAndReseedMergeOffGetsTheSeedsRowsBack(withManifest: Bool) throws {
        try makeSeeds()
        let seeds = withManifest ? ["--manifest", try manifest(2)] : flags(2)
        #expect(try cli.run(["deploy"] + seeds).status == 0)
        try editTagsAndWords()
        let reseed = try cli.run(["reseed"] + seeds)
        #expect(reseed.status == 0, "\(reseed.stderr)")
        #expect(reseed.stdout.contains("merged:"), "\(reseed.stdout)")
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "mine\n")

        let off = try cli.run(["reseed"] + seeds + ["--merge", "off"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout == "levels.sqlite: reseeded at 2 by swap (\(cli.workingCopy)); merge is off: the user's changes to 2 seed tables (tags, words) were replaced; the old copy is levels.sqlite.previous\n")
        #expect(try sql("SELECT id, name FROM tags ORDER BY id") == "1|a2\n2|b\n3|c\n")

        // The seed's own policy still kept its base: the next upgrade merges three ways.
        _ = try sql("UPDATE tags SET name = 'mine' WHERE id = 2")
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy + ".base"))
        let merged = try cli.run(["reseed", "--json"] + seeds)
        let merge = try #require(try merged.seeds().first?["merge"] as? [String: Any], "\(merged.stdout)")
        #expect(merge["withoutBase"] == nil)
    }

    @Test func deployRefusesMergeBesideAManifest() throws {
        try makeSeeds()
        let refused = try cli.run(["deploy", "--manifest", try manifest(1), "--merge", "off"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--manifest cannot be combined with --merge"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    @Test func withNothingToCompareWithTheRunWarnsItCannotTell() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        try editTagsAndWords()
        // The base is gone: the reseed with merging off has nothing to compare with.
        try FileManager.default.removeItem(atPath: cli.workingCopy + ".base")
        let off = try cli.run(["reseed", "--json"] + flags(1) + ["--merge", "off"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stderr.contains("which tables the user changed is not known"), "\(off.stderr)")
        #expect(try off.seeds().first?["discarded"] == nil)
    }
    // MARK: - Found from outside (twenty-third round)

    /// A text edit that changed the value only after a NUL byte (`'x'` to `'x' || char(0)`)
    /// read as no edit: GRDB's `String` ends at the NUL. The default merge put the seed's
    /// value back, and `--merge off` did not name the table.
    @Test func aTextEditAfterANulByteIsKeptAndNamedWhenReplaced() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("UPDATE words SET word = CAST(x'7800' AS TEXT) WHERE id = 2")
        let upgrade = try cli.run(["deploy", "--json"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try sql("SELECT hex(word) FROM words WHERE id = 2") == "7800\n", "the user's edit")
        let off = try cli.run(["reseed", "--json"] + flags(2) + ["--merge", "off"])
        #expect(try off.seeds().first?["discarded"] as? [String] == ["words"], "\(off.stdout)")
    }

    /// A full-text table's rows live in its shadow tables, which no digest covered: the
    /// user's rows in one were replaced and never named, with merging off (against the
    /// recorded digests or the base) as with a merge, which leaves it to the new seed.
    @Test func aFullTextTableTheUserWroteIsNamedWhenItsRowsAreReplaced() throws {
        try makeSeeds { version in """
            CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'w\(version)');
            CREATE VIRTUAL TABLE notes USING fts5(body); INSERT INTO notes VALUES ('seed v\(version)');
            """
        }
        // Merging off, no base: the digests recorded with v1.
        #expect(try cli.run(["deploy", "--manifest", try manifest(1, #","merge":"off""#)]).status == 0)
        _ = try sql("INSERT INTO notes VALUES ('mine')")
        let off = try cli.run(["deploy", "--json", "--manifest", try manifest(2, #","merge":"off""#)])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(try off.seeds().first?["discarded"] as? [String] == ["notes"], "\(off.stdout)")
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT count(*) FROM notes WHERE notes MATCH 'mine'\"").stdout == "1\n")

        // The default merge, against its base: the table it cannot merge is named.
        #expect(try cli.run(["reseed", "--manifest", try manifest(2)]).status == 0)
        _ = try sql("INSERT INTO notes VALUES ('mine again')")
        let merged = try cli.run(["reseed", "--manifest", try manifest(2)])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.hasSuffix("; not merged: the user's changes to 1 seed table (notes) were replaced; the old copy is levels.sqlite.previous\n"), "\(merged.stdout)")
        #expect(merged.stderr.contains("not merged, the new seed's version stands") && merged.stderr.contains("\"notes\""), "\(merged.stderr)")
    }

    /// The warning about tables the merge cannot merge came on every upgrade, whether or
    /// not the user wrote to them, and the JSON never named them. Now it comes when the
    /// user changed one (against the base), and `"discarded"` names it.
    @Test func aTableWithoutAPrimaryKeyIsNamedOnlyWhenTheUserChangedIt() throws {
        try makeSeeds { version in """
            CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'w\(version)');
            CREATE TABLE pairs (a, b); INSERT INTO pairs VALUES (1, \(version));
            """
        }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("UPDATE words SET word = 'mine'")
        let untouched = try cli.run(["deploy", "--json"] + flags(2))
        #expect(untouched.status == 0, "\(untouched.stderr)")
        #expect(!untouched.stderr.contains("not merged"), "\(untouched.stderr)")
        #expect(try untouched.seeds().first?["discarded"] == nil, "\(untouched.stdout)")

        _ = try sql("INSERT INTO pairs VALUES (7, 7)")
        let written = try cli.run(["reseed", "--json"] + flags(2))
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try written.seeds().first?["discarded"] as? [String] == ["pairs"], "\(written.stdout)")
        #expect(try sql("SELECT word FROM words") == "mine\n")
    }

    /// A table named with a comma read as two tables on the line.
    @Test func aTableNameThatIsNotAPlainIdentifierIsQuotedOnTheLine() throws {
        try makeSeeds { version in "CREATE TABLE [odd, name] (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO [odd, name] VALUES (1, 'v\(version)');" }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("UPDATE [odd, name] SET v = 'mine'")
        let off = try cli.run(["reseed"] + flags(1) + ["--merge", "off"])
        #expect(off.stdout.contains("the user's changes to 1 seed table (\"odd, name\") were replaced"), "\(off.stdout)")
    }

    /// An app that numbers its migrations in `PRAGMA user_version` found its added column
    /// carried by the merge but the number reset to the seed's: it ran its migration again
    /// and failed (`duplicate column name`).
    @Test func anAppsUserVersionFollowsTheColumnsTheMergeCarries() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        _ = try sql("ALTER TABLE words ADD COLUMN starred INTEGER DEFAULT 0; PRAGMA user_version = 1; UPDATE words SET starred = 1 WHERE id = 2;")
        let upgrade = try cli.run(["deploy"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try sql("PRAGMA user_version") == "1\n")
        #expect(try sql("SELECT id, word, starred FROM words ORDER BY id") == "1|w2|0\n2|x|1\n")
    }

    @Test func oneTableGivenTwoPoliciesIsRefused() throws {
        try makeSeeds()
        let flagsTwice = try cli.run(["deploy"] + flags(1) + ["--merge-table", "words=off", "--merge-table", "WORDS=user-wins"])
        #expect(flagsTwice.status == 64)
        #expect(flagsTwice.stderr == "seeddb: error: --merge-table given twice for one table (\"words=off\" and \"WORDS=user-wins\"); give each table once\n")
        let manifestTwice = try cli.run(["deploy", "--manifest", try manifest(1, #","mergeTables":{"words":"off","WORDS":"user-wins"}"#)])
        #expect(manifestTwice.status == 78)
        #expect(manifestTwice.stderr.contains("\"WORDS\" and \"words\" name one table"), "\(manifestTwice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/data"), "nothing was written")
    }

    /// A reseed with `--merge user-wins` of a seed whose own policy is `off` said its base
    /// "is missing" and would be kept once a deploy succeeds: no base is ever kept for it.
    @Test func aReseedMergeOfASeedThatKeepsNoBaseSaysSo() throws {
        try makeSeeds()
        let cache = flags(1) + ["--location", "cache"]
        #expect(try cli.run(["deploy"] + cache).status == 0)
        let cached = cli.root + "/cache/" + cli.app + "/levels.sqlite"
        #expect(try cli.shell("sqlite3 '\(cached)' \"UPDATE words SET word = 'mine' WHERE id = 2\"").status == 0)
        let reseed = try cli.run(["reseed"] + cache + ["--merge", "user-wins"])
        #expect(reseed.status == 0, "\(reseed.stderr)")
        #expect(reseed.stderr.contains("is not kept for this seed (its own merge policy is off)"), "\(reseed.stderr)")
        #expect(!reseed.stderr.contains("once a deploy succeeds"), "\(reseed.stderr)")
    }
    /// A dry run of a replace with merging off said what it would do, not which tables'
    /// changes it would replace: the run then named them.
    @Test func aDryRunNamesTheTablesWhoseChangesItWouldReplace() throws {
        try makeSeeds()
        // Against the merge base the default policy keeps.
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        try editTagsAndWords()
        let dry = try cli.run(["reseed", "--dry-run"] + flags(1) + ["--merge", "off"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "levels.sqlite: would be reseeded at 1 by swap (\(cli.workingCopy)); merge is off: the user's changes to 2 seed tables (tags, words) would be replaced; the old copy would be levels.sqlite.previous\n")
        #expect(try sql("SELECT name FROM tags WHERE id = 2") == "mine\n", "a dry run changes nothing")

        // Against the digests recorded with a seed whose policy is off, in JSON.
        #expect(try cli.run(["deploy", "--manifest", try manifest(2, #","merge":"off""#)]).status == 0)
        _ = try sql("UPDATE words SET word = 'again' WHERE id = 2")
        let json = try cli.run(["reseed", "--dry-run", "--json", "--manifest", try manifest(2, #","merge":"off""#)])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try json.seeds().first?["discarded"] as? [String] == ["words"], "\(json.stdout)")

        // A working copy in WAL mode, closed cleanly (no `-wal`, no `-shm`): the dry run's
        // reading creates neither beside it (root's `-shm` would lock the app out).
        _ = try sql("PRAGMA journal_mode = WAL; UPDATE words SET word = 'wal' WHERE id = 2;")
        let generation = try #require(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy))
        let sidecars = ["-wal", "-shm"].map { cli.appData + "/" + generation + $0 }
        #expect(sidecars.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        let wal = try cli.run(["reseed", "--dry-run", "--json", "--manifest", try manifest(2, #","merge":"off""#)])
        #expect(wal.status == 0, "\(wal.stderr)")
        #expect(try wal.seeds().first?["discarded"] as? [String] == ["words"], "\(wal.stdout)")
        #expect(sidecars.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "\(cli.list(cli.appData))")
    }
    /// A dry run of a merge with one table `off` worded its clause `merge is off:` where
    /// the run says `not merged:`, and a dry run that cannot tell which tables the user
    /// changed (no base, no table digests) omitted the run's warning.
    @Test func aDryRunWordsWhatItWouldReplaceAsTheRunDoes() throws {
        try makeSeeds()
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        try editTagsAndWords()
        let clause = "; not merged: the user's changes to 1 seed table (tags)"
        let dry = try cli.run(["deploy", "--dry-run"] + flags(2) + ["--merge-table", "tags=off"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasSuffix(clause + " would be replaced; the old copy would be levels.sqlite.previous\n"), "\(dry.stdout)")
        let run = try cli.run(["deploy"] + flags(2) + ["--merge-table", "tags=off"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix(clause + " were replaced; the old copy is levels.sqlite.previous\n"), "\(run.stdout)")

        // A record with neither a base nor table digests (as an older SeedDB left it).
        let off = try manifest(2, #","merge":"off""#)
        #expect(try cli.run(["reseed", "--manifest", off]).status == 0)
        let settings = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cli.settingsFile))) as! [String: Any]
        var seeds = try #require(settings["seeddb"] as? [String: Any])
        var entry = try #require(seeds["levels.sqlite"] as? [String: Any])
        #expect(entry.removeValue(forKey: "tableDigests") != nil && entry["base"] == nil, "\(entry)")
        seeds["levels.sqlite"] = entry
        try JSONSerialization.data(withJSONObject: ["seeddb": seeds]).write(to: URL(fileURLWithPath: cli.settingsFile))
        try editTagsAndWords()
        let warning = "seeddb: warning: merge is off for \(cli.workingCopy): the seed's rows replace the user's changes, and which tables the user changed is not known (no merge base and no table digests were recorded with the old copy)\n"
        let unknownDry = try cli.run(["reseed", "--dry-run", "--manifest", off])
        #expect(unknownDry.status == 0 && unknownDry.stderr == warning, "\(unknownDry.stderr)")
        let unknownRun = try cli.run(["reseed", "--manifest", off])
        #expect(unknownRun.status == 0 && unknownRun.stderr == warning, "\(unknownRun.stderr)")
    }

    /// A copy of a seed shipped in WAL mode, unwritten: the dry run said `nothing to merge`
    /// (`"mergeSkipped": true`) where the run merges (its writer's lock opens the copy with
    /// its `-wal`). The dry run says what the run does.
    @Test func aDryRunOfAnUnwrittenWALCopySaysWhatTheRunDoes() throws {
        try makeSeeds { version in "PRAGMA journal_mode = WAL; CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'w\(version)');" }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        let dry = try cli.run(["deploy", "--dry-run", "--json"] + flags(2))
        let run = try cli.run(["deploy", "--json"] + flags(2))
        #expect(dry.status == 0 && run.status == 0, "\(dry.stderr) \(run.stderr)")
        let (planned, done) = (try #require(try dry.seeds().first), try #require(try run.seeds().first))
        #expect((planned["mergeSkipped"] as? Bool ?? false) == (done["mergeSkipped"] as? Bool ?? false), "\(dry.stdout) \(run.stdout)")
    }

    /// A full-text index kept from a merged table by its triggers follows the merged rows:
    /// it was named among the tables whose changes were replaced once virtual tables were
    /// compared, though the merge keeps those rows and the triggers index them.
    @Test func anIndexThatFollowsAMergedTableIsNotNamedAsReplaced() throws {
        try makeSeeds { version in """
            CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT);
            CREATE VIRTUAL TABLE search USING fts5(word, content='words', content_rowid='id');
            CREATE TRIGGER words_ai AFTER INSERT ON words BEGIN INSERT INTO search(rowid, word) VALUES (new.id, new.word); END;
            CREATE TRIGGER words_au AFTER UPDATE ON words BEGIN
              INSERT INTO search(search, rowid, word) VALUES ('delete', old.id, old.word);
              INSERT INTO search(rowid, word) VALUES (new.id, new.word);
            END;
            INSERT INTO words VALUES (1, 'w\(version)'), (2, 'x');
            """
        }
        let extra = #","merge":"off","mergeTables":{"words":"user-wins"}"#
        #expect(try cli.run(["deploy", "--manifest", try manifest(1, extra)]).status == 0)
        _ = try sql("UPDATE words SET word = 'mine' WHERE id = 2")
        let upgrade = try cli.run(["deploy", "--json", "--manifest", try manifest(2, extra)])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try upgrade.seeds().first?["discarded"] as? [String] == [], "\(upgrade.stdout)")
        #expect(try sql("SELECT rowid FROM search WHERE search MATCH 'mine'") == "2\n", "the index follows the merged row")
    }
}
