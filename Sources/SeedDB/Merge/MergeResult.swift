import SeedDBCore

/// What a three-way merge did to the staged copy.
public struct MergeResult: Sendable {
    /// The counts of the deploy report's `"merge"` entry.
    public var summary: MergeSummary
    /// Every conflict met, table by table in name order, rows in primary-key order, cells
    /// in column order: what `seeddb conflicts` lists.
    public var conflicts: [MergeConflict]
    /// Tables merged row by row, in name order.
    public var mergedTables: [String]
    /// Tables copied whole from the working copy (tables the app created), in name order.
    public var carriedTables: [String]
    /// Rows copied with ``carriedTables`` (not counted in ``summary``).
    public var carriedRows: Int
    /// Tables the user changed that could not be merged (no primary key, virtual,
    /// `sqlite_*`), in name order: the new seed's version stands. Without a base, which
    /// changed is not known, and every such table is named. The merge warned about them
    /// once.
    public var unmergedTables: [String]

    /// Creates a result.
    public init(summary: MergeSummary = MergeSummary(), conflicts: [MergeConflict] = [], mergedTables: [String] = [],
                carriedTables: [String] = [], carriedRows: Int = 0, unmergedTables: [String] = []) {
        self.summary = summary
        self.conflicts = conflicts
        self.mergedTables = mergedTables
        self.carriedTables = carriedTables
        self.carriedRows = carriedRows
        self.unmergedTables = unmergedTables
    }

    /// The conflicts as a JSON array of ``MergeConflict/json`` objects.
    public var conflictsJSON: String {
        MergeConflict.jsonArray(conflicts)
    }
}
