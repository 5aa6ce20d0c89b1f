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
    eachItem(fromManifest: fromManifest, prepare, name: \.name, each)
}

/// ``eachSeed(fromManifest:_:_:)`` for items that are not whole seeds (`purge`'s app
/// and names).
func eachItem<Item, Report>(
    fromManifest: Bool = false,
    _ prepare: () throws(SeedDBError) -> (Deployer, [Item]),
    name: (Item) -> SeedName,
    _ each: (Deployer, Item) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    let deployer: Deployer
    let items: [Item]
    do {
        (deployer, items) = try prepare()
    } catch {
        return ([], SeedFailure(seed: nil, error: error, fromManifest: fromManifest))
    }
    var reports: [Report] = []
    for item in items {
        do {
            reports.append(try each(deployer, item))
        } catch {
            return (reports, SeedFailure(seed: name(item), error: error, fromManifest: fromManifest))
        }
    }
    return (reports, nil)
}
