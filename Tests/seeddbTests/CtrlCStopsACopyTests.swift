import Foundation
import Testing

/// Ctrl-C (SIGINT) during a long copy stops it between two chunks, not at its end: the
/// run exits 130 within a fraction of a second, and nothing is changed or left behind.
@Suite struct CtrlCStopsACopyTests {
    let cli = CLIHarness()

    /// A `.zst` seed that decompresses to 1 GiB: seconds of copying.
    static let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        + "/Fixtures/sparse-1g.sqlite.zst"

    @Test func sigintDuringACopyStopsItAtOnceAndChangesNothing() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let listing = cli.list(cli.appData)
        let settings = cli.bytes(cli.settingsFile)
        let started = try cli.start(["deploy", "--integrity", "none", "--app", cli.app, "--seed", Self.seed, "--version", "big", "--name", "levels.sqlite"])
        // Wait until the copy is under way: a staged file beside the working copy, growing.
        let deadline = Date().addingTimeInterval(30)
        var staging = false
        while Date() < deadline, started.isRunning, !staging {
            staging = cli.list(cli.appData).contains { $0.contains(".seeddb-") && size(of: cli.appData + "/" + $0) > 32 << 20 }
            if !staging { usleep(5_000) }
        }
        try #require(staging && started.isRunning, "the copy never got under way")
        let signalled = Date()
        started.signal(SIGINT)
        let result = cli.finish(started, timeout: 30)
        let latency = Date().timeIntervalSince(signalled)
        #expect(result.status == 130, "\(result.stderr)")
        // A generous bound for a loaded CI machine; the stop itself takes one chunk.
        #expect(latency < 1, "stopped \(Int(latency * 1000)) ms after the signal")
        #expect(cli.list(cli.appData) == listing, "nothing left behind")
        #expect(cli.bytes(cli.settingsFile) == settings)
        ReliabilityLog.record(suite: "Ctrl-C during a copy: ms from SIGINT to exit \(Int(latency * 1000))", trials: 1, dataLost: result.status == 130 ? 0 : 1)
    }

    private func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// SIGINT or SIGTERM at each rename of an upgrade (strace `inject=…:signal=INT`):
    /// before the switch the run undoes and exits 130 or 143 with its line; once it can no
    /// longer stop it finishes, exits 0 and says it was interrupted too late. It once
    /// exited 0 and said nothing, as if the signal had been ignored.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"), arguments: ["INT", "TERM"])
    func aSignalAtEveryRenameIsAnsweredOrSaid(_ signal: String) throws {
        let template = CLIHarness()
        #expect(try template.run(["deploy"] + template.seedFlags(1)).status == 0)
        let (clean, lines) = try SyscallKillMatrix.traced(try template.clone(), ["deploy"] + template.seedFlags(2))
        #expect(clean.status == 0, "\(clean.stderr)")
        func renames(_ lines: [String]) -> Int {
            lines.filter { line in ["rename(", "renameat(", "renameat2("].contains { line.drop { $0.isNumber || $0 == " " }.hasPrefix($0) } }.count
        }
        #expect(renames(lines) > 2, "\(lines)")
        let interrupted = signal == "INT" ? SIGINT : SIGTERM
        var (undone, finished) = (0, 0)
        for when in 1...renames(lines) {
            let cli = try template.clone()
            let (result, trace) = try SyscallKillMatrix.traced(cli, ["deploy"] + cli.seedFlags(2), kill: ("rename", when), signal: signal)
            // (strace counts each of the three calls apart: a number past the run's own
            // renames of one kind sends nothing.)
            guard trace.contains(where: { $0.contains("--- SIG\(signal) ") }) else { continue }
            switch result.status {
            case 128 + interrupted:
                undone += 1
                #expect(result.stderr == "seeddb: error: interrupted; nothing was changed\n" && cli.recorded().version == "1", "rename #\(when): \(result.stderr)")
            case 0:
                finished += 1
                #expect(result.stderr.contains("interrupted (SIG\(signal)) once the run could no longer stop: it finished, and what it did is recorded"), "rename #\(when): \(result.stderr)")
                #expect(cli.recorded().version == "2", "rename #\(when)")
            default:
                Issue.record("rename #\(when): exit \(result.status): \(result.stderr)")
            }
            #expect(cli.settingsEntry()?["interrupted"] == nil, "rename #\(when)")
        }
        #expect(undone > 0 && finished > 0, "undone \(undone), finished \(finished)")
    }
}
