import Foundation
import Testing

/// A table name in a seed's configuration (`preserve`, `mergeTables`, `--preserve`,
/// `--merge-table`) that the seed lacks is refused at the first deploy, with the closest
/// name, exit 78, nothing written; and at an upgrade when neither copy has it.
@Suite struct TyposFailAtTheFirstDeployTests {
    let cli = CLIHarness()

    @Test(arguments: [
        (["--preserve", "progres"], "preserved table \"progres\" is not in the seed SEED; did you mean \"progress\"?; nothing was changed"),
        (["--merge-table", "level=user-wins"], "merge table \"level\" is not in the seed SEED; did you mean \"levels\"?; nothing was changed"),
    ])
    func aTypoFailsTheFirstInstall(flags: [String], message: String) throws {
        // The dry run refuses it as the run does: same line, same exit code.
        for dryRun in [["--dry-run"], []] {
            let result = try cli.run(["deploy"] + dryRun + flags + cli.seedFlags(1))
            #expect(result.status == 78, "\(dryRun) \(result.stderr)")
            #expect(result.stderr == "seeddb: error: \(message.replacingOccurrences(of: "SEED", with: "\(CLIHarness.seeds)/v1/levels.sqlite"))\n")
            #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
            #expect(cli.bytes(cli.settingsFile) == nil)
            #expect(cli.list(cli.appData).isEmpty)
        }
    }

    /// A compressed seed's tables are read from its decompressed content, as the run
    /// reads them.
    @Test func aDryRunOfACompressedSeedRefusesATypo() throws {
        let folder = cli.root + "/zst"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try cli.shell("zstd -q '\(CLIHarness.seeds)/v1/levels.sqlite' -o '\(folder)/levels.sqlite.zst'")
        #expect(made.status == 0, "\(made.stderr)")
        let flags = ["--app", cli.app, "--seed", folder + "/levels.sqlite.zst", "--version", "1", "--preserve", "progres"]
        let result = try cli.run(["deploy", "--dry-run"] + flags)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("preserved table \"progres\" is not in the seed \(folder)/levels.sqlite.zst; did you mean \"progress\"?"), "\(result.stderr)")
        #expect(try cli.run(["deploy", "--dry-run", "--app", cli.app, "--seed", folder + "/levels.sqlite.zst", "--version", "1", "--preserve", "progress"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    @Test func aManifestsMergeTablesTypoFailsTheFirstInstall() throws {
        let folder = cli.root + "/release"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: folder + "/levels.sqlite")
        let manifest = folder + "/seeds.json"
        try Data(#"{"app": "com.example.levels", "seeds": [{"source": "levels.sqlite", "version": "1", "mergeTables": {"level": "user-wins"}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78)
        #expect(result.stderr.contains("merge table \"level\" is not in the seed \(folder)/levels.sqlite; did you mean \"levels\"?"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    @Test func aTypoFailsAnUpgradeAndChangesNothing() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let settings = cli.bytes(cli.settingsFile)
        let listing = cli.list(cli.appData)
        for dryRun in [["--dry-run"], []] {
            let result = try cli.run(["deploy"] + dryRun + ["--merge", "user-wins", "--merge-table", "level=fail"] + cli.seedFlags(2))
            #expect(result.status == 78, "\(dryRun) \(result.stderr)")
            #expect(result.stderr == "seeddb: error: cannot carry the user's data into \(cli.workingCopy): merge table \"level\" is not in the working copy or the new seed; did you mean \"levels\"?; nothing was changed\n")
        }
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(cli.list(cli.appData) == listing)
    }

    @Test func aNameEitherCopyHasIsFine() throws {
        // `progress` is in the seed; a table the app made is in the working copy only.
        #expect(try cli.run(["deploy", "--preserve", "progress"] + cli.seedFlags(1)).status == 0)
        let made = try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)'")
        #expect(made.status == 0, "\(made.stderr)")
        let result = try cli.run(["deploy", "--preserve", "progress", "--preserve", "notes"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
    }
}
