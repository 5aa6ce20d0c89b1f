import Foundation
import Testing

/// The harness's watchdog: a run that outlives its time is ended and reported with what
/// it was doing, so a hang seen once in CI can be explained from the log alone.
@Suite struct HungRunIsReportedTests {
    let cli = CLIHarness()

    @Test func aHungRunIsEndedAndSaysWhereItWas() throws {
        // A deploy that stops itself (SIGSTOP) after staging: hung, as far as anyone waiting can tell.
        let started = try cli.start(["deploy"] + cli.seedFlags(1), environment: ["SEEDDB_TEST_STOP_AFTER": "stage"])
        let result = cli.finish(started, timeout: 2)
        #expect(result.status == -1)
        #expect(result.stderr.contains("[watchdog] pid \(started.processIdentifier) still running after 2 s, State:\tT (stopped);"), "\(result.stderr)")
        #expect(result.stderr.contains("kernel stack:"), "\(result.stderr)")
        if CLIHarness.backtracer != nil {
            // The Swift runtime's backtrace of the stopped run: it stopped in the step observer.
            #expect(result.stderr.contains("Signal 3: Backtracing"), "\(result.stderr)")
            #expect(result.stderr.contains("DeployExecutor"), "\(result.stderr)")
        }
    }
}
