import Foundation
import GRDB
import Logging
import SeedDB
import Testing

/// Live reseeds, the app-side handle, preserved tables, rollback, maintenance.
@Suite struct RunningAppTests {
    let cli = CLIHarness()

    var deployer: Deployer {
        var configuration = DeployConfiguration()
        configuration.wait = .seconds(2)
        return Deployer(
            directories: XDGDirectories(dataHome: cli.root + "/data", cacheHome: cli.root + "/cache", configHome: cli.root + "/config"),
            configuration: configuration, logger: Logger(label: "test"))
    }

    func seed(_ version: Int, source: String? = nil, preserve: [String] = []) throws -> Seed {
        try Seed(app: AppIdentifier(cli.app), source: source ?? "\(CLIHarness.seeds)/v\(version)/levels.sqlite",
                 version: SeedVersion("\(version)"), name: SeedName("levels.sqlite"), preservedTables: preserve)
    }

    func count(_ reader: any DatabaseReader, _ sql: String = "SELECT count(*) FROM levels") throws -> Int {
        try reader.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }


    /// Builds a seed database at `name` from `sql`, in rollback-journal mode.
    func makeSeed(_ name: String, _ sql: String) throws -> String {
        let path = cli.root + "/" + name
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    // MARK: Live reseed

    @Test(arguments: ["delete", "wal"])
    func liveReseedsNeverShowReadersAPartialDatabase(journalMode: String) throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let stopReaders = try cli.startReaders(3, journalMode: journalMode)
        for round in 0..<8 {
            let version = round % 2 == 0 ? 2 : 1
            let result = try cli.run(["reseed", "--strategy", "live", "--wait", "20", "--json"] + cli.seedFlags(version))
            #expect(result.status == 0, "\(result.stderr)")
        }
        var seenBoth = false
        for (status, text) in stopReaders() {
            #expect(status == 0, "reader: \(text)")
            #expect(text.hasPrefix("OK"), "reader: \(text)")
            if text.hasSuffix("1 2") { seenBoth = true }
        }
        #expect(seenBoth, "readers kept their connections and saw both versions")
        #expect(try cli.levelCount() == 20)
    }

    @Test func liveIsRefusedWhenAWALCopyHasAnotherPageSize() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let queue = try DatabaseQueue(path: cli.workingCopy)
        _ = try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode=WAL") }
        try queue.close()
        let before = cli.bytes(cli.workingCopy)
        let small = try makeSeed("small.sqlite", """
        PRAGMA page_size = 1024; VACUUM;
        CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
        """)
        let result = try cli.run(["reseed", "--strategy", "live", "--name", "levels.sqlite"] + cli.seedFlags(3, source: small))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("page size"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(cli.bytes(cli.workingCopy) == before)
    }

    // MARK: The app-side handle

    @Test func anOpenHandleRefusesSwapAndGetsLiveContent() throws {
        let database = try SeedDatabase.open(seed(1), deployer: deployer)
        #expect(database.deployment.action == .installed)
        #expect(try count(database.writer) == 20)

        // The handle's connection is idle (no SQLite lock), yet the database is in use.
        let swap = try cli.run(["reseed", "--strategy", "swap", "--wait", "0.2"] + cli.seedFlags(2))
        #expect(swap.status == 75, "\(swap.stderr)")
        #expect(swap.stderr.contains("database in use by another process"))
        #expect(try count(database.writer) == 20)

        // auto goes live, and the handle sees the new content at its next transaction.
        let auto = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stdout.contains("by live"))
        #expect(try count(database.writer) == 24)

        try database.close()
        let after = try cli.run(["reseed", "--strategy", "swap"] + cli.seedFlags(1))
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("by swap"))
    }

    @Test func theDemoLoadsLevelsWithOneCachedStatement() throws {
        let demo = CLIHarness.products + "/levels-demo"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: demo)
        process.arguments = ["\(CLIHarness.seeds)/v2/seeds.json", "1", "7", "24", "99"]
        process.environment = cli.environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("deploy: installed 2"))
        #expect(text.contains("level 24: background "))
        #expect(text.contains("map 64 bytes"))
        #expect(text.contains("level 99: not found"))
        #expect(text.contains("prepared statements used: 1"))
        #expect(text.contains("levels with progress: 1"))
        #expect(text.contains("busiest level:"))
    }

    // MARK: Preserved tables

    static let userSchemaV1 = """
    CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
    INSERT INTO levels VALUES (1, 'meadow', x'00');
    CREATE TABLE progress(level INTEGER PRIMARY KEY, stars INTEGER, note TEXT);
    """

    @Test func preservedTablesSurviveAReseedIncludingRowsInTheWAL() throws {
        let v1 = try makeSeed("p1.sqlite", Self.userSchemaV1)
        let v2 = try makeSeed("p2.sqlite", """
        CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
        INSERT INTO levels VALUES (1, 'meadow-hd', x'00'), (2, 'cave-hd', x'00');
        CREATE TABLE progress(level INTEGER PRIMARY KEY, stars INTEGER NOT NULL, bonus INTEGER DEFAULT 7);
        """)
        let flags = ["--name", "levels.sqlite", "--preserve", "progress"]
        #expect(try cli.run(["deploy"] + flags + cli.seedFlags(1, source: v1)).status == 0)
        // The app records progress in WAL mode and dies before any checkpoint.
        let crash = try cli.shell("""
        python3 -c "import os, sqlite3; c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None); c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0'); c.execute(\\"INSERT INTO progress VALUES (1, 3, 'easy'), (2, 1, 'hard')\\"); os._exit(0)"
        """)
        #expect(crash.status == 0, "\(crash.stderr)")
        #expect((cli.bytes(cli.contentFile + "-wal")?.count ?? 0) > 32)

        let result = try cli.run(["deploy"] + flags + cli.seedFlags(2, source: v2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\"note\""), "a dropped column is reported: \(result.stderr)")
        let queue = try DatabaseQueue(path: cli.workingCopy)
        defer { try? queue.close() }
        let rows = try queue.read { try Row.fetchAll($0, sql: "SELECT level, stars, bonus FROM progress ORDER BY level") }
        #expect(rows.map { [$0[0] as Int, $0[1] as Int, $0[2] as Int] } == [[1, 3, 7], [2, 1, 7]])
        #expect(try count(queue) == 2)
    }

    @Test func aFailedCarrySwapsNothing() throws {
        let v1 = try makeSeed("p1.sqlite", Self.userSchemaV1)
        let v2 = try makeSeed("p2.sqlite", """
        CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
        CREATE TABLE progress(level INTEGER PRIMARY KEY, stars INTEGER CHECK (stars <= 3));
        """)
        let flags = ["--name", "levels.sqlite", "--preserve", "progress"]
        try cli.run(["deploy"] + flags + cli.seedFlags(1, source: v1))
        let queue = try DatabaseQueue(path: cli.workingCopy)
        try queue.write { try $0.execute(sql: "INSERT INTO progress VALUES (1, 5, 'cheater')") }
        try queue.close()
        let before = cli.bytes(cli.workingCopy)
        let settings = cli.bytes(cli.settingsFile)

        let result = try cli.run(["deploy"] + flags + cli.seedFlags(2, source: v2))
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("\"progress\""))
        #expect(result.stderr.contains("CHECK"))
        #expect(cli.bytes(cli.workingCopy) == before)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(cli.list(cli.appData).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    // MARK: Rollback

    @Test func rollbackRestoresThePreviousGenerationOnce() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(try cli.levelCount() == 24)
        var result = try cli.run(["rollback", "--json"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        let seed = try #require(try result.seeds().first)
        #expect(seed["action"] as? String == "rolled-back")
        #expect(seed["from"] as? String == "2")
        #expect(seed["to"] as? String == "1")
        #expect(try cli.levelCount() == 20)
        #expect(try cli.run(["status", "--json"] + cli.seedFlags(1)).seeds().first?["state"] as? String == "up-to-date")

        result = try cli.run(["rollback"] + cli.seedFlags(2))
        #expect(result.status == 66)
        #expect(result.stderr.contains("no previous generation"))
    }

    @Test func keepPreviousFalseKeepsNoGeneration() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try cli.run(["deploy", "--keep-previous", "false"] + cli.seedFlags(2))
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy + ".previous"))
        let result = try cli.run(["rollback"] + cli.seedFlags(2))
        #expect(result.status == 66)
    }

    // MARK: Maintenance

    @Test func maintainRunsWhenDueAndRecordsTheTime() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        var result = try cli.run(["maintain", "--json"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["action"] as? String == "vacuumed")
        let lastRun = try result.seeds().first?["lastRun"] as? String
        #expect(lastRun != nil)

        result = try cli.run(["maintain", "--json", "--every", "7"] + cli.seedFlags(1))
        #expect(try result.seeds().first?["action"] as? String == "skipped")
        #expect(try result.seeds().first?["lastRun"] as? String == lastRun)

        result = try cli.run(["maintain", "--json", "--every", "0", "--policy", "optimize"] + cli.seedFlags(1))
        #expect(try result.seeds().first?["action"] as? String == "optimized")

        let entry = cli.settingsEntry()
        #expect(entry?["maintainedAt"] is String)
    }

    @Test func maintainRespectsTheInUseRule() throws {
        let database = try SeedDatabase.open(seed(1), deployer: deployer)
        defer { try? database.close() }
        let result = try cli.run(["maintain", "--every", "0", "--wait", "0.2"] + cli.seedFlags(1))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("database in use by another process"))
    }

    @Test func maintainWithoutAWorkingCopyExits66() throws {
        let result = try cli.run(["maintain"] + cli.seedFlags(1))
        #expect(result.status == 66)
        #expect(result.stderr.contains("deploy it first"))
    }
}
