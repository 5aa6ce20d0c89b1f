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
    /// Tables the user's copy has that could not be merged (no primary key, virtual,
    /// `sqlite_*`): the new seed's version stands. The merge warned about them once.
    public var unmergedTables: [String]

    /// Creates a result.
    public init(summary: MergeSummary = MergeSummary(), conflicts: [MergeConflict] = [], mergedTables: [String] = [],
                carriedTables: [String] = [], unmergedTables: [String] = []) {
        self.summary = summary
        self.conflicts = conflicts
        self.mergedTables = mergedTables
        self.carriedTables = carriedTables
        self.unmergedTables = unmergedTables
    }

    /// The conflicts as a JSON array of ``MergeConflict/json`` objects.
    public var conflictsJSON: String {
        "[" + conflicts.map(\.json).joined(separator: ",") + "]"
    }
}

/// Why a merge under the `fail` policy was refused: the conflicts it met, each with `kept`
/// `none`. Carried as the ``SeedDBError/underlying`` error of the `invalidSeed` error the
/// merge throws, so the caller can still write the conflicts file.
public struct MergeFailure: Error, Sendable, CustomStringConvertible {
    /// Every conflict met, in the order of ``MergeResult/conflicts``; the first is the one
    /// the error names.
    public var conflicts: [MergeConflict]
    /// The counts as they would have been.
    public var summary: MergeSummary

    /// Creates a failure.
    public init(conflicts: [MergeConflict], summary: MergeSummary) {
        self.conflicts = conflicts
        self.summary = summary
    }

    /// `N merge conflicts`.
    public var description: String { "\(conflicts.count) merge conflict\(conflicts.count == 1 ? "" : "s")" }
}
