import Foundation
import Testing

/// Each fault gives its documented exit code and one line, leaves
/// the working copy and the settings byte-identical, and the next run after the fault is
/// removed succeeds.
@Suite(.serialized) struct IOFaultsChangeNothingTests {
    let cli = CLIHarness()

    static var isRoot: Bool { geteuid() == 0 }

    /// Whether this machine lets the suite mount a small tmpfs (root, and a sandbox that allows it).
    static let canMountTmpfs: Bool = probe("mount -t tmpfs -o size=1m tmpfs \"$D\" && umount \"$D\"")

    /// Whether this machine lets the suite make a directory immutable (`chattr +i`).
    static let canMakeImmutable: Bool = probe("chattr +i \"$D\" && chattr -i \"$D\"")

    /// Runs `script` with `$D` a fresh temporary directory; whether it succeeded.
    private static func probe(_ script: String) -> Bool {
        guard isRoot else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "D=$(mktemp -d) && { \(script); } >/dev/null 2>&1; status=$?; rmdir \"$D\"; exit $status"]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// What a fault must leave untouched.
    struct Snapshot: Equatable {
        var workingCopy: Data?
        var settings: Data?
    }

    func snapshot() -> Snapshot {
        Snapshot(workingCopy: cli.bytes(cli.workingCopy), settings: cli.bytes(cli.settingsFile))
    }

    /// Runs `arguments` under a fault, checks the failure, removes the fault, checks the retry.
    func expectFault(_ name: String, _ arguments: [String], status: Int32, mentioning text: String,
                     environment: [String: String] = [:], removeFault: () throws -> Void) throws {
        let before = snapshot()
        let result = try cli.run(arguments, environment: environment)
        #expect(result.status == status, "\(name): \(result.stderr)")
        #expect(result.stderr.contains(text), "\(name): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(name): one line: \(result.stderr)")
        let intact = snapshot() == before && cli.temporaryFiles.isEmpty
        #expect(snapshot() == before, "\(name): the working copy and settings are byte-identical")
        #expect(cli.temporaryFiles.isEmpty, "\(name): no temporary files")
        try removeFault()
        let retry = try cli.run(arguments)
        #expect(retry.status == 0, "\(name): the next run succeeds: \(retry.stderr)")
        ReliabilityLog.record(suite: "fault: \(name)", faults: 1, dataLost: intact ? 0 : 1)
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMountTmpfs, "mounting a small tmpfs needs root and a sandbox that allows it; ExitCodeTests covers RLIMIT_FSIZE"))
    func diskFull() throws {
        let data = cli.root + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let mount = try cli.shell("mount -t tmpfs -o size=2m tmpfs '\(data)'")
        #expect(mount.status == 0, "\(mount.stderr)")
        defer { _ = try? cli.shell("umount '\(data)'") }
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let big = try cli.makeSeed("big.sqlite", marker: "A", megabytes: 16)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: big)[.size] as? NSNumber).int64Value
        // It says how much the copy needs and how much was free, and names the directory.
        try expectFault("disk full", ["reseed", "--app", cli.app, "--seed", big, "--name", "levels.sqlite", "--version", "big"],
                        status: 74, mentioning: "cannot copy seed into \(cli.appData): no space left on device: the copy needs \(size) bytes (") {
            let remount = try cli.shell("mount -o remount,size=64m '\(data)'")
            #expect(remount.status == 0)
        }
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMountTmpfs, "mounting a small tmpfs needs root and a sandbox that allows it"))
    func settingsOnAFullDiskSayHowMuchIsFree() throws {
        let config = cli.root + "/config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        #expect(try cli.shell("mount -t tmpfs -o size=1m tmpfs '\(config)'").status == 0)
        defer { _ = try? cli.shell("umount '\(config)'") }
        _ = try cli.shell("dd if=/dev/zero of='\(config)/fill' bs=4k count=1000")
        let result = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(result.status == 74)
        #expect(result.stderr == "seeddb: error: cannot write \(cli.settingsFile): no space left on device; 0 bytes free there\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy), "the failed record undid the install")
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMakeImmutable, "chattr +i needs root and a file system that supports it"))
    func readOnlyTargetDirectory() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.shell("chattr +i '\(cli.appData)'").status == 0)
        defer { _ = try? cli.shell("chattr -i '\(cli.appData)'") }
        try expectFault("read-only target directory", ["reseed"] + cli.seedFlags(2), status: 73, mentioning: cli.appData) {
            _ = try cli.shell("chattr -i '\(cli.appData)'")
        }
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMakeImmutable, "chattr +i needs root and a file system that supports it"))
    func unwritableSettingsDirectory() throws {
        let config = cli.root + "/config/\(cli.app)"
        // A first install: nothing recorded, so no withdrawal would have failed first.
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        #expect(try cli.shell("chattr +i '\(config)'").status == 0)
        defer { _ = try? cli.shell("chattr -i '\(config)'") }
        try expectFault("unwritable settings directory (install)", ["deploy"] + cli.seedFlags(1), status: 73, mentioning: config) {
            _ = try cli.shell("chattr -i '\(config)'")
        }
        // An upgrade.
        #expect(try cli.shell("chattr +i '\(config)'").status == 0)
        try expectFault("unwritable settings directory (upgrade)", ["deploy"] + cli.seedFlags(2), status: 73, mentioning: config) {
            _ = try cli.shell("chattr -i '\(config)'")
        }
    }

    /// Stops the deploy once it has planned, right before it stages the copy, lets `fault`
    /// change the world, and resumes it.
    func runPaused(_ arguments: [String], fault: () throws -> Void) throws -> CLIHarness.Result {
        let started = try cli.start(arguments, environment: ["SEEDDB_TEST_STOP_BEFORE": "stage"])
        #expect(started.waitUntilStopped(seconds: 5), "the deploy stopped before staging")
        try fault()
        started.signal(SIGCONT)
        return cli.finish(started)
    }

    /// Runs `arguments` stopped right before `step`, attaches strace restricted to the
    /// file `file` names in the app's directory's listing then (`-P`, so its count of
    /// calls is that file's alone, whatever the run did before), makes it inject `fault`
    /// (an `-e inject=` value), and resumes the run.
    func runFaulted(_ arguments: [String], before step: String, file: ([String]) -> String?, inject fault: String) throws -> CLIHarness.Result {
        let started = try cli.start(arguments, environment: ["SEEDDB_TEST_STOP_BEFORE": step])
        #expect(started.waitUntilStopped(seconds: 30), "the run stopped before \(step)")
        let name = try #require(file(cli.list(cli.appData)), "\(cli.list(cli.appData))")
        let tracer = try SpawnedProcess(
            DurabilityOrderTests.strace!, ["-f", "-qq", "-o", "/dev/null", "-P", cli.appData + "/" + name, "-e", "inject=\(fault)", "-p", "\(started.processIdentifier)"],
            environment: cli.environment)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, !Self.isTraced(started.processIdentifier) { usleep(10_000) }
        #expect(Self.isTraced(started.processIdentifier), "strace attached: \(tracer.errorsText)")
        started.signal(SIGCONT)
        let result = cli.finish(started)
        #expect(tracer.waitUntilEnded(until: .now + .seconds(10)), "strace ended with the run")
        return result
    }

    /// Whether process `pid` has a tracer attached.
    static func isTraced(_ pid: Int32) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").contains { $0.hasPrefix("TracerPid:") && $0.split(separator: "\t").last != "0" }
    }

    /// The staged copy's name in a listing: `.levels.sqlite.seeddb-<random>.tmp`.
    static func stagedCopy(_ names: [String]) -> String? {
        names.first { $0.hasPrefix(".levels.sqlite.seeddb-") && $0.hasSuffix(".tmp") && !$0.hasSuffix(".base.tmp") }
    }

    /// A working copy of version 1 with a table of the app's (`notes`), for an upgrade that
    /// carries it into the staged copy.
    func deployedWithAnAppTable() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let table = try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, \"mine\")'")
        #expect(table.status == 0, "\(table.stderr)")
    }

    /// Runs `arguments` under `fault` (``runFaulted(_:before:file:inject:)``) and expects
    /// `status`, one line that mentions `text` and not `notMentioning`, nothing changed,
    /// no file of SeedDB's naming left (a sidecar of the staged copy included), and the
    /// same run without the fault to succeed.
    func expectInjected(_ name: String, _ arguments: [String], before step: String, file: ([String]) -> String?, inject fault: String,
                        status: Int32, mentioning text: String, notMentioning wrong: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = cli.state()
        let result = try runFaulted(arguments, before: step, file: file, inject: fault)
        #expect(result.status == status, "\(name): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text) && !result.stderr.contains(wrong), "\(name): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(name): one line: \(result.stderr)", sourceLocation: sourceLocation)
        let left = cli.list(cli.appData).filter { $0.contains(".seeddb-") }
        let unchanged = cli.state() == before && left.isEmpty
        #expect(unchanged, "\(name): \(left)", sourceLocation: sourceLocation)
        // (Recorded as the failed run left things, before the next run changes them.)
        ReliabilityLog.record(suite: "fault: \(name)", faults: 1, dataLost: unchanged ? 0 : 1)
        let retry = try cli.run(arguments)
        #expect(retry.status == 0, "\(name): the next run succeeds: \(retry.stderr)", sourceLocation: sourceLocation)
    }

    /// A full disk while the app's tables are carried into the staged copy (merging off:
    /// its rollback journal cannot be written) is an I/O error, 74 with what is free, as
    /// with merging on; it said 65, `cannot carry table "notes" into the new seed`, as if
    /// the rows did not fit the seed.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aFullDiskWhileCarryingIsAnIOError() throws {
        try deployedWithAnAppTable()
        try expectInjected(
            "disk full carrying the app's tables", ["deploy", "--merge", "off"] + cli.seedFlags(2), before: "carry",
            file: { Self.stagedCopy($0).map { $0 + "-journal" } }, inject: "pwrite64:error=ENOSPC:when=1",
            status: 74, mentioning: "free there", notMentioning: "into the new seed")
    }

    /// The staged copy that cannot be opened (an I/O error) is no invalid seed: 74 naming
    /// the staged copy, for its check (it said `invalid seed <the seed>: quick_check
    /// failed: unable to open database file`, 65) and for its read-write open, which
    /// SQLite turns into a read-only one (it said `attempt to write a readonly database`,
    /// 65).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func theStagedCopyThatCannotBeOpenedIsNoInvalidSeed() throws {
        try deployedWithAnAppTable()
        try expectInjected(
            "staged copy unreadable for its check", ["deploy"] + cli.seedFlags(2), before: "check",
            file: Self.stagedCopy, inject: "openat:error=EIO:when=1",
            status: 74, mentioning: "cannot run quick_check on \(cli.appData)/.levels.sqlite.seeddb-", notMentioning: "invalid seed")
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try expectInjected(
            "staged copy not writable for the merge", ["deploy"] + cli.seedFlags(2), before: "carry",
            file: Self.stagedCopy, inject: "openat:error=EIO:when=1",
            status: 74, mentioning: "into the staged copy \(cli.appData)/.levels.sqlite.seeddb-", notMentioning: "the user's data into \(cli.workingCopy)")
    }

    /// A previous generation that is there but cannot be read (EIO) is an I/O error, 74;
    /// it said 66, which for `rollback` also means there is no previous generation. One
    /// SeedDB may not read (EACCES) is still 66.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aPreviousGenerationThatCannotBeReadIsAnIOError() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let rollback = ["rollback", "--app", cli.app, "--name", "levels.sqlite"]
        let previous = { (_: [String]) -> String? in "levels.sqlite.previous" }
        let before = cli.state()
        let failed = try runFaulted(rollback, before: "stage", file: previous, inject: "openat:error=EIO:when=1")
        #expect(failed.status == 74 && failed.stderr.contains("cannot read seed \(cli.workingCopy).previous: input/output error"), "\(failed.status): \(failed.stderr)")
        let refused = try runFaulted(rollback, before: "stage", file: previous, inject: "openat:error=EACCES:when=1")
        #expect(refused.status == 66 && refused.stderr.contains("permission denied"), "\(refused.status): \(refused.stderr)")
        #expect(cli.state() == before && cli.temporaryFiles.isEmpty, "\(cli.list(cli.appData))")
        #expect(try cli.run(rollback).status == 0)
    }

    /// A failed removal of the staged copy's rollback journal (SQLite deletes it at the
    /// end of the carry's transaction, merging off) is undone with the staged copy: no
    /// `.….tmp-journal` stays (it did), and the line names the staged copy, not `the
    /// working copy`.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func theStagedCopysJournalGoesWithIt() throws {
        try deployedWithAnAppTable()
        try expectInjected(
            "staged copy's journal not removed", ["deploy", "--merge", "off"] + cli.seedFlags(2), before: "carry",
            file: { Self.stagedCopy($0).map { $0 + "-journal" } }, inject: "unlink:error=EIO:when=1",
            status: 74, mentioning: "into the staged copy \(cli.appData)/.levels.sqlite.seeddb-", notMentioning: "the working copy")
    }

    @Test func seedVanishingMidCopy() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let seed = try cli.copySeed(2, to: "vanishing.sqlite")
        let arguments = ["deploy", "--name", "levels.sqlite"] + cli.seedFlags(2, source: seed)
        let before = snapshot()
        let result = try runPaused(arguments) { try FileManager.default.removeItem(atPath: seed) }
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let intact = snapshot() == before && cli.temporaryFiles.isEmpty
        #expect(snapshot() == before)
        #expect(cli.temporaryFiles.isEmpty)
        _ = try cli.copySeed(2, to: "vanishing.sqlite")
        #expect(try cli.run(arguments).status == 0)
        ReliabilityLog.record(suite: "fault: seed vanishing mid-copy", faults: 1, dataLost: intact ? 0 : 1)
    }

    @Test func seedTruncatedMidCopy() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let seed = try cli.makeSeed("shrinking.sqlite", marker: "A", megabytes: 4)
        let arguments = ["deploy", "--app", cli.app, "--seed", seed, "--name", "levels.sqlite", "--version", "shrink"]
        let before = snapshot()
        let result = try runPaused(arguments) { #expect(truncate(seed, 1 << 20) == 0) }
        #expect(result.status == 65, "\(result.stderr)")
        let intact = snapshot() == before && cli.temporaryFiles.isEmpty
        #expect(snapshot() == before)
        #expect(cli.temporaryFiles.isEmpty)
        ReliabilityLog.record(suite: "fault: seed truncated mid-copy", faults: 1, dataLost: intact ? 0 : 1)
    }

    @Test(arguments: ["symlink", "directory", "fifo"])
    func workingCopyPathIsNotAFile(kind: String) throws {
        try FileManager.default.createDirectory(atPath: cli.appData, withIntermediateDirectories: true)
        let target = cli.root + "/elsewhere.txt"
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8))
        switch kind {
        case "symlink": try FileManager.default.createSymbolicLink(atPath: cli.workingCopy, withDestinationPath: target)
        case "directory": try FileManager.default.createDirectory(atPath: cli.workingCopy, withIntermediateDirectories: false)
        default: #expect(mkfifo(cli.workingCopy, 0o600) == 0)
        }
        try expectFault("working copy is a \(kind)", ["deploy"] + cli.seedFlags(1), status: 73, mentioning: "not a regular file") {
            try FileManager.default.removeItem(atPath: cli.workingCopy)
        }
        #expect(cli.bytes(target) == Data("keep me".utf8))
    }

    @Test func symlinkPlantedAtTheTemporaryName() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let target = cli.root + "/victim.txt"
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8))
        for name in [".levels.sqlite.seeddb-planted.tmp", ".levels.sqlite.seeddb-previous.tmp"] {
            try FileManager.default.createSymbolicLink(atPath: cli.appData + "/" + name, withDestinationPath: target)
        }
        try FileManager.default.createSymbolicLink(atPath: cli.root + "/config/\(cli.app)/.settings.json.seeddb-planted.tmp", withDestinationPath: target)
        // Documented recovery: leftover temporary names are removed (never followed) under the lock.
        let result = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.bytes(target) == Data("keep me".utf8))
        #expect(cli.temporaryFiles.isEmpty)
        #expect(cli.generationOfDemo() == 2)
        ReliabilityLog.record(suite: "fault: symlink at a temporary name", faults: 3, dataLost: cli.bytes(target) == Data("keep me".utf8) ? 0 : 1)
    }
}

extension CLIHarness {
    /// 1 or 2: which demo seed the working copy holds, by its level count.
    func generationOfDemo() -> Int? {
        guard let data = bytes(workingCopy) else { return nil }
        if data == bytes("\(Self.seeds)/v1/levels.sqlite") { return 1 }
        if data == bytes("\(Self.seeds)/v2/levels.sqlite") { return 2 }
        return nil
    }
}
