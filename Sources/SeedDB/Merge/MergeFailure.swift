import SeedDBCore

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
