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
            it, swaps it in atomically and records the new version. A manifest is one \
            release: every seed with work is staged and checked before any is installed, and \
            if one fails, no seed is changed.

            Example:
              seeddb deploy --app com.example.levels --seed levels.sqlite --version 2
              seeddb deploy --manifest /usr/share/levels/seeds.json --json
            """)

        @OptionGroup var options: DeployOptions

        func validate() throws {
            if options.seeds.manifestOptions.manifest != nil, options.seeds.carry.merge != nil {
                // The manifest sets each seed's policy; `reseed --merge` is one reseed's own.
                throw ValidationError("--manifest cannot be combined with --merge")
            }
        }

        func run() throws {
            try options.run(force: false)
        }
    }
}
