/// The pure per-table decision of a three-way merge.
public enum MergeTablePlan {
    /// Decides what happens to one table.
    ///
    /// - A table only the user has (the app created it) is carried whole; with no base, so
    ///   is every table the new seed lacks.
    /// - A table the app created on both sides (not in the base) is carried when the seed's
    ///   table is empty, else merged with an empty base when it has a primary key.
    /// - With no base, a table with a primary key is merged without one (a row only the
    ///   user's copy has stays, cells that differ are conflicts); a seed table that is
    ///   empty takes the user's rows, so an app table created by a migration keeps them.
    /// - Tables with no primary key, virtual and shadow tables, `sqlite_*` tables, and a
    ///   seed table the user dropped: the seed's version stands, with a warning unless the
    ///   table's policy is `off`.
    ///
    /// - Parameters:
    ///   - facts: The table across the three databases.
    ///   - policy: The table's policy.
    ///   - hasBase: Whether a merge base is available.
    public static func action(for facts: MergeTableFacts, policy: MergePolicy, hasBase: Bool) -> MergeTableAction {
        guard let user = facts.user else {
            // A seed table the user dropped (the base has it): the new seed's stands, and,
            // when the table merges, it is named among those whose changes were replaced.
            let dropped = hasBase && facts.base == .ordinary && facts.seed == .ordinary && !facts.seedTableIsTheApps && policy != .off
            return .seedStands(warn: dropped)
        }
        // The app's table in both copies (a rollback's restored one is from its time):
        // the user's version is the app's latest, carried whole, never merged.
        if facts.seedTableIsTheApps, user == .ordinary || user == .virtual { return .carry }
        // Only the old seed's rows: the new seed's table (or its absence) stands.
        if facts.userLeftAlone, user == .ordinary { return facts.seed == nil ? .dropped : .seedStands(warn: false) }
        guard let seed = facts.seed else {
            if user == .shadow || user == .system { return .seedStands(warn: false) }
            return hasBase && facts.base != nil ? .dropped : .carry
        }
        let mergeable = user == .ordinary && seed == .ordinary
        if !mergeable {
            // A virtual table's shadow tables go with it: name the virtual table only.
            let named = user != .shadow && seed != .shadow
            return .seedStands(warn: named && policy != .off && hasBase)
        }
        if !hasBase || facts.base == nil {
            // No base (merging turned on in a later release, a lost base, a table new in
            // this seed): merged without one, so nothing the user's copy holds is lost.
            if facts.seedIsEmpty { return .carry }
            return facts.hasPrimaryKey && policy != .off ? .merge(withBase: false) : .seedStands(warn: policy != .off)
        }
        guard policy != .off else { return .seedStands(warn: false) }
        return facts.hasPrimaryKey ? .merge(withBase: true) : .seedStands(warn: true)
    }
}
