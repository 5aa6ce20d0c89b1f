import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb rollback`: restore the previous generation.
    struct Rollback: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rollback",
            abstract: "Restore the working copy the last replace kept, and record its version.",
            discussion: """
            Each replace keeps the old working copy as one previous generation (unless \
            deploy --keep-previous false). Rollback swaps it back in atomically (or live, \
            while the database is in use) and consumes it; exits 66 when there is none (from \
            a manifest, a seed already rolled back from the version it ships is held). What \
            the user wrote since is carried into the restored copy: the app's own tables, the \
            --preserve tables and, with --merge, the user's edits. The version rolled back \
            from is then held: deploy leaves the copy alone until the app ships another \
            version, or reseed. Needs only the app and the working copy's name.

            Example:
              seeddb rollback --app com.example.levels --name levels.sqlite
              seeddb rollback --manifest /usr/share/levels/seeds.json
            """)

        @OptionGroup var seeds: RollbackSelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var ownership: OwnershipOptions
        @OptionGroup var replace: ReplaceOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be done, and change nothing.")
        var dryRun = false

        func run() throws {
            Interruption.stopAtTheNextStep()
            let configuration = DeployConfiguration(system, ownership: ownership, wait: wait, replace: replace)
            let (reports, failure) = seeds.each(system, configuration: configuration, { (deployer, seed) throws(SeedDBError) in
                try dryRun ? deployer.planRollback(seed) : deployer.rollback(seed)
            })
            Printer(output).deployReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }
}
