import Foundation
import Testing

/// The harness's hang report: a run still going after its time is reported with what it
/// was doing, then ended, so a hang seen once in CI can be explained from the log alone.
@Suite struct HungRunIsReportedTests {
    let cli = CLIHarness()

    @Test func aHungRunIsEndedAndSaysWhereItWas() throws {
        // A deploy that stopped itself (SIGSTOP) after staging: hung, as far as anyone
        // waiting for it can tell.
        let started = try cli.start(["deploy"] + cli.seedFlags(1), environment: ["SEEDDB_TEST_STOP_AFTER": "stage"])
        try #require(started.waitUntilStopped())
        let result = cli.finish(started, timeout: 1)
        #expect(result.status == -1)
        #expect(result.stderr.contains("[hang] pid \(started.processIdentifier) not done after 1 s, state T;"), "\(result.stderr)")
        #expect(result.stderr.contains("is held by \(started.processIdentifier) (\(CLIHarness.binary) deploy"), "\(result.stderr)")
        #expect(result.stderr.contains("do_signal_stop"), "\(result.stderr)")
        if CLIHarness.backtracer != nil {
            // The Swift runtime's backtrace of the stopped run: it stopped in the step
            // observer, inside the executor.
            #expect(result.stderr.contains("Signal 3: Backtracing"), "\(result.stderr)")
            #expect(result.stderr.contains("DeployExecutor"), "\(result.stderr)")
        }
        // Ended right after its backtrace, before it could finish the deploy.
        #expect(result.killedBy == SIGKILL)
        #expect(!result.stdout.contains("installed"), "\(result.stdout)")
    }
}
