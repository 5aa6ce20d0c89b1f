import Foundation
import SeedDB
import Testing

/// A manifest is one release: all of its seeds or none. Every seed is staged and checked
/// before any is installed; a bad last seed leaves every seed's settings entry, working
/// copy and directory as they were; a kill between two installs is finished by the rerun
/// for every seed.
@Suite struct ReleaseIsAllOrNothingTests {
    static let names = ["levels.sqlite", "dict.sqlite", "other.sqlite"]

    /// A manifest of `count` seeds in `folder`, every one a copy of demo seed `version`,
    /// the last one spoiled by `spoil`.
    static func release(_ cli: CLIHarness, _ folder: String, version: Int, count: Int, spoil: ((String) throws -> Void)? = nil) throws -> String {
        let directory = cli.root + "/" + folder
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var entries: [String] = []
        for name in names.prefix(count) {
            let path = directory + "/" + name
            try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v\(version)/levels.sqlite", toPath: path)
            entries.append(#"{"source": "\#(name)", "version": "\#(version)", "location": "data"}"#)
        }
        if let spoil { try spoil(directory + "/" + names[count - 1]) }
        let manifest = directory + "/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        return manifest
    }

    /// What a failed release must leave: the settings bytes and every seed's directory.
    static func state(_ cli: CLIHarness) -> [String: String] {
        var state = ["settings": String(decoding: cli.bytes(cli.settingsFile) ?? Data(), as: UTF8.self)]
        for name in cli.list(cli.appData) {
            let path = cli.appData + "/" + name
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                state[name] = "-> " + link
            } else {
                state[name] = (try? FileDigest.sha256(ofFileAt: path))?.hex ?? "?"
            }
        }
        return state
    }

    static let spoils: [(String, @Sendable (String) throws -> Void)] = [
        ("truncated", { path in
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: 4096)
            try handle.close()
        }),
        ("not SQLite", { path in try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path)) }),
    ]

    @Test(arguments: [2, 3], [0, 1])
    func aBadLastSeedChangesNoSeed(count: Int, spoil: Int) throws {
        let cli = CLIHarness()
        let first = try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: count)])
        try #require(first.status == 0, "\(first.stderr)")
        let before = Self.state(cli)
        let (label, change) = Self.spoils[spoil]
        let manifest = try Self.release(cli, "r2", version: 2, count: count, spoil: change)
        let result = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(result.status == 65, "\(label): \(result.stderr)")
        #expect(result.stderr.contains(Self.names[count - 1]), "\(label): the line names the bad seed: \(result.stderr)")
        #expect(Self.state(cli) == before, "\(label): a seed changed")
        let reported = try result.json()["seeds"] as? [[String: Any]] ?? []
        #expect(reported.map { $0["action"] as? String } == Array(repeating: "unchanged", count: count - 1), "\(label): \(result.stdout)")
    }

    @Test func aSeedWhoseDigestDiffersFromTheManifestChangesNoSeed() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        let before = Self.state(cli)
        let manifest = try Self.release(cli, "r2", version: 2, count: 2)
        var text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: manifest)), as: UTF8.self)
        text = text.replacingOccurrences(of: #""source": "dict.sqlite""#, with: #""source": "dict.sqlite", "sha256": "\#(String(repeating: "ab", count: 32))""#)
        try Data(text.utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(Self.state(cli) == before)
    }

    /// Killed after the first seed's record, before the second's install: the rerun
    /// brings every seed to the new version and leaves nothing behind.
    @Test(arguments: ["record", "install", "clean-up"])
    func aKillBetweenTwoInstallsIsFinishedByTheRerun(step: String) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 3)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 3)
        let killed = try cli.run(["deploy", "--manifest", manifest], environment: ["SEEDDB_TEST_KILL_AFTER": step])
        #expect(killed.killedBy == SIGKILL, "\(step): \(killed.stderr)")
        let rerun = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        for name in Self.names {
            #expect(cli.settingsEntry(name: name)?["version"] as? String == "2", "\(step): \(name) is not at the new version")
        }
        #expect(cli.list(cli.appData).filter { $0.hasPrefix(".") } == [], "\(step): left \(cli.list(cli.appData))")
    }

    /// Interrupted after the first seed's record, before the second seed's install: the
    /// first seed is undone too, and the run says nothing was changed.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func anInterruptedReleaseChangesNoSeed(signal: Int32, status: Int32) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        let before = Self.state(cli)
        let manifest = try Self.release(cli, "r2", version: 2, count: 2)
        let started = try cli.start(["deploy", "--manifest", manifest], environment: ["SEEDDB_TEST_STOP_AFTER": "record"])
        // Wait until the run stopped itself after the first seed's record.
        let deadline = Date().addingTimeInterval(30)
        let statPath = "/proc/\(started.0.processIdentifier)/stat"
        while Date() < deadline {
            let stat = (try? String(contentsOfFile: statPath, encoding: .utf8)) ?? ""
            if stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("T") == true { break }
            usleep(10_000)
        }
        kill(started.0.processIdentifier, signal)
        kill(started.0.processIdentifier, SIGCONT)
        let result = cli.finish(started)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted; nothing was changed"), "\(result.stderr)")
        #expect(Self.state(cli) == before, "a seed changed")
    }

    /// The release in the syscall-kill matrix: killed at each of its `rename`s and
    /// `symlink`s in turn (between two seeds' installs among them), then run again: every
    /// seed at the new version, nothing of SeedDB's left behind.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func killedAtEachRenameAndRunAgain() throws {
        let template = CLIHarness()
        #expect(try template.run(["deploy", "--manifest", try Self.release(template, "r1", version: 1, count: 2)]).status == 0)
        _ = try Self.release(template, "r2", version: 2, count: 2)
        let matrix = RecoveryAfterSyscallKillTests()
        var killed = 0
        for name in ["rename", "symlink"] {
            let probe = try template.clone()
            let (_, lines) = try matrix.traced(probe, ["deploy", "--manifest", probe.root + "/r2/seeds.json"])
            let variants = RecoveryAfterSyscallKillTests.syscalls.first { $0.name == name }!.variants
            let calls = lines.filter { line in variants.contains { line.drop { $0.isNumber || $0 == " " }.hasPrefix($0 + "(") } }.count
            for when in stride(from: 1, through: calls, by: 1) {
                let cli = try template.clone()
                let path = cli.root + "/r2/seeds.json"
                let (first, _) = try matrix.traced(cli, ["deploy", "--manifest", path], kill: (name, when))
                if first.status != 0 { killed += 1 }
                let rerun = try cli.run(["deploy", "--manifest", path])
                #expect(rerun.status == 0, "\(name) #\(when): \(rerun.stderr)")
                for seed in Self.names.prefix(2) {
                    #expect(cli.settingsEntry(name: seed)?["version"] as? String == "2", "\(name) #\(when): \(seed) is not at the new version")
                }
                #expect(cli.list(cli.appData).filter { $0.hasPrefix(".") } == [], "\(name) #\(when): left \(cli.list(cli.appData))")
            }
        }
        #expect(killed > 0)
    }

    /// Every seed up to date: the fast path, nothing locked or copied.
    @Test func anUpToDateReleaseIsTheFastPath() throws {
        let cli = CLIHarness()
        let manifest = try Self.release(cli, "r1", version: 1, count: 3)
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
        let before = Self.state(cli)
        let again = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(again.status == 0)
        #expect(try again.seeds().map { $0["action"] as? String } == ["unchanged", "unchanged", "unchanged"])
        #expect(Self.state(cli) == before)
    }
}
