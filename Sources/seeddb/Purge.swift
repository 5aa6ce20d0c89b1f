import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb purge`: removes everything SeedDB keeps for an app's seeds.
    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Remove working copies, their sidecars, previous generations, locks and settings.",
            discussion: """
            For a package's postrm purge, when the seeds themselves are already gone: give the \
            app and the working-copy names (or a manifest, if it still exists). The settings file \
            is removed once it holds nothing else, and the app's directories once they are empty. \
            Every working copy is checked, then locked, before anything is removed: when one is \
            refused (a directory at its path or at <name>.conflicts.json), in use, or locked by \
            another run past --wait (exit 75), nothing is removed (a working copy in WAL mode \
            locked before it is left in rollback-journal mode). With --orphans, purges instead \
            the working copies recorded for the manifest's app that \
            the manifest no longer lists (a renamed seed file), and leaves its seeds alone.

            Example:
              seeddb purge --system --app com.example.levels --name levels.sqlite
              seeddb purge --orphans --manifest /usr/share/levels/seeds.json --dry-run
            """)

        @OptionGroup var manifestOptions: ManifestOptions

        @Option(name: .long, help: ArgumentHelp("A working-copy file name to purge (repeatable).", valueName: "file"), transform: { (text) throws(SeedDBError) in try SeedName(text) })
        var name: [SeedName] = []

        @Option(name: .long, help: ArgumentHelp("Where the working copies live: data (the default) or cache.", valueName: "data|cache"))
        var location: SeedLocation?

        @OptionGroup var system: SystemOptions
        @OptionGroup var ownership: OwnershipOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be removed, and remove nothing.")
        var dryRun = false

        @Flag(name: .long, help: "Purge what is recorded for the manifest's app but no longer in it (with --manifest).")
        var orphans = false

        @Flag(name: .long, help: "Remove only the adopted copies (databases SeedDB found with no record and kept), nothing else.")
        var adopted = false

        func validate() throws {
            if orphans, manifestOptions.manifest == nil {
                throw ValidationError("--orphans goes with --manifest FILE")
            }
            if orphans, adopted {
                throw ValidationError("--adopted cannot be combined with --orphans")
            }
            if manifestOptions.manifest != nil {
                let extra = [("--app", manifestOptions.app != nil), ("--location", location != nil), ("--name", !name.isEmpty)].filter(\.1).map(\.0)
                guard extra.isEmpty else { throw ValidationError("--manifest cannot be combined with \(extra.joined(separator: ", "))") }
                return
            }
            guard manifestOptions.app != nil, !name.isEmpty else {
                throw ValidationError(WorkingCopySelection.missingWorkingCopy(app: manifestOptions.app != nil, name: !name.isEmpty))
            }
        }

        /// What to purge: the manifest's seeds (loaded once) or, with `--orphans`, what its
        /// app records that it no longer lists; or the names given for the app (the library
        /// purges a name given twice once).
        private func targets(_ deployer: Deployer) throws(SeedDBError) -> [PurgeTarget] {
            if let manifest = try manifestOptions.loadManifest() {
                if orphans { return try deployer.orphans(of: manifest).map { PurgeTarget(app: manifest.app, name: $0.name, location: $0.location) } }
                return manifest.seeds.map { PurgeTarget(app: $0.app, name: $0.name, location: $0.location) }
            }
            guard let app = manifestOptions.app else { return [] }
            return name.map { PurgeTarget(app: app, name: $0, location: location ?? .data) }
        }

        /// Every target purged as one (``Deployer/purge(_:dryRun:onlyAdopted:)``: all or
        /// none): the reports, and the failure, or the one met before the first target.
        private func purged() -> (reports: [PurgeReport], failure: SeedFailure?) {
            do throws(SeedDBError) {
                let deployer = try system.deployer(DeployConfiguration(system, ownership: ownership, wait: wait))
                let outcome = deployer.purge(try targets(deployer), dryRun: dryRun, onlyAdopted: adopted)
                return (outcome.reports, outcome.failure.map { SeedFailure(seed: $0.name, error: $0.error) })
            } catch {
                return ([], SeedFailure(seed: nil, error: error))
            }
        }

        func run() throws {
            Interruption.stopAtTheNextStep()
            let (reports, failure) = purged()
            Printer(output).purgeReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }
}
