import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb deploy`: the idempotent install-hook and startup command.
    struct Deploy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deploy each seed whose working copy is missing or outdated.",
            discussion: """
            Does nothing (and costs almost nothing) when the recorded version matches and the \
            working copy exists. Otherwise copies the seed next to the working copy, checks \
            it, swaps it in atomically and records the new version.

            Example:
              seeddb deploy --app com.example.levels --seed /usr/share/levels/levels.sqlite --version 2
              seeddb deploy --manifest /usr/share/levels/seeds.json --json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be done, and change nothing.")
        var dryRun = false

        func run() throws {
            try runDeploy(seeds: seeds, wait: wait, output: output, dryRun: dryRun, force: false)
        }
    }

    /// `seeddb reseed`: a forced redeploy, by hand.
    struct Reseed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace each working copy with its seed, whatever the versions say.",
            discussion: """
            Runs the same safe steps as deploy. The working copy's current content is replaced.

            Example:
              seeddb reseed --app com.example.levels --seed /usr/share/levels/levels.sqlite --version 2
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be done, and change nothing.")
        var dryRun = false

        func run() throws {
            try runDeploy(seeds: seeds, wait: wait, output: output, dryRun: dryRun, force: true)
        }
    }
}

/// Shared by `deploy` and `reseed`: runs the library for each seed and prints the reports.
private func runDeploy(seeds: SeedOptions, wait: WaitOptions, output: OutputOptions, dryRun: Bool, force: Bool) throws {
    try reportingErrors { () throws(SeedDBError) in
        var configuration = DeployConfiguration()
        configuration.wait = .milliseconds(Int64(wait.wait * 1000))
        configuration.stepObserver = FaultInjection.observerFromEnvironment()
        let deployer = try Deployer(configuration: configuration, logger: Terminal.logger)
        var reports: [DeployReport] = []
        for seed in try seeds.seeds() {
            if dryRun {
                reports.append(try deployer.plan(seed, force: force))
            } else {
                reports.append(force ? try deployer.reseed(seed) : try deployer.deploy(seed))
            }
        }
        Printer(output).deployReports(reports, dryRun: dryRun)
    }
}
