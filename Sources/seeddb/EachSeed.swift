import SeedDB

/// Prepares a deployer and the seeds, then runs `each` on the seeds in order until one
/// fails: the reports of the seeds done, and the failure if there was one. The command
/// prints both (with `--json`, in one object), then exits with the failure's status.
///
/// - Parameter fromManifest: The seeds come from a manifest.
func eachSeed<Report>(
    fromManifest: Bool = false,
    _ prepare: () throws(SeedDBError) -> (Deployer, [Seed]),
    _ each: (Deployer, Seed) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    let deployer: Deployer
    let seeds: [Seed]
    do {
        (deployer, seeds) = try prepare()
    } catch {
        return ([], SeedFailure(seed: nil, error: error, fromManifest: fromManifest))
    }
    var reports: [Report] = []
    for seed in seeds {
        do {
            reports.append(try each(deployer, seed))
        } catch {
            return (reports, SeedFailure(seed: seed.name, error: error, fromManifest: fromManifest))
        }
    }
    return (reports, nil)
}
