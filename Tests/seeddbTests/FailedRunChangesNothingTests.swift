import Foundation
import GRDB
import Testing

/// For every step that can fail, a run that exits non-zero leaves the settings
/// file byte for byte, the working copy and the directory listings exactly as they were.
@Suite(.serialized) struct FailedRunChangesNothingTests {
    let cli = CLIHarness()

    func state() -> CLIHarness.State { cli.state() }

    /// Deploys v1 then v2 (so a previous generation exists), with the app's own key in the settings.
    func deployedTwice(preserve: [String] = []) throws {
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        let flags = preserve.flatMap { ["--preserve", $0] }
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + flags).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2) + flags).status == 0)
    }

    /// Runs `arguments`, expects `status` with one line on standard error, and nothing changed.
    func expectNothingChanged(_ arguments: [String], status: Int32, mentioning: String? = nil, environment: [String: String] = [:], sourceLine: SourceLocation = #_sourceLocation) throws {
        let before = state()
        let result = try cli.run(arguments, environment: environment)
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLine)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLine)
        if let mentioning { #expect(result.stderr.contains(mentioning), "\(result.stderr)", sourceLocation: sourceLine) }
        #expect(state() == before, sourceLocation: sourceLine)
    }

    @Test func anInvalidSeedChangesNothing() throws {
        try deployedTwice()
        let garbage = cli.root + "/garbage.sqlite"
        try Data(repeating: 7, count: 8192).write(to: URL(fileURLWithPath: garbage))
        try expectNothingChanged(["reseed", "--name", "levels.sqlite"] + cli.seedFlags(3, source: garbage), status: 65)
    }

    @Test func aChecksumMismatchChangesNothing() throws {
        try deployedTwice()
        try expectNothingChanged(["reseed", "--sha256", String(repeating: "0", count: 64)] + cli.seedFlags(1), status: 65, mentioning: "SHA-256")
    }

    /// A first deploy that fails right after it made the app's directory (an I/O error
    /// opening it to set its mode) removes that directory again: the failed run leaves the
    /// directory entries as they were (it left the new, empty directory). The fault is
    /// the first open of the directory after its `mkdir`, counted in a run without it.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aFirstDeployThatFailsRemovesTheDirectoryItMade() throws {
        let strace = DurabilityOrderTests.strace!
        let arguments = (["deploy"] + cli.seedFlags(1)).map { "'\($0)'" }.joined(separator: " ")
        let counted = CLIHarness()
        let output = counted.root + "/trace.txt"
        #expect(try counted.shell("\(strace) -f -qq -o '\(output)' -P '\(counted.appData)' -e trace=openat,mkdir '\(CLIHarness.binary)' \(arguments)").status == 0)
        let calls = String(decoding: counted.bytes(output) ?? Data(), as: UTF8.self).split(separator: "\n")
        let made = try #require(calls.firstIndex { $0.contains("mkdir(") }, "\(calls)")
        let when = calls[..<made].filter { $0.contains("openat(") }.count + 1
        let failed = try cli.shell("\(strace) -f -qq -o /dev/null -P '\(cli.appData)' -e inject=openat:error=EIO:when=\(when) '\(CLIHarness.binary)' \(arguments)")
        #expect(failed.status == 74 && failed.stderr.contains("cannot create directory \(cli.appData)"), "\(failed.status): \(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData), "\(cli.list(cli.root + "/data"))")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/config/" + cli.app), "\(cli.list(cli.root + "/config"))")
    }

    @Test func aFullDiskChangesNothing() throws {
        try deployedTwice()
        // A seed larger than the file-size limit the shell sets (RLIMIT_FSIZE, as a full disk).
        let big = try cli.makeSeed("big.sqlite", marker: "big", megabytes: 1)
        let before = state()
        let result = try cli.shell("ulimit -f 256; exec '\(CLIHarness.binary)' deploy --app \(cli.app) --seed '\(big)' --name levels.sqlite --version big")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(state() == before)
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMakeImmutable, "chattr +i needs root and a file system that supports it"))
    func anUnwritableDirectoryChangesNothing() throws {
        try deployedTwice()
        #expect(try cli.shell("chattr +i '\(cli.appData)'").status == 0)
        defer { _ = try? cli.shell("chattr -i '\(cli.appData)'") }
        try expectNothingChanged(["reseed"] + cli.seedFlags(1), status: 73)
    }

    @Test(.enabled(if: IOFaultsChangeNothingTests.canMakeImmutable, "chattr +i needs root and a file system that supports it"))
    func unwritableSettingsChangeNothing() throws {
        try deployedTwice()
        let settings = cli.root + "/config/" + cli.app
        #expect(try cli.shell("chattr +i '\(settings)'").status == 0)
        defer { _ = try? cli.shell("chattr -i '\(settings)'") }
        try expectNothingChanged(["deploy"] + cli.seedFlags(1), status: 73)
    }

    @Test(arguments: ["swap", "live", "auto"], ["delete", "wal"])
    func aDatabaseInUseChangesNothing(strategy: String, journalMode: String) throws {
        try deployedTwice()
        let holder = try cli.hold("""
        import sqlite3
        db = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
        db.execute('PRAGMA journal_mode=\(journalMode)')
        db.execute('BEGIN IMMEDIATE')
        """)
        defer { holder.release() }
        try expectNothingChanged(["deploy", "--wait", "0.5", "--strategy", strategy] + cli.seedFlags(1), status: 75, mentioning: "in use")
    }

    @Test func aHeldDeployLockChangesNothing() throws {
        try deployedTwice()
        let holder = try cli.hold("""
        import fcntl, os, struct
        fd = os.open('\(cli.workingCopy).lock', os.O_RDWR)
        fcntl.fcntl(fd, 37, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 1, 0))  # F_OFD_SETLK
        """)
        defer { holder.release() }
        try expectNothingChanged(["reseed", "--wait", "0.2"] + cli.seedFlags(1), status: 75, mentioning: "lock")
    }

    @Test func aCarryThatDoesNotFitChangesNothing() throws {
        try deployedTwice(preserve: ["progress"])
        let queue = try DatabaseQueue(path: cli.workingCopy)
        try queue.write { db in try db.execute(sql: "INSERT INTO progress(level, stars) VALUES (1, 3)") }
        try queue.close()
        // A new seed whose `progress` needs a column the old rows do not have.
        let strict = cli.root + "/strict.sqlite"
        let seed = try DatabaseQueue(path: strict)
        try seed.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
                CREATE TABLE progress(level INTEGER PRIMARY KEY, stars INTEGER, badge TEXT NOT NULL);
                """)
        }
        try seed.close()
        try expectNothingChanged(["reseed", "--preserve", "progress", "--name", "levels.sqlite"] + cli.seedFlags(3, source: strict), status: 65, mentioning: "progress")
    }

    @Test func aPreserveTypoChangesNothing() throws {
        try deployedTwice(preserve: ["progress"])
        try expectNothingChanged(["reseed", "--preserve", "progres"] + cli.seedFlags(1), status: 78, mentioning: "did you mean \"progress\"?")
    }

    @Test func aMissingSeedCreatesNothing() throws {
        let before = state()
        let result = try cli.run(["deploy"] + cli.seedFlags(1, source: cli.root + "/nope.sqlite"))
        #expect(result.status == 66)
        #expect(state() == before)
        #expect(!FileManager.default.fileExists(atPath: cli.appData))
    }

    @Test func aRollbackWithNothingDeployedCreatesNothing() throws {
        let result = try cli.run(["rollback"] + cli.seedFlags(1))
        #expect(result.status == 66)
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/data"))
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/config"))
    }

    /// Each `rename` of a merging deploy failing in turn (strace `inject=…:error=EIO`): a
    /// run that exits non-zero leaves the settings, the working copy and the directory's
    /// entries as they were. The new merge base's rename failing left
    /// `.levels.sqlite.seeddb-….old-base.tmp`, a second link of the old base that the
    /// undo's `rename(2)` over the base could not move (found by a contract probe).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func eachFailingRenameOfAMergingDeployChangesNothing() throws {
        let strace = try #require(DurabilityOrderTests.strace)
        var injected = true
        var failedRuns = 0
        for when in 1...30 where injected {
            // Given v1 deployed (with its merge base) and a row of the user's
            let cli = CLIHarness()
            #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
            #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"INSERT INTO levels(ix, background, map) SELECT 100, 'mine', map FROM levels WHERE ix = 1\"").status == 0)
            let before = cli.state()

            // When v2's deploy, which merges, has its `when`th rename fail
            let trace = cli.root + "/trace"
            let arguments = (["deploy"] + cli.seedFlags(2)).map { "'\($0)'" }.joined(separator: " ")
            let result = try cli.shell("\(strace) -f -qq -o '\(trace)' -e trace=rename,renameat2 -e inject=rename,renameat2:error=EIO:when=\(when) '\(CLIHarness.binary)' \(arguments)")
            injected = String(decoding: cli.bytes(trace) ?? Data(), as: UTF8.self).contains("(INJECTED)")

            // Then a run that failed changed nothing (one that succeeded had a rename it can do without)
            guard injected, result.status != 0 else { continue }
            failedRuns += 1
            #expect(result.status == 74, "rename \(when): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "rename \(when): \(result.stderr)")
            #expect(cli.state() == before, "rename \(when) failing: \(result.stderr); left \(cli.list(cli.appData))")
        }
        #expect(!injected, "a rename failed in every run tried")
        #expect(failedRuns >= 5, "\(failedRuns) runs failed")
    }

    /// A purge whose settings file could not be written had already removed the working
    /// copy, its generations and its lock, and reported nothing removed (74): the record
    /// then named a working copy that was gone. The records are written first, under the
    /// locks: a purge that fails writing them removes nothing.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "needs strace"))
    func aPurgeThatCannotWriteTheSettingsRemovesNothing() throws {
        let strace = try #require(DurabilityOrderTests.strace)
        for call in ["write", "fsync"] {
            // Given v2 deployed over v1 (a previous generation, a merge base)
            let cli = CLIHarness()
            #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
            #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
            let before = cli.state()

            // When the purge's first write (or flush) fails
            let result = try cli.shell("\(strace) -f -qq -o /dev/null -e trace=\(call) -e inject=\(call):error=EIO:when=1 '\(CLIHarness.binary)' purge --app \(cli.app) --name levels.sqlite --json")

            // Then it fails, says nothing was removed, and nothing was
            #expect(result.status == 74, "\(call): \(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains(#""seeds":[]"#), "\(call): \(result.stdout)")
            #expect(cli.state() == before, "\(call) failing left \(cli.list(cli.appData)) \(result.stderr)")
        }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func anInterruptedRunUndoesItself(signal: Int32, status: Int32) throws {
        try deployedTwice()
        let before = state()
        let started = try cli.start(["reseed"] + cli.seedFlags(1), environment: ["SEEDDB_TEST_STOP_AFTER": "stage"])
        // Wait for the run to stop itself after staging, then interrupt and resume it.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !cli.list(cli.appData).contains(where: { $0.hasSuffix(".tmp") }) { usleep(10_000) }
        usleep(100_000)
        started.signal(signal)
        started.signal(SIGCONT)
        let result = cli.finish(started)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr == "seeddb: error: interrupted; nothing was changed\n" || result.stderr == "seeddb: interrupted; nothing was changed\n", "\(result.stderr)")
        #expect(state() == before)
    }
}
