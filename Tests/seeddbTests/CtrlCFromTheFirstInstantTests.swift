import Foundation
import Testing

/// Ctrl-C works from the first instant: the handler is installed before anything else in
/// `main`, so a SIGINT or SIGTERM at any moment of a run exits 130 or 143 with one line
/// and changes nothing (before, a signal in the first few hundred milliseconds killed the
/// process by the default action, silently). A run started with SIGINT ignored keeps
/// ignoring it.
///
/// The runs are of the debug build beside the tests, whatever `SEEDDB_BINARY` says: it
/// parses its command line for about half a second, so signals sent 0 to 400 ms after its
/// handler is in place land before the run's first step, the moments this suite is about.
/// The release binary is through them in milliseconds, and its signals would all land in
/// the copy. The delay counts from the handler's installation, not from `exec`: between
/// the two the dynamic loader maps the Swift runtime and Foundation, which no code of
/// SeedDB's can run before, and which took more than 50 ms on a loaded CI machine.
@Suite struct CtrlCFromTheFirstInstantTests {
    let cli = CLIHarness()
    static let debugBinary = CLIHarness.products + "/seeddb"

    /// A replace of v1 by a seed that takes seconds to copy (1 GiB decompressed).
    var bigDeploy: [String] {
        ["deploy", "--integrity", "none", "--app", cli.app, "--seed", CtrlCStopsACopyTests.seed, "--version", "big", "--name", "levels.sqlite"]
    }

    @Test(arguments: [(SIGINT, 0), (SIGINT, 50), (SIGINT, 100), (SIGINT, 200), (SIGINT, 400), (SIGTERM, 0), (SIGTERM, 200)])
    func aSignalAtAnyMomentExitsWithOneLineAndChangesNothing(signal: Int32, milliseconds: Int) throws {
        // Given v1 deployed
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let listing = cli.list(cli.appData)
        let settings = cli.bytes(cli.settingsFile)

        // When a replace by a large seed, started as from a terminal, gets the signal
        // `milliseconds` after `main` caught it
        let started = try startAsFromATerminal(bigDeploy)
        try waitUntilCaught(signal, by: started)
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

    /// Waits until `seeddb` itself (not the wrapper that execs it, which catches both
    /// signals) catches `signal`, as `/proc/<pid>/status` shows: its `main` has begun.
    func waitUntilCaught(_ signal: Int32, by process: SpawnedProcess) throws {
        let directory = "/proc/\(process.processIdentifier)"
        let bit = UInt64(1) << UInt64(signal - 1)
        for _ in 0..<10_000 {
            let command = (try? String(contentsOfFile: directory + "/comm", encoding: .utf8)) ?? ""
            let status = (try? String(contentsOfFile: directory + "/status", encoding: .utf8)) ?? ""
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            if command == "seeddb\n", caught & bit != 0 { return }
            usleep(1000)
        }
        Issue.record("seeddb did not catch signal \(signal) within 10 s of its exec")
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
