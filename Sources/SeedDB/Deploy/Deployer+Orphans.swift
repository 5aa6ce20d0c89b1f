import SeedDBCore

extension Deployer {
    /// The working copies recorded for `manifest`'s app that the manifest no longer lists
    /// (a seed file renamed or dropped), by name; what ``OrphanSeed/find(recorded:listed:)``
    /// decides from the app's settings store. Reads the settings once, changing nothing.
    /// An entry written before locations were recorded counts as the location whose
    /// working copy exists (data when neither does). Remove them with
    /// ``purge(app:name:location:dryRun:onlyAdopted:)``.
    ///
    /// - Throws: ``SeedDBError`` when the settings file cannot be read.
    public func orphans(of manifest: Manifest) throws(SeedDBError) -> [OrphanSeed] {
        let store = SettingsStore(path: directories.settingsFile(of: manifest.app), logger: logger, policy: configuration.files)
        var recorded: [SeedName: SeedLocation] = [:]
        for (text, entry) in try store.snapshot().entries {
            guard let name = try? SeedName(text) else { continue }
            if let location = entry.location {
                recorded[name] = location
            } else {
                recorded[name] = try location(ofUnlocated: name, app: manifest.app)
            }
        }
        return OrphanSeed.find(recorded: recorded, listed: manifest.seeds.map(\.name))
    }

    /// The location of working copy `name` of `app` recorded without one: where its
    /// working copy exists, data first.
    private func location(ofUnlocated name: SeedName, app: AppIdentifier) throws(SeedDBError) -> SeedLocation {
        let inCache = try WorkingCopy.inspect(SeedPaths(app: app, name: name, location: .cache, directories: directories)).exists
        let inData = try WorkingCopy.inspect(SeedPaths(app: app, name: name, location: .data, directories: directories)).exists
        return inCache && !inData ? .cache : .data
    }
}
