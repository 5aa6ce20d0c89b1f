import ArgumentParser
import SeedDB

/// The options of `deploy` and `reseed`, and the work they share.
struct DeployOptions: ParsableArguments {
    @OptionGroup var seeds: SeedOptions
    @OptionGroup var system: SystemOptions
    @OptionGroup var ownership: OwnershipOptions
    @OptionGroup var replace: ReplaceOptions

    @Option(name: .long, help: ArgumentHelp("Keep the replaced copy as the previous generation, for rollback.", valueName: "true|false"))
    var keepPrevious = true

    @OptionGroup var wait: WaitOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var trust: TrustOptions

    @Flag(name: .long, help: "Deploy a signed manifest whose serial is lower than the one deployed.")
    var allowDowngrade = false

    @Flag(name: .long, help: "Leave signing on purpose: deploy what the pinned key did not sign (unsigned too), and forget the pin.")
    var forgetSignature = false

    @Flag(name: .long, help: "Say what would be done, and change nothing.")
    var dryRun = false

    /// Runs the library for each seed (a reseed when `force`) and prints the reports: with
    /// several seeds, those done before a failure, then the failure.
    func run(force: Bool) throws {
        Interruption.stopAtTheNextStep()
        let progress = ProgressBar.forTerminal(output)
        var configuration = DeployConfiguration(system, ownership: ownership, wait: wait, replace: replace)
        configuration.keepPrevious = keepPrevious
        configuration.progress = progress?.callback
        configuration.allowDowngrade = allowDowngrade
        configuration.forgetSignature = forgetSignature
        // A reseed's `--merge` and `--merge-table` are its own, not the seed's policy.
        let reseedSetsMerge = force && seeds.carry.setsMerge
        if reseedSetsMerge {
            let location = seeds.workingCopy.location ?? .data
            configuration.reseedMerge = seeds.manifestOptions.manifest != nil
                ? MergePolicies(default: seeds.carry.merge ?? .off) : seeds.carry.policies(for: location)
        }
        if let progress { configuration.stepStarted = progress.stepStarted(then: configuration.stepStarted) }
        let (reports, failure): ([DeployReport], SeedFailure?)
        if seeds.manifestOptions.manifest != nil {
            // A manifest is one release: all of its seeds or none.
            (reports, failure) = seeds.all(system, configuration: configuration, trust: trust) { deployer, seeds in
                let outcome = dryRun ? deployer.plan(release: seeds, force: force) : deployer.deploy(release: seeds, force: force)
                return (outcome.reports, outcome.failure.map { SeedFailure(seed: $0.seed, error: $0.error, fromManifest: true) })
            }
        } else {
            (reports, failure) = seeds.each(system, configuration: configuration, trust: trust, { (deployer, seed) throws(SeedDBError) in
                var seed = seed
                if reseedSetsMerge { seed.merge = .standard(for: seed.location) }
                if dryRun { return try deployer.plan(seed, force: force) }
                return force ? try deployer.reseed(seed) : try deployer.deploy(seed)
            })
        }
        progress?.finish()
        Printer(output).deployReports(reports, dryRun: dryRun, failure: failure)
        try failure?.exit()
        warnAboutOrphans()
    }

    /// After a deploy from a manifest, the warning about what it no longer lists.
    private func warnAboutOrphans() {
        guard let path = seeds.manifestOptions.manifest, let manifest = try? seeds.manifestOptions.loadManifest(),
              let deployer = try? system.deployer(DeployConfiguration(system)) else { return }
        OrphanWarning.print(for: manifest, at: path, deployer: deployer, system: system.system, root: system.root)
    }
}

/// After a deploy from a manifest, one warning naming what the app's settings record
/// that the manifest no longer lists, and the command that removes it. Flags describe one
/// seed and say nothing about the others; a failure to look is no failure of the deploy.
enum OrphanWarning {
    /// Prints the warning, if there are orphans.
    static func print(for manifest: Manifest, at path: String, deployer: Deployer, system: Bool, root: String?) {
        guard let orphans = try? deployer.orphans(of: manifest), !orphans.isEmpty else { return }
        let names = orphans.map { "\($0.name) (\($0.location.rawValue))" }.joined(separator: ", ")
        let locations = (system ? " --system" : "") + (root.map { " --root \($0)" } ?? "")
        Terminal.printLabelled("warning", "\(manifest.app) records working copies its manifest no longer lists: \(names); `seeddb purge --orphans --manifest \(path)\(locations)` removes them")
    }
}
