import Foundation
import Testing

/// Ctrl-C works from the first instant: the handler is installed before anything else in
/// `main`, so a SIGINT or SIGTERM at any moment of a run exits 130 or 143 with one line
/// and changes nothing (before, a signal in the first few hundred milliseconds killed the
/// process by the default action, silently). A run started with SIGINT ignored keeps
/// ignoring it.
///
/// The runs are of the debug build beside the tests, whatever `SEEDDB_BINARY` says: it
/// parses its command line for about half a second, so signals sent 50 to 400 ms after
/// `exec` land before the run's first step, the moments this suite is about. The release
/// binary is through them in milliseconds, and its signals would all land in the copy.
@Suite struct CtrlCFromTheFirstInstantTests {
    let cli = CLIHarness()
    static let debugBinary = CLIHarness.products + "/seeddb"

    /// A replace of v1 by a seed that takes seconds to copy (1 GiB decompressed).
    var bigDeploy: [String] {
        ["deploy", "--integrity", "none", "--app", cli.app, "--seed", CtrlCStopsACopyTests.seed, "--version", "big", "--name", "levels.sqlite"]
    }

    @Test(arguments: [(SIGINT, 50), (SIGINT, 100), (SIGINT, 200), (SIGINT, 400), (SIGTERM, 50), (SIGTERM, 200)])
    func aSignalAtAnyMomentExitsWithOneLineAndChangesNothing(signal: Int32, milliseconds: Int) throws {
        // Given v1 deployed
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let listing = cli.list(cli.appData)
        let settings = cli.bytes(cli.settingsFile)

        // When a replace by a large seed, started as from a terminal, gets the signal
        // `milliseconds` after it started
        let started = try startAsFromATerminal(bigDeploy)
        usleep(UInt32(milliseconds * 1000))
        started.signal(signal)
        let result = cli.finish(started, timeout: 60)

        // Then it exits 128 + the signal with one line, and nothing changed
        #expect(result.killedBy == nil, "died of signal \(result.killedBy ?? 0) (no handler yet)")
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stderr == "seeddb: error: interrupted; nothing was changed\n")
        #expect(result.stdout == "")
        #expect(cli.list(cli.appData) == listing)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(try cli.levelCount() == 20)
    }

    @Test func anInheritedIgnoredSIGINTStaysIgnored() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)

        // Given a run started with SIGINT ignored (as `seeddb … &` from a script is)
        let started = try startAsFromATerminal(bigDeploy, ignoringSIGINT: true)

        // When it gets SIGINT in its first moments and during the copy
        for _ in 0..<4 {
            usleep(100_000)
            started.signal(SIGINT)
        }
        let result = cli.finish(started, timeout: 60)

        // Then it goes on to the end: the big seed is deployed
        #expect(result.killedBy == nil)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.recorded().version == "big")
    }

    /// Starts `seeddb arguments` as a shell at a terminal starts it: SIGINT and SIGTERM
    /// unblocked and at their default action (``SpawnedProcess`` starts the wrapper so,
    /// and the wrapper makes sure), or SIGINT ignored. Returns once `seeddb` itself is
    /// starting (the wrapper's `exec`).
    func startAsFromATerminal(_ arguments: [String], ignoringSIGINT: Bool = false) throws -> SpawnedProcess {
        // A caught signal is reset to its default action by exec; an ignored one stays
        // ignored.
        let script = """
            import os, signal, sys
            signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[1] == "ignore" else (lambda *_: None))
            signal.signal(signal.SIGTERM, lambda *_: None)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.write(2, b"exec\\n")
            os.execv(sys.argv[2], sys.argv[2:])
            """
        let process = try SpawnedProcess(
            "/usr/bin/env", ["python3", "-c", script, ignoringSIGINT ? "ignore" : "default", Self.debugBinary] + arguments,
            environment: cli.environment, directory: cli.root)
        let announced = process.standardError.readData(ofLength: 5)
        #expect(announced == Data("exec\n".utf8))
        return process
    }
}
