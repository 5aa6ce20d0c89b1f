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
            differs), missing (recorded, but the working copy is gone). A version deployed from \
            a signed manifest shows its key id and serial. With trusted keys, a manifest a \
            deploy would refuse is reported with a warning. Changes nothing.

            Example:
              seeddb status --manifest Seeds/v2/seeds.json --json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var trust: TrustOptions

        func run() throws {
            var settingsFile = ""
            let (statuses, failure) = seeds.each(system, trust: trust, { (deployer, seed) throws(SeedDBError) in
                settingsFile = deployer.paths(for: seed).settingsFile
                // A report, not a gate: what a deploy would refuse is a warning here.
                do throws(SeedDBError) {
                    _ = try deployer.checkSignature(seed)
                } catch {
                    Terminal.logger.warning("\(error.message)")
                }
                return try deployer.status(seed)
            })
            for problem in Set(statuses.compactMap(\.settingsProblem)) {
                Terminal.logger.warning("\(problem.warning(in: settingsFile))")
            }
            Printer(output).statuses(statuses, failure: failure)
            try failure?.exit()
        }
    }

    /// `seeddb conflicts`: what the last merge of each seed could not settle silently.
    struct Conflicts: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conflicts",
            abstract: "List the conflicts of each seed's last merge of the user's changes.",
            discussion: """
            A merge (a seed with "merge" in its manifest, or --merge) keeps its conflicts in \
            <name>.conflicts.json beside the working copy until the next merge (a rollback \
            that does not merge removes it): the table, the row's key, the column (none for \
            a whole row), the base, user and seed values, and which side was kept (none \
            after a refused "fail" merge). Says "no merge has run" when there is none. \
            Changes nothing.

            Example:
              seeddb conflicts --manifest Seeds/v2/seeds.json --json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (lists, failure) = seeds.each(system, { (deployer, seed) throws(SeedDBError) in
                (name: seed.name, conflicts: try deployer.hasMerged(seed) ? try deployer.conflicts(seed) : nil)
            })
            Printer(output).conflicts(lists, failure: failure)
            try failure?.exit()
        }
    }

    /// `seeddb verify`: integrity checks of the seeds and working copies.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run PRAGMA integrity_check on each seed and its working copy.",
            discussion: """
            Prints one line per seed with the first problem found (all of them with \
            --verbose, or in --json as lists). When keys are trusted (--trusted-key, or \
            /etc/seeddb/keys/<app> with --system), also checks the manifest's signature and \
            the seed's SHA-256 against it. Exits 65 when a seed or working copy is \
            damaged, 66 when a working copy recorded as deployed is missing. A working copy \
            never deployed (nothing recorded) is reported as "not deployed" and is not a \
            failure. Changes nothing.

            Example:
              seeddb verify --manifest Seeds/v2/seeds.json
            """)

        @OptionGroup var seeds: SeedOptions
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        @OptionGroup var trust: TrustOptions

        @Flag(name: .long, help: "List every problem found, not just the first.")
        var verbose = false

        func run() throws {
            let (reports, stopped) = seeds.each(system, trust: trust, { (deployer, seed) throws(SeedDBError) in try deployer.verify(seed) })
            let failure = stopped ?? reports.lazy.compactMap { report in
                report.failure.map { SeedFailure(seed: report.name, error: $0) }
            }.first
            Printer(output).verifyReports(reports, verbose: verbose, failure: failure)
            try failure?.exit()
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
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (paths, failure) = seeds.each(system, { (deployer, seed) throws(SeedDBError) in (seed, deployer.paths(for: seed)) })
            Printer(output).paths(paths, failure: failure)
            try failure?.exit()
        }
    }
}
