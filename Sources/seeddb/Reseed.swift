import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb reseed`: a forced redeploy, by hand.
    struct Reseed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseed",
            abstract: "Replace each working copy with its seed, whatever the versions say.",
            discussion: """
            Runs the same safe steps as deploy. The working copy's current content is replaced. \
            A manifest's seeds are reseeded as one release: all of them or none.

            Example:
              seeddb reseed --app com.example.levels --seed levels.sqlite --version 2
            """)

        @OptionGroup var options: DeployOptions

        func run() throws {
            try options.run(force: true)
        }
    }
}
