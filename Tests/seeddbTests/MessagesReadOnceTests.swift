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
        #expect(rollback.stdout == "levels.sqlite: rolled back 2 -> 1 by swap; merged: no changes of the user's (\(cli.workingCopy))\n")
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

    @Test func anEmptySeedSaysItIsEmpty() throws {
        let empty = cli.root + "/empty.sqlite"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let result = try cli.run(["deploy", "--app", cli.app, "--seed", empty, "--version", "1"])
        #expect(result.status == 65)
        #expect(result.stderr == "seeddb: error: invalid seed \(empty): the file is empty (0 bytes), not an SQLite 3 database\n")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))

        // Compressed: empty once decompressed.
        let compressed = cli.root + "/empty.sqlite.zst"
        #expect(try cli.shell("zstd -q '\(empty)' -o '\(compressed)'").status == 0)
        let zst = try cli.run(["deploy", "--app", cli.app, "--seed", compressed, "--version", "1"])
        #expect(zst.status == 65)
        #expect(zst.stderr == "seeddb: error: invalid seed \(compressed): the file is empty once decompressed (0 bytes), not an SQLite 3 database\n")
    }

    @Test func packNamesTheLineOfTheFailingStatement() throws {
        let syntax = cli.root + "/bad.sql"
        try Data("CREATE TABLE t(a);\n\n-- the data\nINSERT INTO t VALUES(1);\nSELEC 1;\n".utf8).write(to: URL(fileURLWithPath: syntax))
        var result = try cli.run(["pack", syntax, "--output", cli.root + "/out.sqlite"])
        #expect(result.status == 65)
        #expect(result.stderr == "seeddb: error: SQL error in \(syntax), line 5: near \"SELEC\": syntax error\n")
        let constraint = cli.root + "/twice.sql"
        try Data("CREATE TABLE t(a PRIMARY KEY);\nINSERT INTO t VALUES(1);\nINSERT INTO t\n  VALUES(1);\n".utf8).write(to: URL(fileURLWithPath: constraint))
        result = try cli.run(["pack", constraint, "--output", cli.root + "/out.sqlite"])
        #expect(result.stderr == "seeddb: error: SQL error in \(constraint), line 3: UNIQUE constraint failed: t.a\n")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/out.sqlite"))
    }

    @Test func packTakesAVersionOnlyWhereSomethingRecordsIt() throws {
        let script = cli.root + "/ok.sql"
        try Data("CREATE TABLE t(a);\nINSERT INTO t VALUES(1);\n".utf8).write(to: URL(fileURLWithPath: script))
        let plain = try cli.run(["pack", script, "--output", cli.root + "/a.sqlite"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.hasPrefix("\(cli.root)/a.sqlite: packed, 8192 bytes, sha256 "), "\(plain.stdout)")
        let json = try cli.run(["pack", script, "--output", cli.root + "/b.sqlite", "--json"]).json()
        #expect(json["version"] == nil && json["sha256"] != nil)
        let manifest = try cli.run(["pack", script, "--output", cli.root + "/c.sqlite", "--manifest", cli.root + "/seeds.json", "--app", cli.app])
        #expect(manifest.status == 64)
        #expect(manifest.stderr == "seeddb: error: missing --version STRING: the manifest records the seed's version\n")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/seeds.json"))
    }

    /// The text files SeedDB writes end with a newline, as POSIX text files do.
    @Test func filesSeedDBWritesEndWithANewline() throws {
        let script = cli.root + "/ok.sql"
        try Data("CREATE TABLE t(a);\n".utf8).write(to: URL(fileURLWithPath: script))
        let manifest = cli.root + "/seeds.json"
        #expect(try cli.run(["pack", script, "--output", cli.root + "/s.sqlite", "--version", "1", "--manifest", manifest, "--app", cli.app, "--serial", "1"]).status == 0)
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", cli.root + "/k.pub", "--secret-key", cli.root + "/k.key"]).status == 0)
        #expect(try cli.run(["sign", "--key", cli.root + "/k.key", manifest]).status == 0)
        #expect(try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(1)).status == 0)
        // A write, so the upgrade merges (and writes the conflicts file).
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE scratch(x); DROP TABLE scratch'").status == 0)
        #expect(try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(2)).status == 0)
        for file in [manifest, manifest + ".minisig", cli.root + "/k.pub", cli.root + "/k.key", cli.settingsFile, cli.workingCopy + ".conflicts.json"] {
            let bytes = try #require(cli.bytes(file), "\(file) was not written")
            #expect(bytes.last == 0x0A, "\(file) does not end with a newline")
        }
    }
}
