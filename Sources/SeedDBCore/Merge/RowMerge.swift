/// The three-way decision for one row: the previous seed (base), the working copy (user)
/// and the new seed, matched by primary key, cell by cell.
///
/// The rows are arrays of the same columns in the same order (the merged table's
/// columns); a side without the row passes `nil`. The decision follows the table of the
/// docs/merge.md, "Keeping the user's changes":
///
/// | base | user | new seed | result |
/// |---|---|---|---|
/// | none | inserted | none | the user's row |
/// | none | inserted | inserted, same | that row |
/// | none | inserted | inserted, different | row conflict |
/// | row | unchanged | anything | the seed's |
/// | row | deleted | unchanged or deleted | deleted |
/// | row | deleted | changed | row conflict (user-wins deletes, seed-wins keeps the seed's) |
/// | row | cell changed | cell unchanged | the user's cell, the seed's others |
/// | row | cell changed | same value | that value |
/// | row | cell changed | changed differently | cell conflict |
/// | row | changed | deleted | row conflict (user-wins keeps the user's row, seed-wins deletes) |
///
/// Under ``MergePolicy/off`` the seed's row always stands. Under ``MergePolicy/fail`` a
/// conflict is reported with `kept` `none` and the seed's row stands (the caller refuses
/// the merge).
public enum RowMerge {
    /// Decides one row.
    ///
    /// - Parameters:
    ///   - base: The row in the previous seed, or `nil`.
    ///   - user: The row in the working copy, or `nil`.
    ///   - seed: The row in the new seed, or `nil`.
    ///   - policy: The table's merge policy.
    /// - Returns: Which row the merged copy holds, which of the user's changes it applied,
    ///   and the conflicts, in column order.
    public static func resolve(base: [MergeValue]?, user: [MergeValue]?, seed: [MergeValue]?, policy: MergePolicy) -> RowMergeOutcome {
        guard policy != .off else { return RowMergeOutcome(row: .seed) }
        let kept = policy.keptSide
        switch (base, user, seed) {
        case (_, nil, nil):
            // Absent from the user's copy and from the seed: nothing to write.
            return RowMergeOutcome(row: .seed, effect: base == nil ? nil : .deleted)
        case (nil, nil, _):
            // Only the seed has it: the seed's row.
            return RowMergeOutcome(row: .seed)
        case (nil, let user?, nil):
            return RowMergeOutcome(row: .cells(Array(repeating: .user, count: user.count)), effect: .inserted)
        case (nil, let user?, let seed?):
            if user == seed { return RowMergeOutcome(row: .seed, effect: .inserted) }
            let conflict = RowMergeOutcome.Conflict(column: nil, kept: kept)
            return kept == .user
                ? RowMergeOutcome(row: .cells(Array(repeating: .user, count: user.count)), effect: .inserted, conflicts: [conflict])
                : RowMergeOutcome(row: .seed, conflicts: [conflict])
        case (let base?, nil, let seed?):
            if seed == base { return RowMergeOutcome(row: .absent, effect: .deleted) }
            let conflict = RowMergeOutcome.Conflict(column: nil, kept: kept)
            return kept == .user
                ? RowMergeOutcome(row: .absent, effect: .deleted, conflicts: [conflict])
                : RowMergeOutcome(row: .seed, conflicts: [conflict])
        case (let base?, let user?, nil):
            if user == base { return RowMergeOutcome(row: .seed) }
            let conflict = RowMergeOutcome.Conflict(column: nil, kept: kept)
            return kept == .user
                ? RowMergeOutcome(row: .cells(Array(repeating: .user, count: user.count)), effect: .updated, conflicts: [conflict])
                : RowMergeOutcome(row: .seed, conflicts: [conflict])
        case (let base?, let user?, let seed?):
            return resolveCells(base: base, user: user, seed: seed, kept: kept)
        }
    }

    /// Decides one row when there is no merge base (merging turned on in a later release,
    /// a base that was lost): nothing tells what the user changed, so nothing the user's
    /// copy holds is lost.
    ///
    /// | user | new seed | result |
    /// |---|---|---|
    /// | none | row or none | the seed's |
    /// | row | none | the user's row (a row conflict under ``MergePolicy/fail``) |
    /// | row | row | equal cells stand; each cell that differs is a conflict the policy resolves |
    ///
    /// A column only the user's copy has (the app added it) is the user's: its value is
    /// taken without a conflict.
    ///
    /// - Parameters:
    ///   - user: The row in the working copy, or `nil`.
    ///   - seed: The row in the new seed, or `nil`.
    ///   - policy: The table's merge policy.
    ///   - appColumns: The indices of the columns the app added.
    public static func resolveWithoutBase(user: [MergeValue]?, seed: [MergeValue]?, policy: MergePolicy, appColumns: Set<Int> = []) -> RowMergeOutcome {
        guard policy != .off, let user else { return RowMergeOutcome(row: .seed) }
        let kept = policy.keptSide
        guard let seed else {
            // The user inserted it, or the seed dropped it: no base tells which, so it stays.
            if kept == .none { return RowMergeOutcome(row: .seed, conflicts: [RowMergeOutcome.Conflict(column: nil, kept: kept)]) }
            return RowMergeOutcome(row: .cells(Array(repeating: .user, count: user.count)), effect: .inserted)
        }
        var sources: [MergeSource] = []
        var conflicts: [RowMergeOutcome.Conflict] = []
        for index in seed.indices {
            if user[index] == seed[index] {
                sources.append(.seed)
            } else if appColumns.contains(index) {
                sources.append(.user)
            } else {
                conflicts.append(RowMergeOutcome.Conflict(column: index, kept: kept))
                sources.append(kept == .user ? .user : .seed)
            }
        }
        let applied = sources.contains(.user)
        return RowMergeOutcome(row: applied ? .cells(sources) : .seed, effect: applied ? .updated : nil, conflicts: conflicts)
    }

    private static func resolveCells(base: [MergeValue], user: [MergeValue], seed: [MergeValue], kept: MergeConflict.Kept) -> RowMergeOutcome {
        var sources: [MergeSource] = []
        sources.reserveCapacity(seed.count)
        var conflicts: [RowMergeOutcome.Conflict] = []
        var applied = false
        for index in seed.indices {
            guard user[index] != base[index] else {
                sources.append(.seed)
                continue
            }
            if seed[index] == base[index] {
                sources.append(.user)
                applied = true
            } else if seed[index] == user[index] {
                sources.append(.seed)
                applied = true
            } else {
                conflicts.append(RowMergeOutcome.Conflict(column: index, kept: kept))
                sources.append(kept == .user ? .user : .seed)
                applied = applied || kept == .user
            }
        }
        let row: RowMergeOutcome.Row = sources.contains(.user) ? .cells(sources) : .seed
        return RowMergeOutcome(row: row, effect: applied ? .updated : nil, conflicts: conflicts)
    }
}
