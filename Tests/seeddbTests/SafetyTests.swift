import Foundation
import GRDB
import Testing

/// The promises in the README's safety section, each as a test that would catch its breaking.
@Suite struct SafetyTests {
    let cli = CLIHarness()

    func seedBytes(_ version: Int) -> Data? {
        cli.bytes("\(CLIHarness.seeds)/v\(version)/levels.sqlite")
    }

    /// Leaves committed-but-uncheckpointed WAL frames (or a hot journal) beside the
    /// working copy, as an app killed mid-session does.
    func crashWhileWriting(journalMode: String) throws {
        let script = """
        import os, sqlite3
        c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
        c.execute('PRAGMA journal_mode=\(journalMode)')
        c.execute('PRAGMA wal_autocheckpoint=0')
        c.execute('PRAGMA cache_size=1')
        if '\(journalMode)' == 'wal':
            c.execute("UPDATE levels SET background = 'written-by-app'")
        else:
            c.execute('BEGIN')
            c.execute("UPDATE levels SET background = 'half-written', map = zeroblob(3000)")
        os._exit(0)
        """
        let result = try cli.shell("python3 -c \"$SCRIPT\"".replacingOccurrences(of: "$SCRIPT", with: script.replacingOccurrences(of: "\"", with: "\\\"")))
        #expect(result.status == 0, "\(result.stderr)")
    }

    // Merging off: the new copy is the seed's bytes, nothing of the old copy's carried.
    @Test func staleWALOfTheOldCopyIsNotReplayedIntoTheNewOne() throws {
        try cli.run(["deploy", "--merge", "off"] + cli.seedFlags(1))
        try crashWhileWriting(journalMode: "wal")
        let wal = try #require(cli.bytes(cli.contentFile + "-wal"))
        #expect(wal.count > 32, "the fixture must leave WAL frames")

        let result = try cli.run(["deploy", "--json", "--merge", "off"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.bytes(cli.workingCopy) == seedBytes(2))
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.lock", "levels.sqlite.previous", cli.generationFile])
    }

    @Test func hotJournalOfTheOldCopyIsNotReplayedIntoTheNewOne() throws {
        try cli.run(["deploy", "--merge", "off"] + cli.seedFlags(1))
        try crashWhileWriting(journalMode: "delete")
        #expect(FileManager.default.fileExists(atPath: cli.contentFile + "-journal"), "the fixture must leave a hot journal")

        let result = try cli.run(["deploy", "--merge", "off"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.bytes(cli.workingCopy) == seedBytes(2))
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.lock", "levels.sqlite.previous", cli.generationFile])
    }

    @Test func aRemovedLinkIsPutBackWithTheGenerationAndItsWAL() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try crashWhileWriting(journalMode: "wal")
        let generation = cli.generationFile
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let result = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(try result.seeds().first?["action"] as? String == "restored")
        #expect(cli.generationFile == generation, "the recorded generation is the working copy again, nothing copied")
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.base", "levels.sqlite.lock", generation, generation + "-shm", generation + "-wal"],
                "the WAL holding committed rows stays with its database")
    }

    @Test func badChecksumLeavesEverythingByteIdentical() throws {
        try cli.run(["deploy"] + cli.seedFlags(1) + ["--location", "data"])
        let copy = cli.bytes(cli.workingCopy)
        let settings = cli.bytes(cli.settingsFile)
        let wrong = String(repeating: "0", count: 64)
        let result = try cli.run(["deploy"] + cli.seedFlags(2) + ["--sha256", wrong])
        #expect(result.status == 65)
        #expect(result.stderr.contains("SHA-256"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(cli.bytes(cli.workingCopy) == copy)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.base", "levels.sqlite.lock", "levels.sqlite.v1"])
    }

    @Test(arguments: ["wal", "delete"])
    func aTransactionInAnotherProcessBlocksTheSwap(journalMode: String) throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        // Another process holds a read transaction (rollback) or just has the file open (WAL).
        let begin = journalMode == "wal" ? "" : "c.execute('BEGIN'); "
        let holder = try cli.hold("""
        import sqlite3
        c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
        c.execute('PRAGMA journal_mode=\(journalMode)')
        \(begin)c.execute('SELECT count(*) FROM levels').fetchall()
        """)
        defer { holder.release() }
        let before = cli.bytes(cli.workingCopy)

        let result = try cli.run(["reseed", "--strategy", "swap", "--wait", "0.3"] + cli.seedFlags(2))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("database in use by another process"))
        #expect(cli.bytes(cli.workingCopy) == before)
        #expect(cli.bytes(cli.workingCopy) != seedBytes(2))
    }

    /// As root, the directory that holds the app's must be one no other account can write
    /// (it could move the app's directory away under the run), `--owner` or not: a run
    /// refused it (73) where its dry run said it would install, and the line offered the
    /// `--owner` already given (a contract probe). The dry run refuses it as the run does,
    /// and the line says to run as that account.
    @Test(.enabled(if: getuid() == 0, "the root safety rule applies to root"))
    func theDirectoryThatHoldsTheAppsIsCheckedByTheDryRunAsByTheRun() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try #require(try cli.shell("chown nobody '\(cli.root)/data'").status == 0)
        let words = "seeddb: error: refusing to write into \(cli.root)/data as root: it can be written by a non-root user (owner uid 65534, mode 700); tighten it, or run SeedDB as that account\n"
        let before = cli.state()
        for command in [["deploy"] + cli.seedFlags(2), ["purge", "--app", cli.app, "--name", "levels.sqlite"]] {
            for dryRun in [[], ["--dry-run"]] {
                let refused = try cli.run(command + ["--owner", "nobody"] + dryRun)
                #expect(refused.status == 73, "\(command[0]) \(dryRun): \(refused.stdout) \(refused.stderr)")
                #expect(refused.stderr == words, "\(command[0]) \(dryRun): \(refused.stderr)")
            }
        }
        #expect(cli.state() == before, "a refused run changed something")
    }

    /// As root, `maintain`'s lock refuses (73) an app's directory, or the directory that
    /// holds it, that another account can write, where its dry run said it would vacuum.
    /// The dry run refuses them as the run does, with the same line.
    @Test(.enabled(if: getuid() == 0, "the root safety rule applies to root"))
    func theDirectoriesMaintainsLockChecksAreCheckedByItsDryRun() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let maintain = ["maintain", "--app", cli.app, "--name", "levels.sqlite", "--every", "0"]
        let refusals = [
            ("\(cli.root)/data", "seeddb: error: refusing to write into \(cli.root)/data as root: it can be written by a non-root user (owner uid 65534, mode 700); tighten it, or run SeedDB as that account\n"),
            (cli.appData, "seeddb: error: refusing to write into \(cli.appData) as root: it can be written by a non-root user (owner uid 65534, mode 700); tighten it or pass --owner for its owner\n"),
        ]
        for (directory, words) in refusals {
            try #require(try cli.shell("chown nobody '\(directory)'").status == 0)
            let before = cli.state()
            for dryRun in [[], ["--dry-run"]] {
                let refused = try cli.run(maintain + dryRun)
                #expect(refused.status == 73, "\(directory) \(dryRun): \(refused.stdout) \(refused.stderr)")
                #expect(refused.stderr == words, "\(directory) \(dryRun): \(refused.stderr)")
            }
            #expect(cli.state() == before, "\(directory): a refused run changed something")
            try #require(try cli.shell("chown root '\(directory)'").status == 0)
        }
    }

    @Test func corruptSettingsAreSetAsideAndTheSeedRedeployed() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try Data("{\"seeddb\": {trunc".utf8).write(to: URL(fileURLWithPath: cli.settingsFile))

        // Read-only commands report it and change nothing.
        let status = try cli.run(["status", "--json"] + cli.seedFlags(1))
        #expect(status.status == 0)
        #expect(status.stderr.contains("corrupt"))
        #expect(try status.seeds().first?["state"] as? String == "not-installed")
        let dryRun = try cli.run(["deploy", "--dry-run", "--json"] + cli.seedFlags(1))
        #expect(dryRun.status == 0)
        #expect(dryRun.stderr.contains("corrupt"))
        #expect(try dryRun.seeds().first?["action"] as? String == "replaced")
        #expect(try dryRun.seeds().first?["adopted"] as? Bool == true)
        #expect(cli.list(cli.root + "/config/" + cli.app).filter { $0.contains("corrupt") }.isEmpty)

        let result = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(result.status == 0)
        // The database found has no record: adopted, kept as the previous generation.
        #expect(try result.seeds().first?["action"] as? String == "replaced")
        #expect(try result.seeds().first?["adopted"] as? Bool == true)
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy + ".previous"))
        #expect(result.stderr.contains("warning"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one warning, the settings': an adopted database is not merged: \(result.stderr)")
        let aside = cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix("settings.json.corrupt-") }
        #expect(aside.count == 1)
    }

    @Test func theAppsSettingsSurviveEveryWrite() throws {
        try FileManager.default.createDirectory(atPath: cli.root + "/config/" + cli.app, withIntermediateDirectories: true)
        try Data(#"{"highScore": 9001, "player": {"name": "Ada", "sound": false}}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        try cli.run(["deploy"] + cli.seedFlags(1))
        try cli.run(["deploy"] + cli.seedFlags(2))
        try cli.run(["reseed"] + cli.seedFlags(2))
        let document = try #require(try JSONSerialization.jsonObject(with: cli.bytes(cli.settingsFile) ?? Data()) as? [String: Any])
        #expect(document["highScore"] as? Int == 9001)
        let player = try #require(document["player"] as? [String: Any])
        #expect(player["name"] as? String == "Ada")
        #expect(player["sound"] as? Bool == false)
    }
}
