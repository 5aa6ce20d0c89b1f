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
}
