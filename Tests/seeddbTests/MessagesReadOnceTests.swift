import Foundation
import Testing

/// Issue 29, item 2: messages a person reads once say exactly what they mean, in words,
/// one way everywhere.
@Suite struct MessagesReadOnceTests {
    let cli = CLIHarness()

    /// Each command's usage line says exactly what is missing, once.
    @Test(arguments: [
        (["status"], "missing --manifest FILE, or --app ID, --seed PATH and --version STRING"),
        (["verify", "--app", "com.example.levels", "--name", "levels.sqlite"], "missing --seed PATH and --version STRING: one seed takes --app, --seed and --version (or give --manifest FILE)"),
        (["deploy", "--app", "com.example.levels", "--seed", "levels.sqlite"], "missing --version STRING: one seed takes --app, --seed and --version (or give --manifest FILE)"),
        (["paths", "--seed", "levels.sqlite", "--version", "1"], "missing --app ID: one seed takes --app, --seed and --version (or give --manifest FILE)"),
        (["conflicts"], "missing --manifest FILE, or --app ID and --name FILE"),
        (["rollback", "--app", "com.example.levels"], "missing --name FILE: a working copy takes --app and --name (or give --manifest FILE)"),
        (["maintain", "--name", "levels.sqlite"], "missing --app ID: a working copy takes --app and --name (or give --manifest FILE)"),
        (["purge", "--app", "com.example.levels"], "missing --name FILE: a working copy takes --app and --name (or give --manifest FILE)"),
    ])
    func aUsageLineSaysWhatIsMissing(arguments: [String], message: String) throws {
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "seeddb: error: \(message)\n")
    }

    @Test func anOptionGivenTwiceIsAnErrorNamingBoth() throws {
        var result = try cli.run(["deploy", "--manifest", "a.json", "--manifest", "b.json"])
        #expect(result.status == 64)
        #expect(result.stderr == "seeddb: error: --manifest given twice (\"a.json\" and \"b.json\"); it takes one value\n")
        result = try cli.run(["deploy", "--version=1", "--version", "2", "--app", cli.app, "--seed", DemoSeeds.v1])
        #expect(result.stderr == "seeddb: error: --version given twice (\"1\" and \"2\"); it takes one value\n")
        result = try cli.run(["status", "--json", "--json"] + cli.seedFlags(1))
        #expect(result.stderr == "seeddb: error: --json given twice; give it once\n")
        // Options that repeat still do.
        result = try cli.run(["deploy", "--merge-table", "levels=user-wins", "--merge-table", "progress=seed-wins"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func actionsAreWordsNotJSON() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let dryRun = try cli.run(["rollback", "--dry-run", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(dryRun.stdout == "levels.sqlite: would be rolled back 2 -> 1 by swap (\(cli.workingCopy))\n")
        let rollback = try cli.run(["rollback", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.stdout == "levels.sqlite: rolled back 2 -> 1 by swap (\(cli.workingCopy))\n")
        let json = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(try json.seeds().first?["action"] as? String == "unchanged")

        // A working copy gone: restored at its version, not "restored 1 -> 1".
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let restored = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(restored.stdout == "levels.sqlite: restored at 1 (\(cli.workingCopy))\n", "\(restored.stdout)")
    }

    @Test func helpListsWhatTheCommandTakes() throws {
        let root = try cli.run(["--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(root.contains("\n  --version               Show the version of seeddb.\n"))
        #expect(try cli.run([], environment: ["COLUMNS": "80"]).stdout == root)
        for command in ["rollback", "conflicts", "maintain"] {
            let help = try cli.run([command, "--help"], environment: ["COLUMNS": "80"]).stdout
            #expect(!help.contains("default: the seed's"), "\(command) --help promises a default from a seed it never takes")
            #expect(help.contains("--name <file>           The working copy's file name (with --app)."), "\(command)")
        }
        #expect(try cli.run(["status", "--help"], environment: ["COLUMNS": "80"]).stdout.contains("held\n(rolled back"))
    }
}
