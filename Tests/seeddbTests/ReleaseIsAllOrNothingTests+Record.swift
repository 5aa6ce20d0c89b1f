import Foundation
import SeedDB
import Testing

/// A release is recorded as one: every seed's `"interrupted"` marker names the whole
/// release and is written before any seed is installed, one settings write records every
/// seed after the last install, a kill in between leaves no seed recorded at either
/// version, and a full disk at the last seed changes no seed.
extension ReleaseIsAllOrNothingTests {
    /// The `release` list of `name`'s marker, as `["levels.sqlite 2", …]`.
    static func markedRelease(_ cli: CLIHarness, _ name: String) -> [String]? {
        let interrupted = cli.settingsEntry(name: name)?["interrupted"] as? [String: Any]
        return (interrupted?["release"] as? [[String: Any]])?.map { "\($0["name"] as? String ?? "?") \($0["version"] as? String ?? "?")" }
    }

    /// Killed after the first seed's install or its (pending) record: every seed carries
    /// a marker naming all three, none is recorded at either version, so no reader of the
    /// settings sees half a release; the rerun finishes every seed.
    @Test(arguments: ["install", "record"])
    func aKilledReleaseMarksEverySeedAndRecordsNone(step: String) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 3)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 3)
        let killed = try cli.run(["deploy", "--manifest", manifest], environment: ["SEEDDB_TEST_KILL_AFTER": step])
        #expect(killed.killedBy == SIGKILL, "\(step): \(killed.stderr)")
        for name in Self.names {
            #expect(Self.markedRelease(cli, name) == Self.names.map { "\($0) 2" }, "\(step): \(name)'s marker: \(cli.settingsEntry(name: name) ?? [:])")
            #expect(cli.settingsEntry(name: name)?["version"] == nil, "\(step): \(name) is recorded while the release is unfinished")
        }
        // The first seed was switched before the kill: the rerun finishes it, with the others.
        #expect(try cli.levelCount(cli.appData + "/levels.sqlite") == 24, "\(step): the first seed was not installed")
        #expect(try cli.levelCount(cli.appData + "/dict.sqlite") == 20, "\(step): the second seed was installed")
        let rerun = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(rerun.status == 0, "\(step): \(rerun.stderr)")
        #expect(rerun.stderr.contains("levels.sqlite: finished a run that was interrupted"), "\(step): \(rerun.stderr)")
        #expect(try rerun.seeds().map { $0["from"] as? String } == ["1", "1", "1"], "\(step): \(rerun.stdout)")
        #expect(Self.releaseProblems(cli, count: 3, version: "2") == [], "\(step)")
        // Nobody wrote the working copies: the seeds the kill left unswitched are still
        // provably unwritten (their marker kept the record's identity), so the rerun
        // replaces them as a clean run does, merging nothing and listing no conflicts.
        for name in Self.names {
            #expect(!FileManager.default.fileExists(atPath: cli.appData + "/\(name).conflicts.json"), "\(step): \(name) was merged: \(rerun.stdout)")
        }
    }

    /// A release that fails before it touches a seed a killed release left switched (its
    /// marker, no record) printed that seed `unchanged` at the version the killed release
    /// replaced (found by a contract probe); it holds the killed release's version, which
    /// the next run finishes. A seed the kill left unswitched is printed at its old one.
    @Test func aFailedReleasePrintsTheVersionAKilledOneLeftInPlace() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        let killed = try cli.run(["deploy", "--manifest", try Self.release(cli, "r2", version: 2, count: 2)], environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL, "\(killed.stderr)")
        // A release whose first seed is refused at its look: the others are only reported.
        let failing = cli.root + "/r3/seeds.json"
        try FileManager.default.createDirectory(atPath: cli.root + "/r3", withIntermediateDirectories: true)
        let entries = Self.names.prefix(2).reversed().map { #"{"source": "\#($0)", "version": "3", "location": "data"}"# }
        try Data(#"{"app": "\#(cli.app)", "seeds": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: URL(fileURLWithPath: failing))
        let settings = cli.bytes(cli.settingsFile)
        let refused = try cli.run(["deploy", "--json", "--manifest", failing])
        #expect(refused.status == 66, "\(refused.stderr)")
        let reported = try refused.seeds().map { "\($0["name"] as? String ?? "?") \($0["action"] as? String ?? "?") \($0["to"] as? String ?? "nil")" }
        #expect(reported == ["levels.sqlite unchanged 2"], "\(refused.stdout)")
        #expect(cli.bytes(cli.settingsFile) == settings, "the failed release changed the settings")
        #expect(try cli.levelCount(cli.appData + "/levels.sqlite") == 24, "levels.sqlite holds version 2")
    }

    /// One settings write holds every seed's marker, and one every seed's record: two
    /// renames onto the settings file for a release of three seeds (a seed deployed on
    /// its own writes two as well).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aReleaseWritesItsSettingsTwice() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 3)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 3)
        let (result, lines) = try SyscallKillMatrix.traced(cli, ["deploy", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        let writes = lines.filter { $0.contains("rename") && $0.contains("\"\(cli.settingsFile)\"") }
        #expect(writes.count == 2, "\(writes.joined(separator: "\n"))")
        #expect(Self.releaseProblems(cli, count: 3, version: "2") == [])
    }

    /// After a release killed between two installs, one seed deployed on its own (as an
    /// app's startup deploys the seed it opens): that seed is deployed, and the run says
    /// which seeds of the release stay unfinished; theirs keep their markers (no record,
    /// `status` says not installed), until the release runs again.
    @Test(arguments: ["levels.sqlite", "dict.sqlite"])
    func oneSeedDeployedAloneLeavesTheOthersMarked(name: String) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 3)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 3)
        let killed = try cli.run(["deploy", "--manifest", manifest], environment: ["SEEDDB_TEST_KILL_AFTER": "record"])
        #expect(killed.killedBy == SIGKILL, "\(killed.stderr)")

        let alone = try cli.run(["deploy", "--app", cli.app, "--seed", cli.root + "/r2/" + name, "--version", "2"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let others = Self.names.filter { $0 != name }
        let unfinished = others.map { "\($0) (2)" }.joined(separator: ", ")
        #expect(alone.stderr.contains("is one seed of a release interrupted before it was recorded; this run deploys it alone: \(unfinished) of that release stay unfinished"), "\(alone.stderr)")
        #expect(cli.settingsEntry(name: name)?["version"] as? String == "2")
        for other in others {
            #expect(cli.settingsEntry(name: other)?["version"] == nil, "\(other) was recorded by a run of \(name)")
            #expect(Self.markedRelease(cli, other) != nil, "\(other) lost its marker")
        }
        let status = try cli.run(["status", "--json", "--manifest", manifest])
        let states = try status.seeds().map { "\($0["name"] as? String ?? "?") \($0["state"] as? String ?? "?")" }
        #expect(states == Self.names.map { "\($0) \($0 == name ? "up-to-date" : "not-installed")" }, "\(status.stdout)")

        let rerun = try cli.run(["deploy", "--manifest", manifest])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.releaseProblems(cli, count: 3, version: "2") == [])
    }

    /// The last seed does not fit (a 2 MiB tmpfs holds the working copies): exit 74 as
    /// that seed's failure, every seed's settings entry, working copy and directory as
    /// they were, the JSON listing each seed; with room, the next run deploys them all.
    @Test(.enabled(if: IOFaultsChangeNothingTests.canMountTmpfs, "skipped: mounting a small tmpfs needs root and a sandbox that allows it"),
          arguments: [2, 3])
    func aFullDiskAtTheLastSeedChangesNoSeed(count: Int) throws {
        let cli = CLIHarness()
        let data = cli.root + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let mount = try cli.shell("mount -t tmpfs -o size=2m tmpfs '\(data)'")
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? cli.shell("umount '\(data)'") }
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: count)]).status == 0)
        let before = Self.state(cli)
        let config = cli.list(cli.root + "/config/" + cli.app)
        let big = try cli.makeSeed("big.sqlite", marker: "big", megabytes: 16)
        let manifest = try Self.release(cli, "r2", version: 2, count: count) { path in
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: big, toPath: path)
        }
        let result = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("no space left on device"), "\(result.stderr)")
        #expect(Self.state(cli) == before, "a seed changed")
        #expect(cli.list(cli.root + "/config/" + cli.app) == config, "the settings directory changed")
        let json = try result.json()
        let reported = json["seeds"] as? [[String: Any]] ?? []
        #expect(reported.map { "\($0["name"] as? String ?? "?") \($0["action"] as? String ?? "?") \($0["to"] as? String ?? "?")" }
                == Self.names.prefix(count - 1).map { "\($0) unchanged 1" }, "\(result.stdout)")
        let error = json["error"] as? [String: Any]
        #expect(error?["seed"] as? String == Self.names[count - 1], "\(result.stdout)")
        #expect(error?["code"] as? Int == 74, "\(result.stdout)")

        #expect(try cli.shell("mount -o remount,size=64m '\(data)'").status == 0)
        let retry = try cli.run(["deploy", "--manifest", manifest])
        #expect(retry.status == 0, "\(retry.stderr)")
        for name in Self.names.prefix(count) {
            #expect(cli.settingsEntry(name: name)?["version"] as? String == "2", "\(name)")
        }
    }
}

extension ReleaseIsAllOrNothingTests {
    /// `--strategy live`, interrupted after the first seed's record: that seed's backup
    /// committed and cannot be undone, so it is kept and recorded at the version it holds
    /// (the line says so); the second seed is as it was; the rerun finishes the release.
    @Test func aLiveInstallCommittedBeforeAFailureIsRecordedAsItIs() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", try Self.release(cli, "r1", version: 1, count: 2)]).status == 0)
        let manifest = try Self.release(cli, "r2", version: 2, count: 2)
        let secondBefore = cli.bytes(cli.appData + "/" + (try FileManager.default.destinationOfSymbolicLink(atPath: cli.appData + "/dict.sqlite")))
        let started = try cli.start(["deploy", "--strategy", "live", "--manifest", manifest], environment: ["SEEDDB_TEST_STOP_AFTER": "record"])
        started.waitUntilStopped()
        started.signal(SIGINT)
        started.signal(SIGCONT)
        let result = cli.finish(started)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("replaced live before the failure, which cannot be undone, and recorded so: levels.sqlite (2)"), "\(result.stderr)")
        // What each seed's record says is what its working copy holds.
        #expect(cli.settingsEntry(name: "levels.sqlite")?["version"] as? String == "2")
        #expect(try cli.levelCount(cli.appData + "/levels.sqlite") == 24)
        #expect(cli.settingsEntry(name: "dict.sqlite")?["version"] as? String == "1")
        #expect(try cli.levelCount(cli.appData + "/dict.sqlite") == 20)
        #expect(cli.bytes(cli.appData + "/" + (try FileManager.default.destinationOfSymbolicLink(atPath: cli.appData + "/dict.sqlite"))) == secondBefore)
        for name in Self.names.prefix(2) {
            #expect(cli.settingsEntry(name: name)?["interrupted"] == nil, "\(name) keeps a marker")
        }
        let rerun = try cli.run(["deploy", "--manifest", manifest])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.releaseProblems(cli, count: 2, version: "2") == [])
    }
}

extension ReleaseIsAllOrNothingTests {
    /// A signed release of serial 2 killed after its first seed's install, then the older
    /// release (serial 1) run again, as a package's hook replayed: refused as a downgrade
    /// (65) with nothing changed, every seed still marked by the newer release, which its
    /// own rerun then finishes. The replay finished and recorded the switched seed at 2
    /// (its pin, serial 2, then refused the replay), left the other seed's marker, and
    /// said `unchanged at 2` for it: half a release recorded. A dry run refuses the same.
    @Test func anOlderReleaseAfterAKilledNewerOneIsRefusedBeforeItFinishesAnySeed() throws {
        let cli = CLIHarness()
        let key = (public: cli.root + "/release.pub", secret: cli.root + "/release.key")
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", key.public, "--secret-key", key.secret]).status == 0)
        func signed(_ folder: String, version: Int, serial: Int) throws -> String {
            let manifest = try Self.release(cli, folder, version: version, count: 2)
            let bytes = try #require(cli.bytes(manifest))
            var document = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
            let digest = try #require(cli.shell("sha256sum '\(cli.root)/\(folder)/levels.sqlite'").stdout.split(separator: " ").first)
            document["serial"] = serial
            document["seeds"] = (document["seeds"] as? [[String: Any]])?.map { $0.merging(["sha256": String(digest)]) { $1 } }
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: manifest))
            let sign = try cli.run(["sign", "--key", key.secret, manifest])
            #expect(sign.status == 0, "\(sign.stderr)")
            return manifest
        }
        let r1 = try signed("r1", version: 1, serial: 1)
        let r2 = try signed("r2", version: 2, serial: 2)
        #expect(try cli.run(["deploy", "--manifest", r1, "--trusted-key", key.public]).status == 0)
        let killed = try cli.run(["deploy", "--manifest", r2, "--trusted-key", key.public], environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL, "\(killed.stderr)")
        #expect(try cli.levelCount(cli.appData + "/levels.sqlite") == 24, "the first seed was not switched before the kill")
        let killedState = Self.state(cli)

        let replay = try cli.run(["deploy", "--json", "--manifest", r1, "--trusted-key", key.public])
        #expect(replay.status == 65, "\(replay.status) \(replay.stderr)")
        #expect(replay.stderr.contains("lower than serial 2"), "\(replay.stderr)")
        #expect(Self.state(cli) == killedState, "the refused replay changed the release's files or settings")
        for name in Self.names.prefix(2) {
            #expect(Self.markedRelease(cli, name) == Self.names.prefix(2).map { "\($0) 2" }, "\(name): \(cli.settingsEntry(name: name) ?? [:])")
        }
        let dryRun = try cli.run(["deploy", "--dry-run", "--manifest", r1, "--trusted-key", key.public])
        #expect(dryRun.status == 65 && dryRun.stderr.contains("lower than serial 2"), "\(dryRun.status) \(dryRun.stderr)")

        let rerun = try cli.run(["deploy", "--manifest", r2, "--trusted-key", key.public])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Self.releaseProblems(cli, count: 2, version: "2") == [])
    }
}
