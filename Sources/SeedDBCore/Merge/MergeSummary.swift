/// The counts a merge reports in the deploy's JSON entry,
/// `"merge": {"inserted": N, "updated": N, "deleted": N, "conflicts": N}`.
///
/// Each count is about the user's changes as they end up in the merged copy, so a row can
/// be counted both as a conflict and as applied (a `user-wins` conflict):
/// - ``inserted``: rows the user inserted that are in the result with the user's values;
/// - ``updated``: rows the user changed that keep at least one of the user's changed cells;
/// - ``deleted``: rows the user deleted that are absent from the result;
/// - ``conflicts``: conflicts of either kind (cell or row), one per reported conflict.
public struct MergeSummary: Sendable, Hashable {
    /// User-inserted rows in the result.
    public var inserted: Int
    /// User-changed rows whose changes (some or all) are in the result.
    public var updated: Int
    /// User deletions applied.
    public var deleted: Int
    /// Conflicts, cell or row.
    public var conflicts: Int
    /// Whether the merge had no base (merging turned on in a later release, a base that
    /// was lost): a row only the user's copy has stays, a cell that differs from the new
    /// seed is a conflict.
    public var withoutBase = false

    /// Creates a summary.
    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0, conflicts: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.conflicts = conflicts
    }

    /// Counts one row's outcome.
    public mutating func add(_ outcome: RowMergeOutcome) {
        switch outcome.effect {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .deleted: deleted += 1
        case nil: break
        }
        conflicts += outcome.conflicts.count
    }

    /// The sum of two summaries.
    public static func + (lhs: MergeSummary, rhs: MergeSummary) -> MergeSummary {
        var sum = MergeSummary(inserted: lhs.inserted + rhs.inserted, updated: lhs.updated + rhs.updated,
                               deleted: lhs.deleted + rhs.deleted, conflicts: lhs.conflicts + rhs.conflicts)
        sum.withoutBase = lhs.withoutBase || rhs.withoutBase
        return sum
    }

    /// `{"inserted":N,"updated":N,"deleted":N,"conflicts":N}`, with `"withoutBase":true`
    /// after a merge without a base.
    public var json: String {
        "{\"inserted\":\(inserted),\"updated\":\(updated),\"deleted\":\(deleted),\"conflicts\":\(conflicts)"
            + (withoutBase ? ",\"withoutBase\":true}" : "}")
    }
}
