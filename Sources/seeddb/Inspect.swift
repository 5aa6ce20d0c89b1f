import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb status`: what is recorded and what is on disk, per seed.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show each seed's current and recorded version and its working copy's state.",
            discussion: """
            States: up-to-date, not-installed (nothing recorded), outdated (the recorded version \
            differs), missing (recorded, but the working copy is gone). Changes nothing.

            Example:
              seeddb status --manifest Seeds/v2/seeds.json --json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var location: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try reportingErrors { () throws(SeedDBError) in
                let deployer = try location.deployer()
                let statuses = try seeds.seeds().map { (seed) throws(SeedDBError) in try deployer.status(seed) }
                for problem in Set(statuses.compactMap(\.settingsProblem)) {
                    Terminal.logger.warning("\(problem); the next deploy will set it aside")
                }
                Printer(output).statuses(statuses)
            }
        }
    }

    /// `seeddb verify`: integrity checks of the seeds and working copies.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run PRAGMA integrity_check on each seed and its working copy.",
            discussion: """
            Exits 65 when either fails. A working copy that is not deployed yet is reported as \
            "not deployed" and is not a failure. Changes nothing.

            Example:
              seeddb verify --manifest Seeds/v2/seeds.json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var location: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try reportingErrors { () throws(SeedDBError) in
                let deployer = try location.deployer()
                let reports = try seeds.seeds().map { (seed) throws(SeedDBError) in try deployer.verify(seed) }
                Printer(output).verifyReports(reports)
                if let failed = reports.first(where: { !$0.passed }) {
                    throw SeedDBError(.corruptWorkingCopy, "integrity check failed for \(failed.name): seed: \(failed.seed); working copy: \(failed.workingCopy)")
                }
            }
        }
    }

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

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var location: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try reportingErrors { () throws(SeedDBError) in
                let deployer = try location.deployer()
                let seeds = try seeds.seeds()
                Printer(output).paths(seeds.map { ($0, deployer.paths(for: $0)) })
            }
        }
    }
}
