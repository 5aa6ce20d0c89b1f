import Foundation
import GRDB
import Testing

/// End to end: the built `seeddb` binary in private XDG directories.
@Suite struct DeployCommandTests {
    let cli = CLIHarness()


    func recordedVersion() -> String? {
        cli.recorded().version
    }

    func seedBytes(_ version: Int) -> Data? {
        cli.bytes("\(CLIHarness.seeds)/v\(version)/levels.sqlite")
    }

    @Test func installUpgradeDowngradeAndNoOp() throws {
        // First install.
        var result = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
        var seed = try #require(try result.seeds().first)
        #expect(seed["action"] as? String == "installed")
        #expect(seed["from"] is NSNull)
        #expect(seed["to"] as? String == "1")
        #expect(seed["name"] as? String == "levels.sqlite")
        #expect(seed["workingCopy"] as? String == cli.workingCopy)
        #expect(cli.bytes(cli.workingCopy) == seedBytes(1))
        #expect(recordedVersion() == "1")

        // Every directory the tool created is private.
        for directory in [cli.root + "/data", cli.appData, cli.root + "/config/" + cli.app] {
            let mode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(directory)")
        }

        // Up to date: nothing happens, even with the seed gone.
        let gone = try cli.copySeed(1, to: "gone.sqlite")
        try FileManager.default.removeItem(atPath: gone)
        result = try cli.run(["deploy", "--json", "--name", "levels.sqlite"] + cli.seedFlags(1, source: gone))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["action"] as? String == "unchanged")

        // Upgrade.
        result = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        seed = try #require(try result.seeds().first)
        #expect(seed["action"] as? String == "replaced")
        #expect(seed["from"] as? String == "1")
        #expect(seed["to"] as? String == "2")
        #expect(cli.bytes(cli.workingCopy) == seedBytes(2))
        #expect(try cli.levelCount() == 24)

        // Downgrade reseeds too.
        result = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(try result.seeds().first?["action"] as? String == "replaced")
        #expect(try cli.levelCount() == 20)
        #expect(recordedVersion() == "1")

        // Only the working copy (a link to its generation file), its lock, the previous
        // generation and the merge bases (a data seed merges by default) remain: no temp
        // files, no sidecars, no older generation.
        // (the previous generation's base is compressed where it would share no bytes)
        let previousBase = cli.list(cli.appData).contains("levels.sqlite.previous.base.xor.zst") ? "levels.sqlite.previous.base.xor.zst" : "levels.sqlite.previous.base"
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.base", "levels.sqlite.lock", "levels.sqlite.previous", previousBase, cli.generationFile])
    }

    /// A swap installs a new generation in the seed's journal mode, not the old copy's
    /// (docs/running-apps.md: an app that wants WAL asks for it at each open).
    @Test func aSwapInstallsTheSeedsJournalMode() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let old = try DatabaseQueue(path: cli.workingCopy)
        #expect(try old.inDatabase { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") } == "wal")
        try old.close()
        let result = try cli.run(["reseed", "--strategy", "swap", "--json"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["strategy"] as? String == "swap")
        let new = try DatabaseQueue(path: cli.workingCopy)
        defer { try? new.close() }
        #expect(try new.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete")
    }

    @Test func humanOutputAndQuiet() throws {
        var result = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(result.status == 0)
        #expect(result.stdout.contains("levels.sqlite: installed"))
        result = try cli.run(["deploy", "--quiet"] + cli.seedFlags(2))
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(recordedVersion() == "2")
    }

    @Test func clearedCacheIsRestored() throws {
        let flags = cli.seedFlags(1) + ["--location", "cache"]
        try cli.run(["deploy"] + flags)
        let cached = cli.root + "/cache/\(cli.app)/levels.sqlite"
        #expect(cli.bytes(cached) == seedBytes(1))
        try FileManager.default.removeItem(atPath: cli.root + "/cache")
        let result = try cli.run(["deploy", "--json"] + flags)
        let seed = try #require(try result.seeds().first)
        #expect(seed["action"] as? String == "restored")
        #expect(seed["from"] as? String == "1")
        #expect(cli.bytes(cached) == seedBytes(1))
    }

    @Test func reseedMergeOffAlwaysCopiesAndWipesLocalChanges() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let queue = try DatabaseQueue(path: cli.workingCopy)
        try queue.write { try $0.execute(sql: "DELETE FROM levels") }
        try queue.close()
        // The default merges: the user's deletions stay.
        var result = try cli.run(["reseed", "--json"] + cli.seedFlags(1))
        #expect(try cli.levelCount() == 0)
        result = try cli.run(["reseed", "--json", "--merge", "off"] + cli.seedFlags(1))
        let seed = try #require(try result.seeds().first)
        #expect(seed["action"] as? String == "reseeded")
        #expect(seed["from"] as? String == "1")
        #expect(seed["discarded"] as? [String] == ["levels"])
        #expect(cli.bytes(cli.workingCopy) == seedBytes(1))
    }

    @Test func dryRunChangesNothing() throws {
        var result = try cli.run(["deploy", "--dry-run", "--json"] + cli.seedFlags(1))
        #expect(result.status == 0)
        #expect(try result.seeds().first?["action"] as? String == "installed")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/data"))
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/config"))
        try cli.run(["deploy"] + cli.seedFlags(1))
        let settings = cli.bytes(cli.settingsFile)
        result = try cli.run(["reseed", "--dry-run", "--json"] + cli.seedFlags(2))
        #expect(try result.seeds().first?["action"] as? String == "reseeded")
        #expect(cli.bytes(cli.workingCopy) == seedBytes(1))
        #expect(cli.bytes(cli.settingsFile) == settings)
    }

    @Test func manifestDeploysAndResolvesSourcesAgainstItsFolder() throws {
        let result = try cli.run(["deploy", "--json", "--manifest", "\(CLIHarness.seeds)/v2/seeds.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["to"] as? String == "2")
        #expect(cli.bytes(cli.workingCopy) == seedBytes(2))
    }

    @Test func temporaryFilesOfACrashedRunAreRemoved() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let leftover = cli.appData + "/.levels.sqlite.seeddb-crashed.tmp"
        _ = FileManager.default.createFile(atPath: leftover, contents: Data("half a copy".utf8))
        let result = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }

    @Test func twoConcurrentDeploysCopyOnce() throws {
        let first = try cli.start(["deploy", "--json"] + cli.seedFlags(1))
        let second = try cli.start(["deploy", "--json"] + cli.seedFlags(1))
        let results = [cli.finish(first), cli.finish(second)]
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let actions = try results.map { try $0.seeds().first?["action"] as? String }.compactMap { $0 }.sorted()
        #expect(actions == ["installed", "unchanged"])
        #expect(cli.bytes(cli.workingCopy) == seedBytes(1))
    }
}
