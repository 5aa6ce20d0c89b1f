import Foundation
import GRDB
import Testing

/// Every documented exit status, with a one-line message on standard error.
@Suite struct ExitCodeTests {
    let cli = CLIHarness()

    func expectFailure(_ arguments: [String], status: Int32, mentioning text: String, environment: [String: String] = [:]) throws {
        let result = try cli.run(arguments, environment: environment)
        #expect(result.status == status, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(text), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("Error Domain="))
    }

    @Test func usageErrorsExit64() throws {
        try expectFailure(["deploy"], status: 64, mentioning: "--manifest")
        try expectFailure(["deploy", "--app", "a", "--seed", "s"], status: 64, mentioning: "--version")
        try expectFailure(["deploy", "--app", "../evil", "--seed", "s.db", "--version", "1"], status: 64, mentioning: "app id")
        try expectFailure(["deploy", "--app", "a", "--seed", "s.db", "--version", "1", "--name", "a/b"], status: 64, mentioning: "name")
        try expectFailure(["deploy", "--app", "a", "--seed", "s.db", "--version", "1", "--sha256", "xyz"], status: 64, mentioning: "SHA-256")
        try expectFailure(["deploy", "--app", "a", "--seed", "s.db", "--version", "1", "--location", "tmp"], status: 64, mentioning: "location")
        try expectFailure(["deploy", "--app", "a", "--seed", "s.db", "--version", ""], status: 64, mentioning: "version")
        try expectFailure(["deploy", "--manifest", "m.json", "--app", "a"], status: 64, mentioning: "--manifest")
        try expectFailure(["deploy", "--app", "a", "--seed", "s.db", "--version", "1", "--wait", "-1"], status: 64, mentioning: "--wait")
        try expectFailure(["frobnicate"], status: 64, mentioning: "frobnicate")
    }

    @Test func invalidSeedsExit65() throws {
        let garbage = cli.root + "/garbage.sqlite"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x42, count: 4096))
        try expectFailure(["deploy"] + cli.seedFlags(1, source: garbage), status: 65, mentioning: "not an SQLite")

        let empty = cli.root + "/empty.sqlite"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        try expectFailure(["deploy"] + cli.seedFlags(1, source: empty), status: 65, mentioning: "not an SQLite")

        // A valid header followed by garbage pages.
        let torn = try cli.copySeed(2, to: "torn.sqlite")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: torn))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        try expectFailure(["deploy"] + cli.seedFlags(1, source: torn), status: 65, mentioning: "quick_check")

        // A seed whose -wal holds frames.
        let walSeed = try cli.copySeed(1, to: "walseed.sqlite")
        _ = FileManager.default.createFile(atPath: walSeed + "-wal", contents: Data(repeating: 1, count: 4096 + 56))
        try expectFailure(["deploy"] + cli.seedFlags(1, source: walSeed), status: 65, mentioning: "-wal")

        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        #expect(!FileManager.default.fileExists(atPath: cli.settingsFile))
        #expect(cli.list(cli.appData).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func missingSeedExits66() throws {
        try expectFailure(["deploy"] + cli.seedFlags(1, source: cli.root + "/nope.sqlite"), status: 66, mentioning: "seed not found")
        try expectFailure(["deploy", "--manifest", cli.root + "/nope.json"], status: 66, mentioning: "manifest not found")
    }

    @Test func unwritableLocationExits73() throws {
        // XDG_DATA_HOME is a regular file: nothing can be created below it (holds as root too).
        let blocker = cli.root + "/blocker"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data())
        try expectFailure(["deploy"] + cli.seedFlags(1), status: 73, mentioning: blocker, environment: ["XDG_DATA_HOME": blocker])
    }

    @Test func fullDiskExits74AndChangesNothing() throws {
        // A seed larger than the file-size limit the shell sets (RLIMIT_FSIZE, as a full disk).
        let big = cli.root + "/big.sqlite"
        let queue = try DatabaseQueue(path: big)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL)")
            for ix in 1...64 { try db.execute(sql: "INSERT INTO levels VALUES (?, 'x', zeroblob(16384))", arguments: [ix]) }
        }
        try queue.close()
        try cli.run(["deploy"] + cli.seedFlags(1))
        let before = cli.bytes(cli.workingCopy)
        let settings = cli.bytes(cli.settingsFile)
        let result = try cli.shell("ulimit -f 256; exec '\(CLIHarness.binary)' deploy --app \(cli.app) --seed '\(big)' --name levels.sqlite --version big")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(cli.bytes(cli.workingCopy) == before)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.base", "levels.sqlite.lock", "levels.sqlite.v1"])
    }

    @Test func heldLockExits75() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        // Another deployer holds the deploy lock (an OFD write lock on byte 0 of the lock file).
        let holder = try cli.hold("""
        import fcntl, os, struct
        fd = os.open('\(cli.workingCopy).lock', os.O_RDWR)
        fcntl.fcntl(fd, 37, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 1, 0))  # F_OFD_SETLK
        """)
        defer { holder.release() }
        try expectFailure(["reseed", "--wait", "0.2"] + cli.seedFlags(2), status: 75, mentioning: "lock")
        #expect(cli.bytes(cli.workingCopy) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
    }

    @Test func badManifestExits78() throws {
        let manifest = cli.root + "/seeds.json"
        try Data(#"{"app": "a", "seeds": [{"source": "x.db", "version": "1", "colour": "red"}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        try expectFailure(["deploy", "--manifest", manifest], status: 78, mentioning: "colour")
        try Data(#"{"app": "../a", "seeds": [{"source": "x.db", "version": "1"}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        try expectFailure(["status", "--manifest", manifest], status: 78, mentioning: "app")
    }

    @Test func corruptWorkingCopyFailsVerifyWith65() throws {
        try cli.run(["deploy"] + cli.seedFlags(2))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cli.workingCopy))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let result = try cli.run(["verify", "--json"] + cli.seedFlags(2))
        #expect(result.status == 65)
        let seed = try #require(try result.seeds().first)
        #expect(seed["seed"] as? String == "ok")
        #expect(seed["workingCopy"] as? String != "ok")
    }
}
