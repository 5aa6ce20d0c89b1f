import Foundation
import GRDB
import Testing

/// A rollback keeps what the user wrote since the upgrade (the app's tables and, with a
/// merging policy, edits of seeded rows), and holds: the next `deploy` of the version it
/// was rolled back from leaves the working copy alone, a new version or `reseed` ends it.
@Suite(.serialized) struct RollbackHoldTests {
    let cli = CLIHarness()

    func sql(_ statement: String) throws -> String {
        let result = try cli.shell("sqlite3 '\(cli.workingCopy)' \"\(statement)\"")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func rollbackKeepsRowsWrittenSinceTheUpgradeAndHolds() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        _ = try sql("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'before the upgrade');")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        _ = try sql("INSERT INTO notes VALUES (2, 'after the upgrade');")

        let rollback = try cli.run(["rollback", "--json"] + cli.seedFlags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let report = try #require(try rollback.seeds().first)
        #expect(report["action"] as? String == "rolled-back")
        // The restored copy has the app's table as it was before the upgrade: the user's
        // version replaces it whole (carried, not merged as a seed table).
        #expect(report["carried"] as? [String] == ["notes"], "\(rollback.stdout)")
        #expect((report["merge"] as? [String: Any])?["inserted"] as? Int == 0, "\(rollback.stdout)")
        #expect(try sql("SELECT group_concat(id) FROM notes") == "1,2", "the row written since the upgrade is kept")
        #expect(try cli.levelCount() == 20, "the previous content is back")

        // The app's next start still ships 2: held.
        let held = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(held.status == 0)
        #expect(held.stdout.hasPrefix("levels.sqlite: held at 1: rolled back from 2"), "\(held.stdout)")
        let heldJSON = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(try heldJSON.seeds().first?["action"] as? String == "held")
        #expect(try cli.levelCount() == 20)
        let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
        let entry = try #require(try status.seeds().first)
        #expect(entry["state"] as? String == "held")
        #expect(entry["heldFrom"] as? String == "2")
        #expect(try cli.run(["deploy", "--dry-run", "--json"] + cli.seedFlags(2)).seeds().first?["action"] as? String == "held")

        // A new version ends the hold, and the user's rows go along.
        let upgrade = try cli.run(["deploy", "--json"] + cli.seedFlags(2, source: nil).dropLast(1) + ["3"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try upgrade.seeds().first?["action"] as? String == "replaced")
        #expect(try sql("SELECT group_concat(id) FROM notes") == "1,2")
        #expect(cli.settingsEntry()?["heldFrom"] == nil)
    }

    /// A release's `rollback` killed once its first seed was rolled back was never finished
    /// by running it again: the rerun stopped at that seed (exit 66, nothing to roll back),
    /// and the next seed kept its killed run's marker (found by a contract probe). A seed
    /// of the manifest already rolled back from the version the manifest ships is passed
    /// over (`held at 1: rolled back from 2`), so the rerun rolls back the rest; a second
    /// rollback of the whole release says each is held.
    @Test func aKilledReleaseRollbackIsFinishedByItsRerun() throws {
        func manifest(_ version: Int) throws -> String {
            let path = cli.root + "/release-\(version).json"
            let seed = "\(CLIHarness.seeds)/v\(version)/levels.sqlite"
            let text = #"{"app":"\#(cli.app)","seeds":[{"source":"\#(seed)","name":"a.sqlite","version":"\#(version)"},{"source":"\#(seed)","name":"b.sqlite","version":"\#(version)"}]}"#
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            return path
        }
        #expect(try cli.run(["deploy", "--manifest", try manifest(1)]).status == 0)
        #expect(try cli.run(["deploy", "--manifest", try manifest(2)]).status == 0)
        // Killed once the first seed's run is done, before the second starts.
        let killed = try cli.run(["rollback", "--manifest", try manifest(2)], environment: ["SEEDDB_TEST_KILL_AFTER": "clean-up"])
        #expect(killed.status != 0)
        let rerun = try cli.run(["rollback", "--manifest", try manifest(2)])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let directory = (cli.workingCopy as NSString).deletingLastPathComponent
        #expect(rerun.stdout == """
            a.sqlite: held at 1: rolled back from 2 (\(directory)/a.sqlite)
            b.sqlite: rolled back 2 -> 1 by swap; merged: no changes of the user's (\(directory)/b.sqlite)

            """, "\(rerun.stdout)")
        let again = try cli.run(["rollback", "--manifest", try manifest(2), "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.seeds().map { $0["action"] as? String } == ["held", "held"], "\(again.stdout)")
        let dry = try cli.run(["rollback", "--manifest", try manifest(2), "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.hasPrefix("a.sqlite: held at 1"), "\(dry.stdout)\(dry.stderr)")
        // With flags, a second rollback still has nothing to roll back.
        #expect(try cli.run(["rollback", "--app", cli.app, "--name", "a.sqlite"]).status == 66)
    }

    /// After a rollback killed before it installed anything, a deploy's dry run said
    /// `would be unchanged at 1` (`"from": "2", "to": "1"`) where the run undoes the killed
    /// rollback and says `unchanged` at 2 (found by a contract probe).
    @Test func aDryRunAfterAKilledRollbackNamesTheRecordPutBack() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let killed = try cli.run(["rollback"] + cli.seedFlags(2), environment: ["SEEDDB_TEST_KILL_AFTER": "withdraw"])
        #expect(killed.status != 0)
        let dry = try cli.run(["deploy", "--dry-run", "--json"] + cli.seedFlags(2))
        let planned = try #require(try dry.seeds().first, "\(dry.stdout)\(dry.stderr)")
        #expect(planned["action"] as? String == "unchanged" && planned["from"] as? String == "2" && planned["to"] as? String == "2", "\(dry.stdout)")
        let run = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        let done = try #require(try run.seeds().first, "\(run.stdout)\(run.stderr)")
        #expect(done["action"] as? String == "unchanged" && done["to"] as? String == "2", "\(run.stdout)")
    }

    /// The link of a held copy removed by hand: `deploy` put it back and said
    /// `restored 1 -> 2`, the version shipped, while the record stays 1 (found in review).
    @Test func aHeldCopysLinkPutBackIsRestoredAtTheHeldVersion() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 0)
        #expect(unlink(cli.workingCopy) == 0)
        let restored = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        let entry = try #require(try restored.seeds().first, "\(restored.stdout)\(restored.stderr)")
        #expect(entry["action"] as? String == "restored" && entry["to"] as? String == "1", "\(restored.stdout)")
        #expect(try cli.levelCount() == 20, "version 1's content")
    }

    /// A `-wal` (or `-journal`) beside the previous generation is not SeedDB's (it keeps
    /// the previous generation without one): the rollback is refused (65) with nothing
    /// changed, saying to move it away. It said to checkpoint it "before shipping", a seed
    /// publisher's advice that would write that file's frames into the previous generation.
    /// The planner refuses it, so a dry run says so too (it promised a rollback).
    @Test(arguments: ["-wal", "-journal"])
    func aStaleSidecarBesideThePreviousGenerationIsNamedNotCheckpointed(suffix: String) throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let sidecar = cli.appData + "/levels.sqlite.previous" + suffix
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: sidecar))
        let before = ReleaseIsAllOrNothingTests.state(cli)
        let rollback = try cli.run(["rollback"] + cli.seedFlags(2))
        #expect(rollback.status == 65, "\(rollback.stderr)")
        #expect(rollback.stderr.contains("\(sidecar) holds 4096 bytes SeedDB did not write") && rollback.stderr.contains("move that file away"), "\(rollback.stderr)")
        #expect(!rollback.stderr.contains("shipping"), "\(rollback.stderr)")
        let dryRun = try cli.run(["rollback", "--dry-run"] + cli.seedFlags(2))
        #expect(dryRun.status == 65, "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(dryRun.stderr.contains("\(sidecar) holds 4096 bytes SeedDB did not write"), "\(dryRun.stderr)")
        #expect(ReleaseIsAllOrNothingTests.state(cli) == before)
    }

    /// A rollback keeps no previous generation: what the user wrote since the upgrade in a
    /// seed table it cannot merge (no primary key) is kept in the replaced copy, as an
    /// adopted copy, and the line says where.
    @Test func aRollbackKeepsTheCopyWhoseChangesItCouldNotMerge() throws {
        let seeds = cli.root + "/nopk"
        try FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
        for (version, tags) in [(1, "('a')"), (2, "('a'), ('b')")] {
            let made = try cli.shell("""
                sqlite3 '\(seeds)/v\(version).sqlite' "CREATE TABLE levels(id INTEGER PRIMARY KEY, name TEXT); \
                INSERT INTO levels VALUES (1, 'one'); CREATE TABLE tags(name TEXT); INSERT INTO tags VALUES \(tags);"
                """)
            #expect(made.status == 0, "\(made.stderr)")
        }
        let flags = { (version: Int) in ["--app", cli.app, "--seed", "\(seeds)/v\(version).sqlite", "--name", "levels.sqlite", "--version", "\(version)"] }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        #expect(try cli.run(["deploy"] + flags(2)).status == 0)
        _ = try sql("INSERT INTO tags VALUES ('mine');")

        let rollback = try cli.run(["rollback"] + flags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let adopted = try #require(cli.list(cli.appData).first { $0.hasPrefix("levels.sqlite.adopted-") }, "\(cli.list(cli.appData))")
        #expect(rollback.stdout.contains("not merged: the user's changes to 1 seed table (tags) were replaced; the old copy is kept as \(adopted)"), "\(rollback.stdout)")
        let kept = try cli.shell("sqlite3 '\(cli.appData)/\(adopted)' 'SELECT group_concat(name) FROM tags'")
        #expect(kept.stdout == "a,b,mine\n", "\(kept.stdout) \(kept.stderr)")
        #expect(try sql("SELECT group_concat(name) FROM tags") == "a", "the rolled-back content has its own rows")
        // The next deploy leaves it (SeedDB never removes an adopted copy on its own).
        #expect(try cli.run(["deploy"] + flags(2)).status == 0)
        #expect(cli.list(cli.appData).contains(adopted))

        // So does an upgrade that keeps no previous generation.
        _ = try sql("INSERT INTO tags VALUES ('mine too');")
        let upgrade = try cli.run(["reseed", "--keep-previous", "false"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let second = try #require(cli.list(cli.appData).first { $0.hasPrefix("levels.sqlite.adopted-") && $0 != adopted }, "\(cli.list(cli.appData))")
        #expect(upgrade.stdout.contains("the old copy is kept as \(second)"), "\(upgrade.stdout)")

        // In JSON: the adopted copy's path, beside the tables whose changes it holds. A dry
        // run foresees it for the tables it names (those whose policy is `off`).
        _ = try sql("INSERT INTO tags VALUES ('mine again'); UPDATE levels SET name = 'mine' WHERE id = 1;")
        let dry = try cli.run(["reseed", "--dry-run", "--keep-previous", "false", "--merge-table", "levels=off"] + flags(2))
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasSuffix("not merged: the user's changes to 1 seed table (levels) would be replaced; the old copy would be kept as an adopted copy (levels.sqlite.adopted-…)\n"), "\(dry.stdout)")
        let json = try cli.run(["reseed", "--json", "--keep-previous", "false"] + flags(2))
        #expect(json.status == 0, "\(json.stderr)")
        let third = try #require(cli.list(cli.appData).first { $0.hasPrefix("levels.sqlite.adopted-") && ![adopted, second].contains($0) }, "\(cli.list(cli.appData))")
        let seed = try #require(try json.seeds().first)
        #expect(seed["oldCopyKeptAs"] as? String == cli.appData + "/" + third, "\(json.stdout)")
        #expect(seed["discarded"] as? [String] == ["tags"], "\(json.stdout)")
        #expect(try cli.shell("sqlite3 '\(cli.appData)/\(second)' 'SELECT count(*) FROM tags WHERE name = \"mine too\"'").stdout == "1\n")
    }

    /// Seeds v1 and v2 in `folder`: `levels` (with a primary key) and `tags` (with none,
    /// which no merge can merge); the flags that deploy version `n` of them.
    func seedsWithATableNoMergeCanMerge(in folder: String) throws -> (Int) -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for version in 1...2 {
            let made = try cli.shell("""
                sqlite3 '\(folder)/v\(version).sqlite' "CREATE TABLE levels(id INTEGER PRIMARY KEY, name TEXT); \
                INSERT INTO levels VALUES (1, 'one\(version)'); CREATE TABLE tags(name TEXT); INSERT INTO tags VALUES ('a');"
                """)
            #expect(made.status == 0, "\(made.stderr)")
        }
        return { version in ["--app", cli.app, "--seed", "\(folder)/v\(version).sqlite", "--name", "levels.sqlite", "--version", "\(version)"] }
    }

    /// A live rollback wrote over the only copy of what the user wrote in a seed table it
    /// cannot merge: it keeps a snapshot of the old content as an adopted copy, taken
    /// before its commit.
    @Test func aLiveRollbackKeepsACopyOfWhatItCouldNotMerge() throws {
        let flags = try seedsWithATableNoMergeCanMerge(in: cli.root + "/live")
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        #expect(try cli.run(["deploy"] + flags(2)).status == 0)
        _ = try sql("INSERT INTO tags VALUES ('mine'); UPDATE levels SET name = 'edited' WHERE id = 1;")
        let rollback = try cli.run(["rollback", "--json", "--strategy", "live"] + flags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let seed = try #require(try rollback.seeds().first)
        #expect(seed["strategy"] as? String == "live", "\(rollback.stdout)")
        #expect(seed["discarded"] as? [String] == ["tags"], "\(rollback.stdout)")
        let adopted = try #require(seed["oldCopyKeptAs"] as? String, "\(rollback.stdout)")
        #expect(try cli.shell("sqlite3 '\(adopted)' 'SELECT group_concat(name) FROM tags'").stdout == "a,mine\n")
        #expect(try sql("SELECT name FROM levels WHERE id = 1") == "edited", "the merged edit")
        #expect(try sql("SELECT group_concat(name) FROM tags") == "a")
        #expect(cli.temporaryFiles.isEmpty, "\(cli.list(cli.appData))")
    }

    /// A rollback to a seed that lacks a table (or a column) the user edited: the merge
    /// warned that the edits were dropped, named nothing, and kept no copy: they were in no
    /// file. The table is named with those whose changes were replaced, and the replaced
    /// copy kept as an adopted copy.
    @Test func aRollbackKeepsTheCopyOfATableOrColumnTheOlderSeedLacks() throws {
        let seeds = cli.root + "/dropped"
        try FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
        let common = "CREATE TABLE words(id INTEGER PRIMARY KEY, w TEXT); INSERT INTO words VALUES (1, 'a');"
        for (version, extra) in [(1, "CREATE TABLE tags(id INTEGER PRIMARY KEY, t TEXT); INSERT INTO tags VALUES (1, 'x');"),
                                 (2, "CREATE TABLE tags(id INTEGER PRIMARY KEY, t TEXT, color TEXT); INSERT INTO tags VALUES (1, 'x', 'red'); CREATE TABLE notes(id INTEGER PRIMARY KEY, n TEXT); INSERT INTO notes VALUES (1, 'seed note');")] {
            #expect(try cli.shell("sqlite3 '\(seeds)/v\(version).sqlite' \"\(common) \(extra)\"").status == 0)
        }
        let flags = { (version: Int) in ["--app", cli.app, "--seed", "\(seeds)/v\(version).sqlite", "--name", "levels.sqlite", "--version", "\(version)"] }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        #expect(try cli.run(["deploy"] + flags(2)).status == 0)
        _ = try sql("INSERT INTO notes VALUES (2, 'USER NOTE'); UPDATE tags SET color = 'blue' WHERE id = 1;")
        let rollback = try cli.run(["rollback", "--json"] + flags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let seed = try #require(try rollback.seeds().first)
        #expect(seed["discarded"] as? [String] == ["notes", "tags"], "\(rollback.stdout)")
        let adopted = try #require(seed["oldCopyKeptAs"] as? String, "\(rollback.stdout)")
        #expect(try cli.shell("sqlite3 '\(adopted)' \"SELECT n FROM notes WHERE id = 2; SELECT color FROM tags\"").stdout == "USER NOTE\nblue\n")
    }

    /// Without a merge base (the copies were deployed with merging off), the merge could
    /// not tell what the user changed in a table it cannot merge: it named nothing, and a
    /// rollback, or an upgrade keeping no previous generation, dropped the user's rows.
    @Test func aMergeWithoutABaseKeepsTheCopyWhoseChangesItCouldNotMerge() throws {
        let flags = try seedsWithATableNoMergeCanMerge(in: cli.root + "/nobase")
        #expect(try cli.run(["deploy", "--merge", "off"] + flags(1)).status == 0)
        #expect(try cli.run(["deploy", "--merge", "off"] + flags(2)).status == 0)
        _ = try sql("INSERT INTO tags VALUES ('mine');")
        let rollback = try cli.run(["rollback", "--json", "--merge", "user-wins"] + flags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let seed = try #require(try rollback.seeds().first)
        #expect(seed["discarded"] as? [String] == ["tags"], "\(rollback.stdout)")
        let adopted = try #require(seed["oldCopyKeptAs"] as? String, "\(rollback.stdout)")
        #expect(try cli.shell("sqlite3 '\(adopted)' 'SELECT group_concat(name) FROM tags'").stdout == "a,mine\n")

        // An upgrade that keeps no previous generation, merging for the first time.
        _ = try sql("INSERT INTO tags VALUES ('mine too');")
        #expect(try cli.run(["reseed", "--merge", "off"] + flags(1)).status == 0)
        _ = try sql("INSERT INTO tags VALUES ('and again');")
        let upgrade = try cli.run(["deploy", "--keep-previous", "false"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout.contains("not merged: the user's changes to 1 seed table (tags) were replaced; the old copy is kept as levels.sqlite.adopted-"), "\(upgrade.stdout)")
        let kept = cli.list(cli.appData).filter { $0.hasPrefix("levels.sqlite.adopted-") }.map { cli.appData + "/" + $0 }
        let found = try kept.map { try cli.shell("sqlite3 '\($0)' \"SELECT count(*) FROM tags WHERE name = 'and again'\"").stdout }
        #expect(found.contains("1\n"), "\(kept) \(found)")
    }

    /// The same rollback (a swap, and live) killed at each `rename` and `renameat2` (strace), then a `deploy`: the
    /// row the merge cannot carry is still in some database of the working copy's (the
    /// working copy, the previous generation or an adopted copy: a finish keeps the old
    /// copy, not knowing what the killed merge carried).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"), arguments: ["swap", "live"])
    func aKilledRollbackLosesNoRowItCouldNotMerge(strategy: String) throws {
        let strace = try #require(DurabilityOrderTests.strace)
        var killed = true
        for when in 1...20 where killed {
            let cli = CLIHarness()
            let seeds = cli.root + "/nopk"
            try FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
            for (version, tags) in [(1, "('a')"), (2, "('a'), ('b')")] {
                #expect(try cli.shell("""
                    sqlite3 '\(seeds)/v\(version).sqlite' "CREATE TABLE levels(id INTEGER PRIMARY KEY, name TEXT); \
                    INSERT INTO levels VALUES (1, 'one'); CREATE TABLE tags(name TEXT); INSERT INTO tags VALUES \(tags);"
                    """).status == 0)
            }
            let flags = ["--app", cli.app, "--seed", "\(seeds)/v2.sqlite", "--name", "levels.sqlite", "--version", "2"]
            #expect(try cli.run(["deploy", "--app", cli.app, "--seed", "\(seeds)/v1.sqlite", "--name", "levels.sqlite", "--version", "1"]).status == 0)
            #expect(try cli.run(["deploy"] + flags).status == 0)
            #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"INSERT INTO tags VALUES ('mine')\"").status == 0)
            let arguments = (["rollback", "--strategy", strategy] + flags).map { "'\($0)'" }.joined(separator: " ")
            // (Until the rollback has fewer renames than `when`: it then runs whole.)
            let cut = try cli.shell("\(strace) -f -qq -o /dev/null -e inject=rename,renameat2:signal=KILL:when=\(when) '\(CLIHarness.binary)' \(arguments)")
            killed = cut.status != 0
            let recovery = try cli.run(["deploy"] + flags)
            #expect(recovery.status == 0, "\(strategy), rename \(when): \(recovery.stderr)")
            let databases = cli.list(cli.appData).filter { name in
                !SeedPathsSuffixes.all.contains { name.hasSuffix($0) }
            }
            let holding = try databases.filter { name in
                try cli.shell("sqlite3 '\(cli.appData)/\(name)' \"SELECT count(*) FROM tags WHERE name = 'mine'\"").stdout == "1\n"
            }
            #expect(!holding.isEmpty, "\(strategy), killed at rename \(when): the user's row is in none of \(databases)")
        }
        #expect(!killed, "the rollback was killed at every rename tried")
    }

    @Test func reseedEndsTheHold() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 0)
        let reseed = try cli.run(["reseed", "--json"] + cli.seedFlags(2))
        #expect(try reseed.seeds().first?["action"] as? String == "reseeded")
        #expect(try cli.levelCount() == 24)
        #expect(try cli.run(["status", "--json"] + cli.seedFlags(2)).seeds().first?["state"] as? String == "up-to-date")
    }

    @Test func rollbackWithUserWinsKeepsEditsOfSeededRows() throws {
        let merge = ["--merge", "user-wins"]
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + merge).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + merge).status == 0)
        // An edit of a row both seeds have, after the upgrade.
        _ = try sql("UPDATE levels SET map = X'01' WHERE ix = 3;")
        let rollback = try cli.run(["rollback"] + cli.seedFlags(2) + merge)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try sql("SELECT hex(map) FROM levels WHERE ix = 3") == "01", "the user's edit is carried into the restored content")
        #expect(try sql("SELECT background FROM levels WHERE ix = 1") == "forest", "rows the user did not touch are version 1's")
    }

    /// The app's own tables, made before the upgrade, are in the generation a rollback
    /// restores too: under the default merge (a data seed's `user-wins`) they were merged
    /// as if they were the seed's, so a table without a primary key came back as it was
    /// before the upgrade (the rows written since in no file), and a row deleted since came
    /// back. They are the app's: carried whole, as a replace and `--merge off` carry them.
    @Test func rollbackCarriesTheAppsTablesWholeUnderTheDefaultMerge() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        _ = try sql("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('before the upgrade'); CREATE TABLE marks(id INTEGER PRIMARY KEY, note TEXT); INSERT INTO marks VALUES (1, 'kept'), (2, 'deleted after the upgrade');")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        _ = try sql("INSERT INTO notes VALUES ('after the upgrade'); DELETE FROM marks WHERE id = 2;")
        let rollback = try cli.run(["rollback", "--json"] + cli.seedFlags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(!rollback.stderr.contains("not merged"), "\(rollback.stderr)")
        #expect(try sql("SELECT group_concat(body, '|') FROM (SELECT body FROM notes ORDER BY rowid)") == "before the upgrade|after the upgrade")
        #expect(try sql("SELECT group_concat(id) FROM marks") == "1", "a row the app deleted since the upgrade came back")
        #expect(try Set(rollback.seeds().first?["carried"] as? [String] ?? []) == ["marks", "notes"], "\(rollback.stdout)")
    }
}

/// The names beside a working copy that are not databases: SQLite's sidecars, the lock.
private enum SeedPathsSuffixes {
    static let all = ["-wal", "-shm", "-journal", ".lock", ".json"]
}
