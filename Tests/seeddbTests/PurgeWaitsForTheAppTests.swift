import Foundation
import Testing

/// `purge` takes the writer's lock on the working copy before it removes anything, as a
/// swap, a rollback and the switch to a read-only seed take it: it waits `--wait` for an
/// app's transaction to end (and, in WAL mode, for its connections to close), then exits
/// 75 with one line, nothing removed. It removed the database and its `-journal` under an
/// open write transaction (the app then got "disk I/O error"), and a `-wal` with
/// committed frames under its connection (found by a contract probe).
@Suite struct PurgeWaitsForTheAppTests {
    /// Every file of the app's data and settings directories.
    static func files(_ cli: CLIHarness) -> [String] {
        cli.list(cli.appData) + cli.list(cli.root + "/config/" + cli.app)
    }

    @Test(arguments: ["DELETE", "WAL"])
    func aTransactionUnderWayHoldsThePurgeOff(journalMode: String) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let app = try cli.hold("""
            import sqlite3
            c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
            c.execute('PRAGMA journal_mode=\(journalMode)')
            c.execute('BEGIN IMMEDIATE')
            c.execute("INSERT INTO progress VALUES (500, 1)")
            """)
        let before = Self.files(cli)
        #expect(before.contains { $0.hasSuffix(journalMode == "WAL" ? "-wal" : "-journal") }, "\(before)")
        let settings = cli.bytes(cli.settingsFile)
        let dry = try cli.run(["purge", "--dry-run", "--app", cli.app, "--name", "levels.sqlite", "--wait", "1"])
        #expect(dry.status == 0 && dry.stdout.contains("would remove"), "a dry run does not wait: \(dry.stdout) \(dry.stderr)")
        let started = Date()
        let purge = try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite", "--wait", "1"])
        #expect(purge.status == 75, "\(purge.stdout) \(purge.stderr)")
        #expect(purge.stderr == "seeddb: error: cannot purge \(cli.workingCopy): database in use by another process\n", "\(purge.stderr)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "it waited --wait")
        #expect(Self.files(cli) == before && cli.bytes(cli.settingsFile) == settings, "nothing was removed")
        app.release()
        let after = try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite", "--wait", "1"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)
    }

    @Test func aTransactionThatEndsWithinTheWaitLetsThePurgeProceed() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let started = Date()
        let run = try cli.shell("""
            python3 - <<'PY' &
            import sqlite3, time
            c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
            c.execute('BEGIN IMMEDIATE')
            c.execute("INSERT INTO progress VALUES (500, 1)")
            time.sleep(1.5)
            c.execute('COMMIT')
            print('committed', flush=True)
            PY
            sleep 0.5; '\(CLIHarness.binary)' purge --app \(cli.app) --name levels.sqlite --wait 10; echo "status $?"; wait
            """)
        #expect(run.stdout.contains("committed") && run.stdout.contains("status 0"), "\(run.stdout) \(run.stderr)")
        let (committed, purged) = (run.stdout.range(of: "committed"), run.stdout.range(of: "status 0"))
        #expect(committed.flatMap { committed in purged.map { committed.lowerBound < $0.lowerBound } } == true, "the purge waited for the commit: \(run.stdout)")
        #expect(Date().timeIntervalSince(started) >= 1.4)
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)
    }
}
