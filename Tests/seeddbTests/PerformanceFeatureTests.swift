import Foundation
import GRDB
@testable import seeddb
import Testing

/// The performance features (not their speed: that lives in the benchmark harness).
@Suite struct PerformanceFeatureTests {
    let cli = CLIHarness()

    func entry() throws -> [String: Any] {
        try #require(cli.settingsEntry())
    }

    func autoFlags(_ source: String) -> [String] {
        ["--app", cli.app, "--seed", source, "--name", "levels.sqlite", "--version", "auto"]
    }

    @Test func versionAutoIsTheSeedsDigestAndIsCachedByIdentity() throws {
        let seed = try cli.copySeed(1, to: "seed.sqlite")
        let digest = try #require(try (JSONSerialization.jsonObject(with: cli.bytes("\(CLIHarness.seeds)/v1/seeds.json") ?? Data()) as? [String: Any])
            .flatMap { ($0["seeds"] as? [[String: Any]])?.first?["sha256"] as? String })

        var result = try cli.run(["deploy", "--json"] + autoFlags(seed))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["to"] as? String == digest)
        let source = try #require(try entry()["source"] as? [String: Any])
        #expect(source["sha256"] as? String == digest)
        #expect(source["inode"] is Int && source["modified"] is Int && source["device"] is Int)

        // Same identity: unchanged, from the cache (nothing hashed, so nothing rewritten).
        let settings = cli.bytes(cli.settingsFile)
        result = try cli.run(["deploy", "--json"] + autoFlags(seed))
        #expect(try result.seeds().first?["action"] as? String == "unchanged")
        #expect(cli.bytes(cli.settingsFile) == settings, "a cache hit writes nothing")

        // A new identity with the same content: still unchanged; the cache follows.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: seed)
        result = try cli.run(["deploy", "--json"] + autoFlags(seed))
        #expect(try result.seeds().first?["action"] as? String == "unchanged")
        let refreshed = try #require(try entry()["source"] as? [String: Any])
        #expect(refreshed["modified"] as? Int != source["modified"] as? Int)

        // New content: a new version, replaced.
        try FileManager.default.removeItem(atPath: seed)
        _ = try cli.copySeed(2, to: "seed.sqlite")
        result = try cli.run(["deploy", "--json"] + autoFlags(seed))
        let report = try #require(try result.seeds().first)
        #expect(report["action"] as? String == "replaced")
        #expect(report["from"] as? String == digest)
        #expect(cli.bytes(cli.workingCopy) == cli.bytes("\(CLIHarness.seeds)/v2/levels.sqlite"))

        // The seed gone: an up-to-date copy stays up to date.
        try FileManager.default.removeItem(atPath: seed)
        result = try cli.run(["deploy", "--json"] + autoFlags(seed))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().first?["action"] as? String == "unchanged")
    }

    @Test func integrityLevelsAndTheValidationMemo() throws {
        var result = try cli.run(["deploy", "--integrity", "full"] + cli.seedFlags(1))
        #expect(result.status == 0)
        var checked = try #require(try entry()["checked"] as? [String: Any])
        #expect(checked["integrity"] as? String == "full")

        // A weaker request for the same content reuses the stronger result.
        result = try cli.run(["reseed", "--integrity", "quick"] + cli.seedFlags(1))
        checked = try #require(try entry()["checked"] as? [String: Any])
        #expect(checked["integrity"] as? String == "full")

        result = try cli.run(["reseed", "--integrity", "none"] + cli.seedFlags(2))
        #expect(result.status == 0)
        #expect(try cli.run(["deploy", "--integrity", "thorough"] + cli.seedFlags(2)).status == 64)

        // With --integrity none, a seed with garbage pages is still refused when its
        // declared size is wrong, and deployed as is otherwise: the check is what catches it.
        let torn = try cli.copySeed(2, to: "torn.sqlite")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: torn))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        #expect(try cli.run(["reseed", "--name", "levels.sqlite", "--integrity", "quick"] + cli.seedFlags(3, source: torn)).status == 65)
        #expect(try cli.run(["reseed", "--name", "levels.sqlite", "--integrity", "none"] + cli.seedFlags(3, source: torn)).status == 0)
    }

    @Test func progressBarRendering() {
        let line = ProgressBar.render(copied: 512 << 20, total: 1 << 30, elapsed: 2, width: 10)
        #expect(line == "[#####.....] 512.0 MiB / 1.0 GiB  256.0 MiB/s  2s left")
        #expect(ProgressBar.bytes(900) == "900 B")
        #expect(ProgressBar.bytes(1536) == "1.5 KiB")
        #expect(ProgressBar.render(copied: 0, total: 100 << 20, elapsed: 0, width: 4).hasSuffix("--"))
    }

    @Test func progressBarOnlyOnATerminalForLargeSeeds() throws {
        // A 65 MiB seed, larger than the bar's threshold.
        let big = cli.root + "/big.sqlite"
        let queue = try DatabaseQueue(path: big)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL)")
            try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1040) INSERT INTO levels SELECT i, 'x', zeroblob(65536) FROM n")
        }
        try queue.close()
        let flags = ["--name", "levels.sqlite", "--app", cli.app, "--seed", big, "--version", "big"]
        let piped = try cli.run(["reseed"] + flags)
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "no bar when stderr is not a terminal")

        let script = "import pty, sys; pty.spawn(sys.argv[1:])"
        let quoted = (["reseed"] + flags).map { "'\($0)'" }.joined(separator: " ")
        let terminal = try cli.shell("python3 -c \"\(script)\" '\(CLIHarness.binary)' \(quoted)")
        #expect(terminal.stdout.contains("65.5 MiB / 65.5 MiB"), "a bar on a terminal: \(terminal.stdout.prefix(200))")
        let json = try cli.shell("python3 -c \"\(script)\" '\(CLIHarness.binary)' \(quoted) --json")
        #expect(!json.stdout.contains("s left"))
        let quiet = try cli.shell("python3 -c \"\(script)\" '\(CLIHarness.binary)' \(quoted) --quiet")
        #expect(!quiet.stdout.contains("s left"))
    }
}
