/// What a merge does with one table.
public enum MergeTableAction: Sendable, Hashable {
    /// Merge row by row, matched by primary key; `withBase` is false for a table the app
    /// created on both sides (every row of either side counts as inserted).
    case merge(withBase: Bool)
    /// Copy the user's table whole into the merged copy (created there when missing).
    case carry
    /// Leave the seed's version; `warn` when it is a table the user's copy also has but that
    /// cannot be merged (no primary key, virtual, `sqlite_*`).
    case seedStands(warn: Bool)
    /// The new seed dropped a table of the previous seed: the user's rows in it go (with a
    /// base, which tells whether the user edited it; without one, only a table the user
    /// left alone, ``MergeTableFacts/userLeftAlone``).
    case dropped
}
