import ArgumentParser
import SeedDB

extension SeedDBCommand {
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
            after a refused "fail" merge). Says "no merge has run" when there is none. A \
            damaged file is an error that names it (exit 65); a directory there is one that \
            says to move it away (exit 73, as a merging deploy refuses it). Changes nothing.

            Example:
              seeddb conflicts --manifest Seeds/v2/seeds.json --json
              seeddb conflicts --app com.example.levels --name levels.sqlite
            """)

        @OptionGroup var seeds: WorkingCopySelection
        @OptionGroup var system: SystemOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (lists, failure) = seeds.each(system, { (deployer, seed) throws(SeedDBError) in
                (name: seed.name, conflicts: try deployer.hasMerged(seed) ? try deployer.conflictList(seed) : nil)
            })
            Printer(output).conflicts(lists, failure: failure)
            try failure?.exit()
        }
    }
}
