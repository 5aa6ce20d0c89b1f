import Foundation
import Testing

/// Real processes racing each other.
@Suite(.serialized) struct ConcurrentRunsTests {
    let cli = CLIHarness()

    @Test func sixteenConcurrentDeploysCopyOnce() throws {
        let seed = try cli.makeSeed("big.sqlite", marker: "A", megabytes: 16)
        let flags = ["--json", "--app", cli.app, "--seed", seed, "--name", "levels.sqlite", "--version", "1", "--wait", "60"]
        let started = try (0..<16).map { _ in try cli.start(["deploy"] + flags) }
        let results = started.map { cli.finish($0) }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let actions = try results.map { try $0.seeds().first?["action"] as? String ?? "?" }
        #expect(actions.filter { $0 == "installed" }.count == 1)
        #expect(actions.filter { $0 == "unchanged" }.count == 15)
        #expect(cli.generation(of: cli.workingCopy) == .generation("A"))
        #expect(cli.temporaryFiles.isEmpty)
        ReliabilityLog.record(suite: "concurrent deploys", trials: 16, dataLost: actions.filter { $0 == "installed" }.count == 1 ? 0 : 1)
    }

    @Test(arguments: ["delete", "wal"])
    func readersNeverSeeErrorsOrMixesWhileReseedsRun(journalMode: String) throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let stopReaders = try cli.startReaders(8, journalMode: journalMode)
        var failures = 0
        for round in 0..<20 {
            let result = try cli.run(["reseed", "--wait", "30"] + cli.seedFlags(round % 2 == 0 ? 2 : 1))
            if result.status != 0 { failures += 1 }
            #expect(result.status == 0, "reseed \(round): \(result.stderr)")
        }
        for (status, text) in stopReaders() {
            if status != 0 { failures += 1 }
            #expect(status == 0, "reader: \(text)")
            #expect(text.hasPrefix("OK"), "reader: \(text)")
        }
        ReliabilityLog.record(suite: "readers during reseeds (\(journalMode))", trials: 20, dataLost: failures)
    }
}
