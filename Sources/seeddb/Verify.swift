import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb verify`: integrity checks of the seeds and working copies.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run PRAGMA integrity_check on each seed and its working copy.",
            discussion: """
            Prints one line per seed with the first problem found (all of them with \
            --verbose, or in --json as lists). When keys are trusted (--trusted-key, or \
            /etc/seeddb/keys/<app> with --system) or the record pins one, also checks the \
            manifest's signature and the seed's SHA-256 against it: what a deploy would \
            refuse is a warning, "refusal" in --json, and exit 65. A read-only seed the app's user \
            could write (or replace through a directory on its path) is refused so too, with exit 73. \
            Exits 65 when a seed or working copy is damaged, 66 when a seed file is not there or a working copy recorded as deployed is missing. A working copy \
            never deployed (nothing recorded) is reported as "not deployed" and is not a \
            failure. Changes nothing.

            Example:
              seeddb verify --manifest Seeds/v2/seeds.json
            """)

        @OptionGroup var seeds: SeedFileSelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        @OptionGroup var trust: TrustOptions

        @Flag(name: .long, help: "List every problem found, not just the first.")
        var verbose = false

        func run() throws {
            let (reports, stopped) = seeds.each(system, trust: trust, { (deployer, seed) throws(SeedDBError) in try deployer.verify(seed) })
            for report in reports {
                if let refusal = report.refusal { Terminal.logger.warning("\(SeedFailure(seed: report.name, error: refusal).message)") }
            }
            let failed = reports.first { $0.failure != nil }
            let failure = stopped ?? failed.flatMap { report in report.failure.map { SeedFailure(seed: report.name, error: $0) } }
            Printer(output).verifyReports(reports, verbose: verbose, failure: failure)
            guard let failure else { return }
            // A refusal (a report's first failure) was said once, as its warning above: its
            // exit status alone.
            if stopped == nil, failed?.refusal != nil { throw ExitCode(failure.status) }
            try failure.exit()
        }
    }
}
