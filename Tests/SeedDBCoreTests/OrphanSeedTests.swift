import SeedDBCore
import Testing

/// What is an orphan: a recorded working copy whose name the manifest no longer lists.
@Suite struct OrphanSeedTests {
    @Test func anOrphanIsARecordedNameTheManifestNoLongerLists() throws {
        let (levels, old, tiles) = (try SeedName("levels.sqlite"), try SeedName("old.sqlite"), try SeedName("tiles.sqlite"))
        let recorded: [SeedName: SeedLocation] = [levels: .data, tiles: .cache, old: .data]
        #expect(OrphanSeed.find(recorded: recorded, listed: [levels]) == [OrphanSeed(name: old, location: .data), OrphanSeed(name: tiles, location: .cache)])
        #expect(OrphanSeed.find(recorded: recorded, listed: [levels, old, tiles]).isEmpty)
        #expect(OrphanSeed.find(recorded: [:], listed: [levels]).isEmpty)
        // A name listed for the other location is the manifest's still (a location conflict, not an orphan).
        #expect(OrphanSeed.find(recorded: [tiles: .cache], listed: [tiles]).isEmpty)
    }
}
