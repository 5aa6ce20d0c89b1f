import ArgumentParser
import SeedDB

extension SeedDBCommand {
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
              seeddb maintain --app com.example.levels --name levels.sqlite --every 0
            """)

        @OptionGroup var seeds: WorkingCopySelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var ownership: OwnershipOptions
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
            Interruption.stopAtTheNextStep()
            let interval = Duration.seconds((every ?? 7) * 86_400)
            let configuration = DeployConfiguration(system, ownership: ownership, wait: wait)
            let (reports, failure) = seeds.each(system, configuration: configuration, { (deployer, seed) throws(SeedDBError) in try deployer.maintain(seed, every: interval, policy: policy, dryRun: dryRun) })
            Printer(output).maintenanceReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }
}
