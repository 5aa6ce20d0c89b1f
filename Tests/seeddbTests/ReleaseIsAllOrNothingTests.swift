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

    /// A release refused at its last seed's carry (a misspelt merge table) left the first
    /// seed's merge conflicts file behind (`seeddb conflicts` then reported a merge that
    /// was undone), and its error line did not say which seed it was.
    @Test func aCarryRefusedAtTheLastSeedPutsBackTheConflictsFileAndNamesTheSeed() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite' \"UPDATE levels SET background = 'mine' WHERE ix = 1\"").status == 0)
        let directory = cli.root + "/r2"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in Self.names.prefix(2) {
            try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v2/levels.sqlite", toPath: directory + "/" + name)
        }
        let manifest = directory + "/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "2"}, {"source": "dict.sqlite", "version": "2", "mergeTables": {"levls": "off"}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.shell("sqlite3 '\(cli.appData)/dict.sqlite' \"UPDATE levels SET background = 'mine' WHERE ix = 1\"").status == 0)
        // The conflicts of an earlier merge, which the undone one must leave as they were.
        let earlier = Data("[ ]\n".utf8)
        try earlier.write(to: URL(fileURLWithPath: cli.appData + "/levels.sqlite.conflicts.json"))
        let before = Self.state(cli)
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("cannot carry the user's data into \(cli.appData)/dict.sqlite: merge table \"levls\" is not in the working copy or the new seed"), "\(result.stderr)")
        #expect(Self.state(cli) == before, "a seed's directory changed")
        #expect(cli.bytes(cli.appData + "/levels.sqlite.conflicts.json") == earlier)
        #expect(!cli.list(cli.appData).contains { $0.hasSuffix(".tmp") }, "the set-aside file went back: \(cli.list(cli.appData))")
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

    /// A run killed before it installed anything, then a release run again that replaces
    /// its marker with its own: the release says so, as a run of one seed and the
    /// release's dry run do (it said nothing: a contract probe).
    @Test func aReleaseThatReplacesAKilledRunSaysSo() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 1)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 1)
        let killed = try cli.run(["deploy", "--manifest", manifest], environment: ["SEEDDB_TEST_KILL_AFTER": "withdraw"])
        #expect(killed.killedBy == SIGKILL, "\(killed.stderr)")
        let warning = "\(cli.workingCopy): a run that was interrupted (installing 2; 1 was recorded)"
        let dryRun = try cli.run(["deploy", "--dry-run", "--manifest", manifest])
        #expect(dryRun.status == 0 && dryRun.stderr.contains(warning + " would be replaced by this one"), "\(dryRun.stderr)")
        let run = try cli.run(["deploy", "--manifest", manifest])
        #expect(run.status == 0 && run.stderr.contains(warning + " is replaced by this one"), "\(run.stderr)")
        #expect(cli.settingsEntry()?["version"] as? String == "2" && cli.settingsEntry()?["interrupted"] == nil)
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
        started.waitUntilStopped()
        started.signal(signal)
        started.signal(SIGCONT)
        let result = cli.finish(started)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted; nothing was changed"), "\(result.stderr)")
        #expect(Self.state(cli) == before, "a seed changed")
    }

    /// The release in the syscall-kill matrix: killed at each of its `rename`s,
    /// `symlink`s, `fsync`s, `unlink`s and `write`s in turn (the markers' write, every
    /// install, the records' write and the clean-ups among them), then run again: every
    /// seed at the new version, nothing of SeedDB's left behind, the settings in agreement
    /// with the disk (``releaseProblems(_:count:version:)``).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func killedAtEachSyscallAndRunAgain() throws {
        let template = CLIHarness()
        #expect(try template.run(["deploy", "--manifest", try Self.release(template, "r1", version: 1, count: 2)]).status == 0)
        _ = try Self.release(template, "r2", version: 2, count: 2)
        let names = ["rename", "symlink", "fsync", "unlink", "write"]
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { ["deploy", "--manifest", $0.root + "/r2/seeds.json"] }, from: template, label: "release", syscalls: names
        ) { cli, rerun in
            (rerun.status == 0 ? [] : ["the rerun exited \(rerun.status): \(rerun.stderr)"]) + Self.releaseProblems(cli, count: 2, version: "2")
        }
        var killedAny = false
        for (name, tally) in tallies {
            #expect(tally.trials > 0, "the release makes no \(name) call")
            killedAny = killedAny || tally.killed > 0
            ReliabilityLog.record(suite: "syscall kills (release): \(name)", trials: tally.trials, crashes: tally.killed, dataLost: tally.failures)
        }
        #expect(killedAny, "no kill took effect")
    }

    /// What is wrong with a release of the first `count` seeds that must be done at
    /// `version`: for each seed, the record, the link, the generation file, the previous
    /// generation and the content in agreement, no marker left; and no temporary file of
    /// SeedDB's beside the working copies or the settings.
    static func releaseProblems(_ cli: CLIHarness, count: Int, version: String) -> [String] {
        var problems: [String] = []
        let listing = cli.list(cli.appData)
        for name in names.prefix(count) {
            guard let entry = cli.settingsEntry(name: name) else {
                problems.append("\(name): no settings entry")
                continue
            }
            if entry["version"] as? String != version { problems.append("\(name): recorded \(entry["version"] ?? "nothing"), expected \(version)") }
            if entry["interrupted"] != nil { problems.append("\(name): the record still says a run is under way") }
            let generation = entry["generation"] as? String
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.appData + "/" + name)
            if link == nil || link != generation { problems.append("\(name): the link points at \(link ?? "nothing"), the record names \(generation ?? "nothing")") }
            let strays = listing.filter { $0.hasPrefix(name + ".v") && $0 != generation }
            if !strays.isEmpty { problems.append("\(name): generation files or sidecars left: \(strays)") }
            if let generation, !listing.contains(generation) { problems.append("\(name): the generation file \(generation) is gone") }
            let previousRecorded = entry["previous"] != nil
            let previousOnDisk = listing.contains(name + ".previous")
            if previousRecorded != previousOnDisk { problems.append("\(name): previous recorded \(previousRecorded), on disk \(previousOnDisk)") }
            let held = RecoveryAfterSyscallKillTests.seedVersion(cli, of: cli.appData + "/" + name)
            if held != version { problems.append("\(name): the working copy holds version \(held ?? "unknown")'s rows") }
        }
        let temporary = listing.filter { $0.hasPrefix(".") } + cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix(".") }
        if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
        return problems
    }

    /// A release in which one seed's removed link is only put back (`restored`) and
    /// another is upgraded once cleared the first seed's record (its plan writes none), and
    /// the next run adopted that seed's own copy.
    @Test func aSeedWhoseLinkIsPutBackKeepsItsRecord() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        // The next release upgrades dict.sqlite only; levels.sqlite stays at version 1.
        let manifest = try Self.release(cli, "r2", version: 2, count: 2)
        let levels = cli.root + "/r2/levels.sqlite"
        try FileManager.default.removeItem(atPath: levels)
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: levels)
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: manifest)), as: UTF8.self)
        try Data(text.replacingOccurrences(of: #""source": "levels.sqlite", "version": "2""#, with: #""source": "levels.sqlite", "version": "1""#).utf8)
            .write(to: URL(fileURLWithPath: manifest))
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let result = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.seeds().map { $0["action"] as? String } == ["restored", "replaced"], "\(result.stdout)")
        #expect(cli.settingsEntry()?["version"] as? String == "1", "the restored seed's record: \(cli.settingsEntry() ?? [:])")
        let again = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(try again.seeds().map { $0["action"] as? String } == ["unchanged", "unchanged"], "\(again.stdout)")
        #expect(!cli.list(cli.appData).contains("levels.sqlite.previous"), "the seed's own copy was adopted")
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
