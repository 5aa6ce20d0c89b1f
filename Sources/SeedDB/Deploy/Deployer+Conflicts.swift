import SeedDBCore

extension Deployer {
    /// Whether a merge has run for `seed`'s working copy, so that ``conflicts(_:)`` lists
    /// its conflicts: a merge writes `<name>.conflicts.json` (an empty list when it met
    /// none), and a rollback that does not merge removes it with the merge it rolled back.
    ///
    /// - Throws: ``SeedDBError`` when the directory cannot be read.
    public func hasMerged(_ seed: Seed) throws(SeedDBError) -> Bool {
        try FileSystem.fileType(at: paths(for: seed).conflictsFile) != nil
    }
}
