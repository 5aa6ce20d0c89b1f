import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb deploy`: the idempotent install-hook and startup command.
    struct Deploy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deploy",
            abstract: "Deploy each seed whose working copy is missing or outdated.",
            discussion: """
            Does nothing (and costs almost nothing) when the recorded version matches and the \
            working copy exists. Otherwise copies the seed next to the working copy, checks \
            it, swaps it in atomically and records the new version.

            Example:
              seeddb deploy --app com.example.levels --seed /usr/share/levels/levels.sqlite --version 2
              seeddb deploy --manifest /usr/share/levels/seeds.json --json
            """)

        @OptionGroup var options: DeployOptions

        func run() throws {
            try options.run(force: false)
        }
    }

    /// `seeddb rollback`: restore the previous generation.
    struct Rollback: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rollback",
            abstract: "Restore the working copy the last replace kept, and record its version.",
            discussion: """
            Each replace keeps the old working copy as one previous generation (unless \
            --keep-previous false). Rollback swaps it back in atomically (or live, while the \
            database is in use) and consumes it. Exits 66 when there is none.

            Example:
              seeddb rollback --manifest /usr/share/levels/seeds.json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var system: SystemOptions
        @OptionGroup var replace: ReplaceOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be done, and change nothing.")
        var dryRun = false

        func run() throws {
            let (reports, failure) = seeds.each(system, configuration: replace.applied(to: wait.configuration), { (deployer, seed) throws(SeedDBError) in
                try dryRun ? deployer.planRollback(seed) : deployer.rollback(seed)
            })
            Printer(output).deployReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }

    /// `seeddb maintain`: periodic VACUUM or PRAGMA optimize.
    struct Maintain: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "maintain",
            abstract: "VACUUM (or PRAGMA optimize) each working copy when the last run is old enough.",
            discussion: """
            Records the time of the last run in the settings store and skips the work until \
            --every DAYS have passed (0 runs it now). Waits while the database is in use, \
            then exits 75.

            Example:
              seeddb maintain --manifest /usr/share/levels/seeds.json --every 7
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var system: SystemOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be done, and change nothing.")
        var dryRun = false

        // No declared default: swift-argument-parser would print it a second time, as 7.0.
        @Option(name: .long, help: ArgumentHelp("Run only when the last run is at least this many days old (default 7; 0 runs now).", valueName: "days"))
        var every: Double?

        @Option(name: .long, help: ArgumentHelp("vacuum (rebuild the file) or optimize (refresh planner statistics).", valueName: "vacuum|optimize"))
        var policy: MaintenancePolicy = .vacuum

        func validate() throws {
            if let every, !(every.isFinite && every >= 0 && every <= 36_500) {
                throw ValidationError("--every must be a number of days from 0 to 36500")
            }
        }

        func run() throws {
            let interval = Duration.seconds((every ?? 7) * 86_400)
            let (reports, failure) = seeds.each(system, configuration: wait.configuration, { (deployer, seed) throws(SeedDBError) in try deployer.maintain(seed, every: interval, policy: policy, dryRun: dryRun) })
            Printer(output).maintenanceReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }

    /// `seeddb reseed`: a forced redeploy, by hand.
    struct Reseed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseed",
            abstract: "Replace each working copy with its seed, whatever the versions say.",
            discussion: """
            Runs the same safe steps as deploy. The working copy's current content is replaced.

            Example:
              seeddb reseed --app com.example.levels --seed /usr/share/levels/levels.sqlite --version 2
            """)

        @OptionGroup var options: DeployOptions

        func run() throws {
            try options.run(force: true)
        }
    }
}

/// The options of `deploy` and `reseed`, and the work they share.
struct DeployOptions: ParsableArguments {
    @OptionGroup var seeds: SeedOptions
    @OptionGroup var system: SystemOptions
    @OptionGroup var replace: ReplaceOptions
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
        let progress = ProgressBar.forTerminal(output)
        var configuration = replace.applied(to: wait.configuration)
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
        warnAboutOrphans()
    }

    /// After a deploy from a manifest, one warning naming what the app's settings record
    /// that the manifest no longer lists, and the command that removes it. Flags describe
    /// one seed and say nothing about the others; a failure to look is no failure of the deploy.
    private func warnAboutOrphans() {
        guard let path = seeds.manifestOptions.manifest, let manifest = try? seeds.manifestOptions.loadManifest(),
              let orphans = try? system.deployer().orphans(of: manifest), !orphans.isEmpty else { return }
        let names = orphans.map { "\($0.name) (\($0.location.rawValue))" }.joined(separator: ", ")
        let locations = (system.system ? " --system" : "") + (system.root.map { " --root \($0)" } ?? "")
        Terminal.printLabelled("warning", "\(manifest.app) records working copies its manifest no longer lists: \(names); `seeddb purge --orphans --manifest \(path)\(locations)` removes them")
    }
}
