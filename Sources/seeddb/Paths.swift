import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb paths`: where everything lives.
    struct Paths: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "Show the settings file and each seed's source and working-copy path.",
            discussion: """
            Resolves $XDG_DATA_HOME, $XDG_CACHE_HOME and $XDG_CONFIG_HOME as the XDG Base \
            Directory spec says (unset, empty or relative values fall back to ~/.local/share, \
            ~/.cache and ~/.config). Changes nothing.

            Example:
              seeddb paths --app com.example.levels --seed levels.sqlite --version 1 --json
            """)

        @OptionGroup var seeds: SeedFileSelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (paths, failure) = seeds.each(system, { (deployer, seed) throws(SeedDBError) in (seed, deployer.paths(for: seed)) })
            Printer(output).paths(paths, failure: failure)
            try failure?.exit()
        }
    }
}
