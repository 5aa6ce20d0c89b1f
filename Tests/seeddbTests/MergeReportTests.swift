import Foundation
import Testing

/// A deploy that merged says so on its line, and
/// `seeddb conflicts` shows each conflict's three values and the side kept, says when no
/// merge has run, and forgets a merge that was rolled back.
@Suite struct MergeReportTests {
    let cli = CLIHarness()

    func sql(_ statement: String) throws {
        let result = try cli.shell("sqlite3 '\(cli.workingCopy)' \"\(statement)\"")
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Installs v1 with `policy`, then makes the user's edits: three backgrounds v2 also
    /// renames (conflicts), a favourite in a column of the app's own (a clean update) and
    /// a new level.
    func deployV1AndEdit(_ policy: String) throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + ["--merge", policy]).status == 0)
        try sql("""
            UPDATE levels SET background = 'my cave' WHERE ix = 2;
            UPDATE levels SET background = 'my desert' WHERE ix = 3;
            UPDATE levels SET background = NULL WHERE ix = 5;
            ALTER TABLE levels ADD COLUMN favorite INTEGER;
            UPDATE levels SET favorite = 1 WHERE ix = 6;
            INSERT INTO levels(ix, background, map) SELECT 100, 'mine', map FROM levels WHERE ix = 1;
            """)
    }

    @Test func aMergingDeploySaysWhatItMergedOnItsLine() throws {
        try deployV1AndEdit("user-wins")
        let deploy = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"])
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(deploy.stdout == "levels.sqlite: replaced 1 -> 2 by swap; merged: 4 rows updated, 1 inserted, 3 conflicts kept the user's (seeddb conflicts) (\(cli.workingCopy))\n")
    }

    @Test func aSeedWinsMergeSaysTheSeedsWereKept() throws {
        try deployV1AndEdit("seed-wins")
        let deploy = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "seed-wins"])
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(deploy.stdout.contains("replaced 1 -> 2 by swap; merged: 1 row updated, 1 inserted, 3 conflicts kept the seed's (seeddb conflicts) ("), "\(deploy.stdout)")
    }

    @Test func aMergeWithNothingOfTheUsersSaysSo() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + ["--merge", "user-wins"]).status == 0)
        // Written, then put back: the merge runs and finds no change of the user's.
        let write = try cli.shell("sqlite3 '\(cli.workingCopy)' \"CREATE TABLE scratch(x); DROP TABLE scratch\"")
        #expect(write.status == 0, "\(write.stderr)")
        let deploy = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"])
        #expect(deploy.stdout == "levels.sqlite: replaced 1 -> 2 by swap; merged: no changes of the user's (\(cli.workingCopy))\n")
        #expect(try cli.run(["conflicts"] + cli.seedFlags(2)).stdout == "levels.sqlite: no conflicts in the last merge\n")
    }

    @Test func anUntouchedCopySaysThereWasNothingToMerge() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + ["--merge", "user-wins"]).status == 0)
        let deploy = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"])
        #expect(deploy.stdout == "levels.sqlite: replaced 1 -> 2 by swap; nothing to merge: the working copy was the seed's own, unwritten (\(cli.workingCopy))\n")
    }

    @Test func conflictsShowsTheThreeValuesAndTheSideKept() throws {
        try deployV1AndEdit("user-wins")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"]).status == 0)
        let conflicts = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(conflicts.status == 0, "\(conflicts.stderr)")
        let lines = conflicts.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "levels.sqlite: 3 conflicts in the last merge")
        #expect(lines.dropFirst().map { $0.replacingOccurrences(of: "  ", with: "") } == [
            #"levels [ix=2] background: base "cave", user "my cave", seed "cave-hd"; kept the user's"#,
            #"levels [ix=3] background: base "desert", user "my desert", seed "desert-hd"; kept the user's"#,
            #"levels [ix=5] background: base "forest", user NULL, seed "meadow-hd"; kept the user's"#,
        ])
    }

    @Test func aRefusedMergeWritesTheKeyAsConflictsDoes() throws {
        try deployV1AndEdit("fail")
        let refused = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "fail"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("(the first: table \"levels\", key [ix=2], column \"background\")"), "\(refused.stderr)")
        let conflicts = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(conflicts.stdout.contains("  levels [ix=2] background: base \"cave\", user \"my cave\", seed \"cave-hd\"; nothing kept: the merge was refused"), "\(conflicts.stdout)")
    }

    /// A merge refused under `fail` leaves its conflicts file, yet its line ended `nothing
    /// was changed`. It says what was left as it was, and where the conflicts are; its dry
    /// run, which writes no conflicts file, still changed nothing.
    @Test func aRefusedMergeSaysWhereItLeftTheConflicts() throws {
        try deployV1AndEdit("fail")
        let refusal = "seeddb: error: cannot carry the user's data into \(cli.workingCopy): merge refused under policy \"fail\": 3 conflicts (the first: table \"levels\", key [ix=2], column \"background\")"
        let dryRun = try cli.run(["deploy", "--dry-run"] + cli.seedFlags(2) + ["--merge", "fail"])
        #expect(dryRun.status == 65)
        #expect(dryRun.stderr == refusal + "; nothing was changed\n", "\(dryRun.stderr)")
        let refused = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "fail"])
        #expect(refused.status == 65)
        #expect(refused.stderr == refusal + "; the working copy was not changed; the conflicts are in \(cli.workingCopy).conflicts.json; `seeddb conflicts` lists them\n", "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy + ".conflicts.json"))
    }

    @Test func conflictsSaysWhenNoMergeHasRun() throws {
        #expect(try cli.run(["conflicts"] + cli.seedFlags(1)).stdout == "levels.sqlite: no merge has run\n", "nothing deployed")
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + ["--merge", "user-wins"]).status == 0)
        #expect(try cli.run(["conflicts"] + cli.seedFlags(1)).stdout == "levels.sqlite: no merge has run\n", "a first install merges nothing")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let result = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(result.stdout == "levels.sqlite: no merge has run\n", "merging is off")
        #expect(try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).stdout == #"{"seeds":[{"name":"levels.sqlite","conflicts":[]}]}"# + "\n")
    }

    /// A directory at `<name>.conflicts.json` was renamed by a merging run to a temporary
    /// name no run could remove, and `purge` then exited 73. A run that would merge refuses
    /// it, as a directory at the working-copy path (73, one line naming it, nothing
    /// changed), and so does its dry run; a run that merges nothing goes on and leaves it;
    /// `purge` refuses it before removing anything, and removes everything once it is
    /// moved away.
    @Test func aDirectoryAtTheConflictsFileIsRefusedAndNeverMoved() throws {
        try deployV1AndEdit("user-wins")
        let directory = cli.workingCopy + ".conflicts.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: directory + "/notes.txt"))
        let before = cli.state()
        for command in [["deploy", "--dry-run"], ["deploy"], ["reseed"]] {
            let refused = try cli.run(command + cli.seedFlags(2) + ["--merge", "user-wins"])
            #expect(refused.status == 73, "\(command): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr == "seeddb: error: cannot merge into \(cli.workingCopy): \(directory) is a directory, not SeedDB's conflicts file, and SeedDB never replaces it; nothing was changed; move it away and run again\n", "\(command)")
            #expect(cli.state() == before, "\(command): the refused run changed something")
        }
        let purgeFlags = ["--app", cli.app, "--name", "levels.sqlite"]
        let purge = try cli.run(["purge"] + purgeFlags)
        #expect(purge.status == 73, "\(purge.stdout) \(purge.stderr)")
        #expect(purge.stderr == "seeddb: error: cannot purge \(cli.workingCopy): \(directory) is a directory, not SeedDB's conflicts file, and SeedDB never removes it; nothing was changed; move it away and run again\n")
        #expect(cli.state() == before, "the refused purge removed something")

        let unmerged = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "off"])
        #expect(unmerged.status == 0, "\(unmerged.stderr)")
        #expect(cli.temporaryFiles.isEmpty, "\(cli.list(cli.appData))")
        #expect(FileManager.default.fileExists(atPath: directory + "/notes.txt"))
        try FileManager.default.moveItem(atPath: directory, toPath: cli.root + "/moved")
        let purged = try cli.run(["purge"] + purgeFlags)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData), "\(cli.list(cli.appData))")
    }

    /// `purge` of several working copies (a manifest's, or `--name` given twice) stopped at
    /// the first it refused (a directory at its conflicts file), having purged those before
    /// it. Every working copy's refusals are checked before anything is removed: one line,
    /// exit 73, nothing removed of any; its dry run says the same and lists nothing.
    @Test func aPurgeOfSeveralWorkingCopiesRefusedForOneRemovesNothing() throws {
        let manifest = try ReleaseIsAllOrNothingTests.release(cli, "r1", version: 1, count: 2)
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
        let directory = cli.appData + "/dict.sqlite.conflicts.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: directory + "/notes.txt"))
        let before = ReleaseIsAllOrNothingTests.state(cli)
        let line = "seeddb: error: cannot purge \(cli.appData)/dict.sqlite: \(directory) is a directory, not SeedDB's conflicts file, and SeedDB never removes it; nothing was changed; move it away and run again\n"
        let byName = ["--app", cli.app, "--name", "levels.sqlite", "--name", "dict.sqlite"]
        for command in [["purge", "--manifest", manifest], ["purge", "--manifest", manifest, "--dry-run"], ["purge"] + byName, ["purge", "--dry-run"] + byName] {
            let refused = try cli.run(command)
            #expect(refused.status == 73, "\(command): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(command): \(refused.stdout)")
            #expect(refused.stderr == line, "\(command)")
            #expect(ReleaseIsAllOrNothingTests.state(cli) == before, "\(command): the refused purge removed something")
        }
        let json = try cli.run(["purge", "--json", "--manifest", manifest])
        #expect(json.status == 73)
        #expect(try json.seeds().isEmpty, "\(json.stdout)")
        let error = try json.json()["error"] as? [String: Any]
        #expect(error?["seed"] as? String == "dict.sqlite" && error?["code"] as? Int == 73, "\(json.stdout)")
        #expect(ReleaseIsAllOrNothingTests.state(cli) == before)
    }

    /// `status` did not foresee a directory at `<name>.conflicts.json`: the next deploy, which
    /// merges the user's edits, refuses it (73). It is the seed's `"refusal"` in `--json`,
    /// the deploy's line, and a warning in words; the exit status stays 0. A seed whose
    /// next deploy merges nothing (up to date) has none.
    @Test func statusForeseesTheRefusalOfADirectoryAtTheConflictsFile() throws {
        try deployV1AndEdit("user-wins")
        let directory = cli.workingCopy + ".conflicts.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let line = "cannot merge into \(cli.workingCopy): \(directory) is a directory, not SeedDB's conflicts file, and SeedDB never replaces it; nothing was changed; move it away and run again"
        let json = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try json.seeds().first?["refusal"] as? String == line, "\(json.stdout)")
        let human = try cli.run(["status"] + cli.seedFlags(2))
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stderr.split(separator: "\n").contains { $0.hasSuffix(line) }, "\(human.stderr)")
        let upToDate = try cli.run(["status", "--json"] + cli.seedFlags(1))
        #expect(try upToDate.seeds().first?["refusal"] == nil, "\(upToDate.stdout)")
    }

    /// `seeddb conflicts` on a directory at `<name>.conflicts.json` said `cannot read …: is a
    /// directory` (73). It says what it is and what to do: one line naming the path, exit 73
    /// as the merging run's refusal of it; `--json` is the usual object with `"error"`.
    @Test func conflictsOnADirectorySaysItIsOneToMoveAway() throws {
        try deployV1AndEdit("user-wins")
        let directory = cli.workingCopy + ".conflicts.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let human = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(human.status == 73, "\(human.stdout) \(human.stderr)")
        #expect(human.stdout.isEmpty, "\(human.stdout)")
        #expect(human.stderr == "seeddb: error: cannot read the conflicts in \(directory): it is a directory, not SeedDB's conflicts file, and no merge writes there while it is (a run that would merge refuses it); move it away\n")
        let json = try cli.run(["conflicts", "--json"] + cli.seedFlags(2))
        #expect(json.status == 73)
        let error = try json.json()["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 73 && (error?["message"] as? String)?.contains("it is a directory") == true, "\(json.stdout)")
    }

    /// A link at `<name>.conflicts.json` (here one to nothing) is not a directory: the merge
    /// writes its conflicts in its place, as over a stale conflicts file. (A review found a
    /// refusal of anything but a regular file there stopping every upgrade, 73.)
    @Test func aLinkAtTheConflictsFileIsReplacedByTheMergesConflicts() throws {
        try deployV1AndEdit("user-wins")
        let conflicts = cli.workingCopy + ".conflicts.json"
        try FileManager.default.createSymbolicLink(atPath: conflicts, withDestinationPath: cli.root + "/nowhere")
        let merged = try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: conflicts)) == nil, "the link is still there")
        #expect(try cli.run(["conflicts"] + cli.seedFlags(2)).status == 0)
        #expect(cli.temporaryFiles.isEmpty, "\(cli.list(cli.appData))")
    }

    /// A damaged conflicts file once read as "no conflicts in the last merge", and `--json`
    /// pasted its bytes into the output (exit 0 both): it is one error line naming the file
    /// (65, a damaged file as `verify`'s damaged working copy), and `--json` is still one
    /// JSON object. A file of whitespace alone still lists no conflicts.
    @Test(arguments: [
        ("truncated", #"[{"table":"levels","key":{"ix":2},"column":"backgr"#),
        ("not JSON", "garbage\n"),
        ("not a list of conflicts", #"{"a":1}"#),
        ("a conflict without its side kept", #"[{"table":"levels","key":{"ix":2},"column":"background"}]"#),
    ])
    func aDamagedConflictsFileIsAnErrorNamingIt(_ label: String, _ damage: String) throws {
        try deployV1AndEdit("user-wins")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"]).status == 0)
        let file = cli.workingCopy + ".conflicts.json"
        try Data(damage.utf8).write(to: URL(fileURLWithPath: file))
        let human = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(human.status == 65, "\(label): \(human.stdout) \(human.stderr)")
        #expect(human.stdout.isEmpty, "\(label): \(human.stdout)")
        #expect(human.stderr.hasPrefix("seeddb: error: cannot read the conflicts in \(file): the file is damaged ("), "\(label): \(human.stderr)")
        #expect(human.stderr.split(separator: "\n").count == 1, "\(label): \(human.stderr)")
        let json = try cli.run(["conflicts", "--json"] + cli.seedFlags(2))
        #expect(json.status == 65, "\(label): \(json.stdout)")
        let object = try json.json()
        #expect((object["error"] as? [String: Any])?["code"] as? Int == 65, "\(label): \(json.stdout)")
        #expect((object["seeds"] as? [Any])?.isEmpty == true, "\(label): \(json.stdout)")

        try Data(" \t\r\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try cli.run(["conflicts"] + cli.seedFlags(2)).stdout == "levels.sqlite: no conflicts in the last merge\n")
        #expect(try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).stdout == #"{"seeds":[{"name":"levels.sqlite","conflicts":[]}]}"# + "\n")
    }

    /// `--json` lists the conflicts as the human form does, from the same values: a row
    /// conflict's sides as objects, a cell's as values, the side kept.
    @Test func theJSONListsTheConflictsTheLinesShow() throws {
        try deployV1AndEdit("user-wins")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"]).status == 0)
        let list = try #require(try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).seeds().first?["conflicts"] as? [[String: Any]])
        #expect(list.count == 3)
        let cave = try #require(list.first { ($0["key"] as? [String: Any])?["ix"] as? Int == 2 })
        #expect(cave["table"] as? String == "levels" && cave["column"] as? String == "background")
        #expect(cave["base"] as? String == "cave" && cave["user"] as? String == "my cave" && cave["seed"] as? String == "cave-hd" && cave["kept"] as? String == "user")
        #expect(list.contains { ($0["key"] as? [String: Any])?["ix"] as? Int == 5 && $0["user"] is NSNull })
    }

    @Test(arguments: [["--merge", "off"], ["--merge", "user-wins"]])
    func aRollbackForgetsTheRolledBackMergesConflicts(rollbackFlags: [String]) throws {
        try deployV1AndEdit("user-wins")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + ["--merge", "user-wins"]).status == 0)
        #expect(try cli.run(["conflicts"] + cli.seedFlags(2)).stdout.contains("my cave"))

        let rollback = try cli.run(["rollback"] + cli.seedFlags(2) + rollbackFlags)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let conflicts = try cli.run(["conflicts"] + cli.seedFlags(2))
        #expect(conflicts.status == 0)
        #expect(!conflicts.stdout.contains("cave-hd"), "the rolled-back merge's conflicts are gone: \(conflicts.stdout)")
        #expect(try cli.run(["conflicts", "--json"] + cli.seedFlags(2)).seeds().first?["conflicts"] as? [Any] != nil)
        if rollbackFlags == ["--merge", "off"] {
            #expect(conflicts.stdout == "levels.sqlite: no merge has run\n")
            #expect(!FileManager.default.fileExists(atPath: cli.workingCopy + ".conflicts.json"))
        }
    }
}
