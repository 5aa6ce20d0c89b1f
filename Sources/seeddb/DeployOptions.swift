import ArgumentParser
import SeedDB

/// The options of `deploy` and `reseed`, and the work they share.
struct DeployOptions: ParsableArguments {
    @OptionGroup var seeds: SeedOptions
    @OptionGroup var system: SystemOptions
    @OptionGroup var ownership: OwnershipOptions
    @OptionGroup var replace: ReplaceOptions

    @Option(name: .long, help: ArgumentHelp("Keep the replaced copy as the previous generation, for rollback.", valueName: "true|false"))
    var keepPrevious = true

    @OptionGroup var wait: WaitOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var trust: TrustOptions

    @Flag(name: .long, help: "Deploy a signed manifest whose serial is lower than the one deployed.")
    var allowDowngrade = false

    @Flag(name: .long, help: "Say what would be done, and change nothing.")
    var dryRun = false

    /// Runs the library for each seed (a reseed when `force`) and prints the reports: with
    /// several seeds, those done before a failure, then the failure.
    func run(force: Bool) throws {
        Interruption.install()
        let progress = ProgressBar.forTerminal(output)
        var configuration = DeployConfiguration(system, ownership: ownership, wait: wait, replace: replace)
        configuration.keepPrevious = keepPrevious
        configuration.progress = progress?.callback
        configuration.allowDowngrade = allowDowngrade
        if let progress { configuration.stepStarted = progress.stepStarted(then: configuration.stepStarted) }
        let (reports, failure) = seeds.each(system, configuration: configuration, trust: trust, { (deployer, seed) throws(SeedDBError) in
            if dryRun { return try deployer.plan(seed, force: force) }
            return force ? try deployer.reseed(seed) : try deployer.deploy(seed)
        })
        progress?.finish()
        Printer(output).deployReports(reports, dryRun: dryRun, failure: failure)
        try failure?.exit()
    }
}
