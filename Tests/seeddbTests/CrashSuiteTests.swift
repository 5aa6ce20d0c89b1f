import Foundation
import SeedDB
import Testing

/// Issue 6, crash suite: `deploy` and `reseed` killed with SIGKILL after every named step
/// and at random times; after each kill the working copy is the complete old or new
/// database, the settings are valid with the app's keys, the recorded version is what the
/// file holds, and the next deploy finishes the job and leaves no temporary files.
@Suite(.serialized) struct CrashSuiteTests {
    let cli = CLIHarness()

    /// A small deterministic generator, so a failing trial can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func killedDeploysNeverLoseOrMixData() throws {
        let seeds = ["A": try cli.makeSeed("a.sqlite", marker: "A", megabytes: 16),
                     "B": try cli.makeSeed("b.sqlite", marker: "B", megabytes: 16)]
        func flags(_ marker: String) -> [String] {
            ["--app", cli.app, "--seed", seeds[marker]!, "--name", "levels.sqlite", "--version", marker]
        }
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)

        var random = SplitMix(state: 20_261_121)
        let steps = DeployStep.allCases
        let trials = 200
        var killed = 0
        var lost = 0
        var current = "A"
        for trial in 0..<trials {
            let target = current == "A" ? "B" : "A"
            let command = trial % 5 == 4 ? "reseed" : "deploy"
            let result: CLIHarness.Result
            if trial < steps.count * 12 {
                // Every named step, twelve times over.
                result = try cli.run([command] + flags(target), environment: ["SEEDDB_TEST_KILL_AFTER": steps[trial % steps.count].rawValue])
            } else {
                // A random moment of the run.
                let started = try cli.start([command] + flags(target))
                usleep(UInt32.random(in: 0...120_000, using: &random))
                kill(started.0.processIdentifier, SIGKILL)
                result = cli.finish(started)
            }
            if result.killedBy == SIGKILL { killed += 1 }

            // The state a crash left.
            let failure = check(after: "trial \(trial) (\(command) to \(target), status \(result.status))", expecting: [current, target])
            if let failure {
                lost += 1
                Issue.record(Comment(rawValue: failure))
            }

            // The next run finishes the job.
            let recovery = try cli.run(["deploy"] + flags(target))
            #expect(recovery.status == 0, "trial \(trial): recovery failed: \(recovery.stderr)")
            if cli.generation(of: cli.workingCopy) == .generation(target),
               cli.recorded().version == target, cli.temporaryFiles.isEmpty {
                current = target
            } else {
                lost += 1
                Issue.record("trial \(trial): the next deploy did not finish the job: \(cli.generation(of: cli.workingCopy)), recorded \(String(describing: cli.recorded().version)), temporary files \(cli.temporaryFiles)")
                break
            }
        }
        #expect(killed >= trials / 2, "most trials must really be killed mid-run (\(killed))")
        ReliabilityLog.record(suite: "crash", trials: trials, crashes: killed, dataLost: lost)
    }

    /// The invariants after a crash; `nil` when they hold.
    private func check(after trial: String, expecting allowed: [String]) -> String? {
        guard case .generation(let marker) = cli.generation(of: cli.workingCopy) else {
            return "\(trial): the working copy is not a complete database: \(cli.generation(of: cli.workingCopy))"
        }
        guard allowed.contains(marker) else { return "\(trial): unexpected content \(marker)" }
        let (version, intact) = cli.recorded()
        guard intact else { return "\(trial): the settings file lost the app's keys or is not JSON" }
        if let version, version != marker {
            return "\(trial): recorded version \(version) but the file holds \(marker)"
        }
        return nil
    }
}
