import Foundation
import Testing

/// `rollback`, `conflicts` and `maintain` never read the seed file: the app and the
/// working copy's name are enough (a person forcing a rollback by hand, a package whose
/// seed is gone). A deploy's flags are still accepted.
@Suite struct WorkingCopyByNameTests {
    let cli = CLIHarness()
    private var byName: [String] { ["--app", cli.app, "--name", "levels.sqlite"] }

    @Test func rollbackNeedsOnlyTheAppAndTheName() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let dryRun = try cli.run(["rollback", "--dry-run", "--json"] + byName)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let rollback = try cli.run(["rollback", "--json"] + byName)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let report = try #require(try rollback.seeds().first)
        #expect(report["action"] as? String == "rolled-back")
        #expect(report["from"] as? String == "2" && report["to"] as? String == "1")
        #expect(cli.settingsEntry()?["version"] as? String == "1")
        #expect(try cli.run(["rollback"] + byName).status == 66, "nothing left to roll back")
    }

    @Test func rollbackByNameCarriesWhatTheFlagsSay() throws {
        #expect(try cli.run(["deploy", "--preserve", "progress"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy", "--preserve", "progress"] + cli.seedFlags(2)).status == 0)
        try cli.shell("sqlite3 '\(cli.workingCopy)' \"CREATE TABLE IF NOT EXISTS progress(level INTEGER PRIMARY KEY, stars INTEGER); INSERT OR REPLACE INTO progress VALUES (7, 3);\"")
        #expect(try cli.run(["rollback", "--preserve", "progress"] + byName).status == 0)
        let stars = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT stars FROM progress WHERE level = 7'").stdout
        #expect(stars.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }

    @Test func conflictsAndMaintainNeedOnlyTheAppAndTheName() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let conflicts = try cli.run(["conflicts"] + byName)
        #expect(conflicts.status == 0, "\(conflicts.stderr)")
        #expect(conflicts.stdout.contains("no merge has run"))
        let maintain = try cli.run(["maintain", "--every", "0"] + byName)
        #expect(maintain.status == 0, "\(maintain.stderr)")
    }

    @Test func aDeploysFlagsAreStillAccepted() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 0)
    }

    @Test func withoutANameItIsAUsageError() throws {
        let result = try cli.run(["rollback", "--app", cli.app])
        #expect(result.status == 64)
        #expect(result.stderr == "seeddb: error: missing --name FILE: a working copy takes --app and --name (or give --manifest FILE)\n")
    }
}
