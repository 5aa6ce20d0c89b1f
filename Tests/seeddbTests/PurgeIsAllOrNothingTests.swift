import Foundation
import Testing

/// `purge` of several working copies (a manifest's, or several `--name`s) takes every
/// working copy's deploy lock and the writer's lock on its database, in the order given,
/// before it removes anything, as a release takes its seeds' locks: an app's transaction
/// on one of them, or another run holding one's lock, past `--wait` (75) removes nothing
/// of any. It purged the working copies before that one first, and stopped there.
@Suite struct PurgeIsAllOrNothingTests {
    /// The two ways to name the same two working copies: a manifest's seeds, and `--name`s.
    static let forms = ["manifest", "names"]

    /// A release of `levels.sqlite` and `dict.sqlite` deployed, and the `purge` command
    /// (with `extra`) of both, in that order, in `form`.
    static func deployedPair(_ cli: CLIHarness, form: String, _ extra: [String]) throws -> [String] {
        let manifest = try ReleaseIsAllOrNothingTests.release(cli, "r1", version: 1, count: 2)
        let deployed = try cli.run(["deploy", "--manifest", manifest])
        try #require(deployed.status == 0, "\(deployed.stderr)")
        let targets = form == "manifest" ? ["--manifest", manifest] : ["--app", cli.app, "--name", "levels.sqlite", "--name", "dict.sqlite"]
        return ["purge"] + targets + extra
    }

    @Test(arguments: forms)
    func anAppsTransactionOnTheSecondWorkingCopyRemovesNothingOfEither(form: String) throws {
        // Given: both working copies deployed, an app's write transaction on the second.
        let cli = CLIHarness()
        let purge = try Self.deployedPair(cli, form: form, ["--wait", "0"])
        let second = cli.appData + "/dict.sqlite"
        let app = try cli.hold("""
            import sqlite3
            c = sqlite3.connect('\(second)', isolation_level=None)
            c.execute('BEGIN IMMEDIATE')
            c.execute("INSERT INTO progress VALUES (500, 1)")
            """)
        let before = ReleaseIsAllOrNothingTests.state(cli)
        #expect(before.keys.contains("levels.sqlite") && before.keys.contains("dict.sqlite"), "\(before)")

        // When: both are purged, the first one first.
        let refused = try cli.run(purge)

        // Then: 75 with the second one's line, and nothing of either removed.
        #expect(refused.status == 75, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr == "seeddb: error: cannot purge \(second): database in use by another process\n", "\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "no working copy was purged: \(refused.stdout)")
        #expect(ReleaseIsAllOrNothingTests.state(cli) == before, "the refused purge removed something")
        let json = try cli.run(purge + ["--json"])
        #expect(json.status == 75)
        #expect(try json.seeds().isEmpty, "\(json.stdout)")
        let error = try json.json()["error"] as? [String: Any]
        #expect(error?["seed"] as? String == "dict.sqlite" && error?["code"] as? Int == 75, "\(json.stdout)")
        #expect(ReleaseIsAllOrNothingTests.state(cli) == before)

        // And once the app's transaction ends, both go.
        app.release()
        let purged = try cli.run(purge)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData), "\(cli.list(cli.appData))")
        #expect(cli.settings() == nil)
    }

    @Test(arguments: forms)
    func anotherRunHoldingTheSecondLockRemovesNothingOfEither(form: String) throws {
        // Given: both working copies deployed, another run holding the second one's deploy
        // lock (an OFD write lock on byte 0 of its lock file).
        let cli = CLIHarness()
        let purge = try Self.deployedPair(cli, form: form, ["--wait", "0.2"])
        let lockFile = cli.appData + "/dict.sqlite.lock"
        let run = try cli.hold("""
            import fcntl, os, struct
            fd = os.open('\(lockFile)', os.O_RDWR)
            fcntl.fcntl(fd, 37, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 1, 0))  # F_OFD_SETLK
            """)
        let before = ReleaseIsAllOrNothingTests.state(cli)

        // When: both are purged, the first one first.
        let refused = try cli.run(purge)

        // Then: 75 once the wait runs out, naming the lock, and nothing of either removed.
        #expect(refused.status == 75, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.hasPrefix("seeddb: error: timed out after 0.2s waiting for the lock \(lockFile)"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "no working copy was purged: \(refused.stdout)")
        #expect(ReleaseIsAllOrNothingTests.state(cli) == before, "the refused purge removed something")

        // And once the other run lets go, both go.
        run.release()
        let purged = try cli.run(purge)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData), "\(cli.list(cli.appData))")
        #expect(cli.settings() == nil)
    }
}
