import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb reseed`: a forced redeploy, by hand.
    struct Reseed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseed",
            abstract: "Replace each working copy with its seed, whatever the versions say.",
            discussion: """
            Runs the same safe steps as deploy, and follows the seed's merge policy as a deploy \
            does: with user-wins (the default for data), what the user wrote is merged into the \
            fresh seed. --merge sets the policy of this reseed alone (beside --manifest too, \
            for the seeds it copies; refused when they are all read-only): --merge off puts \
            the seed's own rows back and names the tables whose changes it replaced; the old \
            copy is kept as the previous generation. A manifest's seeds are reseeded as one \
            release: all of them or none.

            Example:
              seeddb reseed --app com.example.levels --seed levels.sqlite --version 2
              seeddb reseed --manifest /usr/share/levels/seeds.json --merge off
            """)

        @OptionGroup var options: DeployOptions

        func run() throws {
            // `--merge` beside a manifest whose seeds are all read-only (links, no copy for
            // it to apply to) is refused by the library's release: `invalidArgument`, 64.
            try options.run(force: true)
        }
    }
}
