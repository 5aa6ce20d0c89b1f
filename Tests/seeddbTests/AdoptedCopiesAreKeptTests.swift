import Foundation
import Testing

/// What SeedDB could not account for stays until someone says otherwise: a database
/// adopted with a damaged settings file is kept as the previous generation, and a later
/// replace that would drop it keeps it as `<name>.adopted-<UTC stamp>` instead; `status`
/// lists it, `rollback` says how to restore it, `purge --adopted` and `purge` remove it.
@Suite struct AdoptedCopiesAreKeptTests {
    @Test func anAdoptedDatabaseOutlivesTheNextRotation() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let edit = try cli.shell("sqlite3 '\(cli.workingCopy)' \"UPDATE levels SET background = 'the user wrote this' WHERE ix = 3\"")
        #expect(edit.status == 0, "\(edit.stderr)")
        try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: cli.settingsFile))

        // Adopted: the database found becomes the previous generation.
        let adopting = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(adopting.status == 0, "\(adopting.stderr)")
        #expect(try adopting.seeds().first?["adopted"] as? Bool == true, "\(adopting.stdout)")

        // The next replace would drop it: it is kept under a stamp instead.
        let upgrade = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let adopted = cli.list(cli.appData).filter { $0.hasPrefix("levels.sqlite.adopted-") }
        try #require(adopted.count == 1, "\(cli.list(cli.appData))")
        let stamp = adopted[0].dropFirst("levels.sqlite.adopted-".count)
        #expect(stamp.count == 16 && stamp.hasSuffix("Z") && stamp.contains("T"), "not a UTC stamp: \(stamp)")
        let path = cli.appData + "/" + adopted[0]
        let row = try cli.shell("sqlite3 -readonly '\(path)' \"SELECT background FROM levels WHERE ix = 3\"")
        #expect(row.stdout == "the user wrote this\n", "the user's row is in no file: \(row.stdout) \(row.stderr)")
        #expect(upgrade.stderr.contains(adopted[0]), "the run did not say where it kept it: \(upgrade.stderr)")

        let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(try status.seeds().first?["adoptedCopies"] as? [String] == [path], "\(status.stdout)")
        let human = try cli.run(["status"] + cli.seedFlags(2))
        #expect(human.stdout.contains("adopted copy (kept; seeddb purge --adopted removes it): \(path)"), "\(human.stdout)")

        // Later rotations leave it alone; a rollback with nothing left names it.
        #expect(try cli.run(["reseed"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 0)
        let nothing = try cli.run(["rollback"] + cli.seedFlags(2))
        #expect(nothing.status == 66)
        #expect(nothing.stderr.contains(path) && nothing.stderr.contains("purge --adopted"), "\(nothing.stderr)")
        #expect(FileManager.default.fileExists(atPath: path))

        // Only purge removes it: --adopted alone, then everything.
        let dryRun = try cli.run(["purge", "--adopted", "--dry-run", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(dryRun.status == 0 && FileManager.default.fileExists(atPath: path), "\(dryRun.stderr)")
        let purged = try cli.run(["purge", "--adopted", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy), "purge --adopted removed the working copy")
        #expect(cli.settingsEntry()?["version"] as? String == "2")
    }

    /// An adopted copy never takes a name whose `-wal`, `-shm` or `-journal` is on disk
    /// (SQLite would replay that sidecar into it): stale sidecars named for every stamp
    /// around the run's start. The stamp was checked against adopted copies only, so the
    /// copy was renamed beside a foreign `-wal` and read as a mix of two databases.
    @Test func anAdoptedCopyNeverTakesTheNameOfAStaleSidecar() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"UPDATE levels SET background = 'the user wrote this' WHERE ix = 3\"").status == 0)
        try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var planted: Set<String> = []
        for offset in -5...30 {
            let stamp = formatter.string(from: Date().addingTimeInterval(Double(offset)))
            for suffix in ["-wal", "-shm", "-journal"] {
                let name = "levels.sqlite.adopted-\(stamp)\(suffix)"
                try Data("stale".utf8).write(to: URL(fileURLWithPath: cli.appData + "/" + name))
                planted.insert(name)
            }
        }
        let upgrade = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let adopted = cli.list(cli.appData).filter { $0.hasPrefix("levels.sqlite.adopted-") && !planted.contains($0) }
        try #require(adopted.count == 1, "\(cli.list(cli.appData))")
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!planted.contains(adopted[0] + suffix), "\(adopted[0]) was named beside a stale \(suffix)")
        }
        let row = try cli.shell("sqlite3 -readonly '\(cli.appData)/\(adopted[0])' \"SELECT background FROM levels WHERE ix = 3\"")
        #expect(row.stdout == "the user wrote this\n", "\(row.stdout) \(row.stderr)")
    }

    /// Files of the user's own whose names only look like an adopted copy's (or a
    /// generation's, a base's) are nobody's business of SeedDB's: `status` does not list
    /// them, `purge --adopted` and `purge` leave them with their bytes.
    @Test func theUsersFilesNamedLikeAdoptedCopiesAreNotSeedDBs() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let names = [
            "levels.sqlite.adopted-mine", "levels.sqlite.adopted-20261126T071500Z.bak", "levels.sqlite.adopted-20261126T071500Z-1",
            "levels.sqlite.v01", "levels.sqlite.previous.bak", "levels.sqlite.base.bak",
        ]
        for name in names {
            try Data("the user's \(name)".utf8).write(to: URL(fileURLWithPath: cli.appData + "/" + name))
        }
        let status = try cli.run(["status", "--json"] + cli.seedFlags(1))
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try status.seeds().first?["adoptedCopies"] == nil, "\(status.stdout)")
        #expect(try cli.run(["purge", "--adopted", "--app", cli.app, "--name", "levels.sqlite"]).status == 0)
        let purged = try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy), "purge left the working copy")
        for name in names {
            let bytes = FileManager.default.contents(atPath: cli.appData + "/" + name)
            #expect(bytes == Data("the user's \(name)".utf8), "purge removed or changed the user's \(name)")
        }
    }

    /// A database put where the link was, while the recorded generation is still there, is
    /// adopted (it was taken for the recorded content, and a killed replace's finish then
    /// rotated the generation away); that generation, which nothing names any more and may
    /// hold what the user wrote, is kept and listed by `status` (`"unaccountedGenerations"`).
    @Test func aFileInTheLinksPlaceIsAdoptedAndTheGenerationItHidKeptAndListed() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let mine = try cli.shell("""
            sqlite3 '\(cli.workingCopy)' "CREATE TABLE probe(id INTEGER PRIMARY KEY); INSERT INTO probe VALUES (7)" \
            && rm '\(cli.workingCopy)' && cp '\(CLIHarness.seeds)/v1/levels.sqlite' '\(cli.workingCopy)' && chmod 0644 '\(cli.workingCopy)'
            """)
        #expect(mine.status == 0, "\(mine.stderr)")
        let deploy = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(deploy.status == 0 && deploy.stdout.contains("the database found was kept as the previous generation"), "\(deploy.stdout)\(deploy.stderr)")
        #expect(try cli.shell("sqlite3 -readonly '\(cli.appData)/levels.sqlite.v1' 'SELECT id FROM probe'").stdout == "7\n", "the generation the file hid is kept")
        let status = try cli.run(["status", "--json"] + cli.seedFlags(1))
        let listed = try status.seeds().first?["unaccountedGenerations"] as? [String]
        #expect(listed == [cli.appData + "/levels.sqlite.v1"], "\(status.stdout)")
        let text = try cli.run(["status"] + cli.seedFlags(1))
        #expect(text.stdout.contains("generation nothing names (kept: it may hold what the user wrote; seeddb purge removes it): \(cli.appData)/levels.sqlite.v1"), "\(text.stdout)")
    }
}
