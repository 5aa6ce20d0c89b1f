/// A working copy recorded for an app whose manifest no longer lists it: a seed file
/// renamed (its working copy takes the new name) or dropped. SeedDB never removes one on
/// its own, since it may hold the user's writes; `seeddb purge --orphans` does, when asked.
public struct OrphanSeed: Hashable, Sendable {
    /// The working copy's file name, as recorded.
    public var name: SeedName
    /// Where the working copy lives.
    public var location: SeedLocation

    /// Creates an orphan.
    public init(name: SeedName, location: SeedLocation) {
        self.name = name
        self.location = location
    }

    /// The working copies in `recorded` whose names `listed` does not hold, by name. A
    /// name listed for the other location is not an orphan: deploying it is refused as a
    /// location conflict, and purging it there would lose what the manifest still names.
    ///
    /// - Parameters:
    ///   - recorded: The working copies the app's settings record, with their locations.
    ///   - listed: The names of the seeds the manifest lists.
    public static func find(recorded: [SeedName: SeedLocation], listed: [SeedName]) -> [OrphanSeed] {
        let kept = Set(listed)
        return recorded.filter { !kept.contains($0.key) }.map { OrphanSeed(name: $0.key, location: $0.value) }.sorted { $0.name < $1.name }
    }
}
