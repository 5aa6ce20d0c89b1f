import Foundation
import Testing

/// A table is the app's only if the seed it was deployed from lacked it: the seed's tables
/// are recorded with each deploy, so a table a newer seed added is dropped by a downgrade
/// (unless preserved), and a table the app created is carried whatever the seeds hold.
@Suite struct SeedTablesTests {
    let cli = CLIHarness()

    func seed(_ name: String, _ sql: String) throws -> String {
        let path = cli.root + "/" + name
        let result = try cli.shell("sqlite3 '\(path)' \"\(sql)\"")
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    func tables() throws -> [String] {
        try cli.shell("sqlite3 '\(cli.workingCopy)' \"SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name\"").stdout
            .split(separator: "\n").map(String.init)
    }

    func flags(_ source: String, _ version: String) -> [String] {
        ["--app", cli.app, "--seed", source, "--version", version, "--name", "levels.sqlite"]
    }

    @Test func aTableADowngradedSeedLacksGoesAndTheAppsOwnStays() throws {
        let v1 = try seed("v1.sqlite", "CREATE TABLE levels(ix INTEGER PRIMARY KEY); INSERT INTO levels VALUES (1);")
        let v2 = try seed("v2.sqlite", "CREATE TABLE levels(ix INTEGER PRIMARY KEY); CREATE TABLE news(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO news VALUES (1, 'new in 2');")
        #expect(try cli.run(["deploy"] + flags(v2, "2")).status == 0)
        try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE mine(x); INSERT INTO mine VALUES (1);'")
        let downgrade = try cli.run(["deploy", "--json"] + flags(v1, "1"))
        #expect(downgrade.status == 0, "\(downgrade.stderr)")
        #expect(try downgrade.seeds().first?["carried"] as? [String] == ["mine"], "\(downgrade.stdout)")
        #expect(try tables() == ["levels", "mine"])
    }

    @Test func aPreservedTableADowngradedSeedLacksIsKept() throws {
        let v1 = try seed("v1.sqlite", "CREATE TABLE levels(ix INTEGER PRIMARY KEY);")
        let v2 = try seed("v2.sqlite", "CREATE TABLE levels(ix INTEGER PRIMARY KEY); CREATE TABLE news(id INTEGER PRIMARY KEY);")
        #expect(try cli.run(["deploy"] + flags(v2, "2")).status == 0)
        let downgrade = try cli.run(["deploy", "--json", "--preserve", "news"] + flags(v1, "1"))
        #expect(downgrade.status == 0, "\(downgrade.stderr)")
        #expect(try tables() == ["levels", "news"])
    }
}
