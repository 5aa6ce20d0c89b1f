import Foundation
import Testing

/// A new generation never takes the name of a gone one while any file of it is on disk:
/// SQLite replays a `-wal` (or rolls back a hot `-journal`) into whatever file has its
/// name, so a second seed's file under the first one's name would come out with two
/// seeds' rows mixed, `integrity_check` saying `ok`.
///
/// The state users met: an app in WAL (or rollback-journal) mode crashed with committed
/// work in `levels.sqlite.v1-wal` (or a hot `levels.sqlite.v1-journal`); the working copy's
/// link, `levels.sqlite.v1` and the settings file were then deleted; the next deploy of
/// another seed named its generation `levels.sqlite.v1` again.
@Suite struct NamesAreNeverReusedTests {
    /// Makes the app crash mid-work on the deployed v1 in `mode`, leaving its sidecar.
    static func crashTheApp(_ cli: CLIHarness, mode: String) throws {
        let script = """
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA journal_mode=\(mode)")
            c.execute("PRAGMA wal_autocheckpoint=0")
            c.execute("PRAGMA cache_size=1")
            if "\(mode)" == "wal":
                c.execute("CREATE TABLE probe(id INTEGER PRIMARY KEY)")
                c.execute("INSERT INTO probe VALUES (1)")
                c.execute("UPDATE levels SET background = 'from seed one' WHERE ix = 1")
                os._exit(0)  # committed, never checkpointed
            c.execute("BEGIN")
            c.execute("UPDATE levels SET background = 'from seed one', map = randomblob(4096)")
            c.execute("CREATE TABLE probe(id INTEGER PRIMARY KEY, padding BLOB)")
            c.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO probe SELECT i, randomblob(4096) FROM n")
            os._exit(0)  # mid-transaction: the journal is hot
            """
        let result = try cli.shell("python3 -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))' '\(cli.contentFile)'")
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(arguments: ["wal", "delete"])
    func aNewSeedNeverMeetsAGoneGenerationsSidecar(_ mode: String) throws {
        let cli = CLIHarness()
        let first = try cli.run(["deploy"] + cli.seedFlags(1))
        try #require(first.status == 0, "\(first.stderr)")
        #expect(cli.generationFile == "levels.sqlite.v1")
        try Self.crashTheApp(cli, mode: mode)
        let sidecar = mode == "wal" ? "levels.sqlite.v1-wal" : "levels.sqlite.v1-journal"
        try #require(cli.list(cli.appData).contains(sidecar), "the crash left no \(sidecar): \(cli.list(cli.appData))")

        // The link, the generation file and the settings are deleted (a cleaner, a restore).
        for path in [cli.contentFile, cli.workingCopy, cli.settingsFile] { try FileManager.default.removeItem(atPath: path) }

        let second = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(cli.generationFile != "levels.sqlite.v1", "a name a sidecar still had was taken again")
        let rows = try cli.shell("sqlite3 '\(cli.workingCopy)' \"SELECT count(*), sum(background = 'from seed one') FROM levels; SELECT count(*) FROM sqlite_schema WHERE name = 'probe';\"")
        #expect(rows.stdout == "24|0\n0\n", "the new seed holds another database's rows: \(rows.stdout) \(rows.stderr)")
        let listing = cli.list(cli.appData)
        #expect(!listing.contains { $0.hasPrefix("levels.sqlite.v1") }, "a gone generation's sidecars were left: \(listing)")
    }

    /// A `-wal` named after the previous generation (another database's: an app that
    /// opened `.previous` and crashed, a restore) is set aside before the next previous
    /// generation takes that name; SQLite replayed it into the new `.previous`, two
    /// seeds' rows mixed.
    @Test func theNextPreviousGenerationNeverMeetsAStaleSidecar() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try Self.crashTheApp(cli, mode: "wal")
        let stash = cli.root + "/stale-wal"
        #expect(try cli.shell("cp '\(cli.contentFile)-wal' '\(stash)' && rm -f '\(cli.contentFile)-wal' '\(cli.contentFile)-shm'").status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.shell("cp '\(stash)' '\(cli.workingCopy).previous-wal'").status == 0)
        let reseed = try cli.run(["reseed"] + cli.seedFlags(2))
        #expect(reseed.status == 0, "\(reseed.stderr)")
        #expect(!cli.list(cli.appData).contains("levels.sqlite.previous-wal"), "\(cli.list(cli.appData))")
        let rows = try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT count(*) FROM sqlite_schema WHERE name = 'probe'; SELECT count(*) FROM levels WHERE background = 'from seed one';\"")
        #expect(rows.stdout == "0\n0\n", "the previous generation holds another database's rows: \(rows.stdout) \(rows.stderr)")
    }

    /// With the record kept, a gone generation's sidecars are still removed by the next
    /// run that succeeds, and `status` lists them until then.
    @Test func aGoneGenerationsSidecarsAreListedThenRemoved() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let stale = cli.appData + "/levels.sqlite.v1-wal"
        try Data("stale".utf8).write(to: URL(fileURLWithPath: stale))
        let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(try status.seeds().first?["leftovers"] as? [String] == [stale], "\(status.stdout)")
        #expect(try cli.run(["reseed"] + cli.seedFlags(2)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(cli.generationFile == "levels.sqlite.v3")
    }

    /// A file carrying the largest generation number (18 nines) does not make the next
    /// generation's name one SeedDB cannot read back (19 digits): it takes the lowest
    /// number no file has, and the next run finds its own link (it refused the working
    /// copy as a link SeedDB did not make, exit 73, for good).
    @Test func theLargestGenerationNumberDoesNotLockTheWorkingCopyOut() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try Data().write(to: URL(fileURLWithPath: cli.appData + "/levels.sqlite.v999999999999999999-wal"))
        let upgrade = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(cli.generationFile == "levels.sqlite.v2")
        let again = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.seeds().first?["action"] as? String == "unchanged", "\(again.stdout)")
    }
}
