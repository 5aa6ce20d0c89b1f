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
            differs), missing (recorded, but the working copy is gone), held (rolled back: \
            deploy leaves it at the version it restored until the app ships another version, \
            or reseed). A version deployed from a signed manifest shows its key id and serial, \
            and the key it pins. A manifest a deploy would refuse for its signature, a read-only \
            seed the app's user could write, or a directory at <name>.conflicts.json where the \
            deploy would merge, is reported with a warning (and "refusal" in --json); the exit \
            status stays 0. Changes nothing.

            Example:
              seeddb status --manifest Seeds/v2/seeds.json --json
            """)

        @OptionGroup var seeds: SeedFileSelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var trust: TrustOptions

        func run() throws {
            var settingsFile = ""
            let (statuses, failure) = seeds.each(system, trust: trust, { (deployer, seed) throws(SeedDBError) in
                settingsFile = deployer.paths(for: seed).settingsFile
                return try deployer.status(seed)
            })
            // A report, not a gate: what a deploy would refuse is a warning here.
            for status in statuses {
                if let refusal = status.refusal { Terminal.logger.warning("\(SeedFailure(seed: status.name, error: refusal).message)") }
            }
            for problem in Set(statuses.compactMap(\.settingsProblem)) {
                Terminal.logger.warning("\(problem.warning(in: settingsFile))")
            }
            Printer(output).statuses(statuses, failure: failure)
            try failure?.exit()
        }
    }
}
