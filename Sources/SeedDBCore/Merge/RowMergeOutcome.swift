/// What ``RowMerge/resolve(base:user:seed:policy:)`` decided for one row.
public struct RowMergeOutcome: Sendable, Hashable {
    /// The row the merged copy holds.
    public enum Row: Sendable, Hashable {
        /// The seed's row stands as it is (or stays absent when the seed has none).
        case seed
        /// No row: the merge deletes the seed's row, if any.
        case absent
        /// A row made of these cells, each from the user or the seed, in column order.
        case cells([MergeSource])
    }

    /// Which of the user's changes the merged copy keeps (see ``MergeSummary``).
    public enum Effect: Sendable, Hashable {
        /// The user's inserted row is in the result.
        case inserted
        /// Some of the user's changed cells are in the result.
        case updated
        /// The user's deletion is in the result.
        case deleted
    }

    /// One conflict of the row.
    public struct Conflict: Sendable, Hashable {
        /// The column's index for a cell conflict, `nil` for a row conflict.
        public var column: Int?
        /// Which side the policy kept.
        public var kept: MergeConflict.Kept

        /// Creates a conflict.
        public init(column: Int?, kept: MergeConflict.Kept) {
            self.column = column
            self.kept = kept
        }
    }

    /// The row the merged copy holds.
    public var row: Row
    /// Which of the user's changes it keeps, if any.
    public var effect: Effect?
    /// The conflicts, in column order (at most one row conflict).
    public var conflicts: [Conflict]

    /// Creates an outcome.
    public init(row: Row, effect: Effect? = nil, conflicts: [Conflict] = []) {
        self.row = row
        self.effect = effect
        self.conflicts = conflicts
    }

    /// The merged row's values given the user's and the seed's rows: `nil` when the result
    /// has no row.
    public func values(user: [MergeValue]?, seed: [MergeValue]?) -> [MergeValue]? {
        switch row {
        case .seed: return seed
        case .absent: return nil
        case .cells(let sources):
            return sources.indices.map { sources[$0] == .user ? user![$0] : seed![$0] }
        }
    }
}
