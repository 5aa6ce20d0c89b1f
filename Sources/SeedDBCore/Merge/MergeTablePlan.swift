/// What a merge knows about one table name across the three databases, gathered from
/// their schemas before any row is read.
public struct MergeTableFacts: Sendable, Hashable {
    /// What kind of table a name is in one database.
    public enum Kind: Sendable, Hashable {
        /// An ordinary table (with or without rowid).
        case ordinary
        /// A virtual table (FTS5, R*Tree, …).
        case virtual
        /// A shadow table holding a virtual table's data.
        case shadow
        /// An `sqlite_*` table (`sqlite_sequence`, `sqlite_stat1`, …).
        case system
    }

    /// The table's name.
    public var name: String
    /// Its kind in the previous seed, `nil` when absent there (or when there is no base).
    public var base: Kind?
    /// Its kind in the working copy, `nil` when absent there.
    public var user: Kind?
    /// Its kind in the new seed, `nil` when absent there.
    public var seed: Kind?
    /// Whether the table declares a primary key, the same columns on every side that has it.
    public var hasPrimaryKey: Bool
    /// Whether the new seed's table holds no row (a table the app's migration just created).
    public var seedIsEmpty: Bool

    /// Creates the facts of one table.
    public init(name: String, base: Kind?, user: Kind?, seed: Kind?, hasPrimaryKey: Bool, seedIsEmpty: Bool) {
        self.name = name
        self.base = base
        self.user = user
        self.seed = seed
        self.hasPrimaryKey = hasPrimaryKey
        self.seedIsEmpty = seedIsEmpty
    }
}

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
    /// The new seed dropped a table of the previous seed: the user's rows in it go.
    case dropped
}

/// The pure per-table decision of a three-way merge.
public enum MergeTablePlan {
    /// Decides what happens to one table.
    ///
    /// - A table only the user has (the app created it) is carried whole; with no base, so
    ///   is every table the new seed lacks.
    /// - A table the app created on both sides (not in the base) is carried when the seed's
    ///   table is empty, else merged with an empty base when it has a primary key.
    /// - With no base, the seed's rows stand everywhere else (a seed table that is empty
    ///   takes the user's rows, so an app table created by a migration keeps them).
    /// - Tables with no primary key, virtual and shadow tables, `sqlite_*` tables: the
    ///   seed's version stands, with a warning unless the table's policy is `off`.
    ///
    /// - Parameters:
    ///   - facts: The table across the three databases.
    ///   - policy: The table's policy.
    ///   - hasBase: Whether a merge base is available.
    public static func action(for facts: MergeTableFacts, policy: MergePolicy, hasBase: Bool) -> MergeTableAction {
        guard let user = facts.user else { return .seedStands(warn: false) }
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
            if facts.seedIsEmpty { return .carry }
            if !hasBase { return .seedStands(warn: false) }
            return facts.hasPrimaryKey && policy != .off ? .merge(withBase: false) : .seedStands(warn: policy != .off)
        }
        guard policy != .off else { return .seedStands(warn: false) }
        return facts.hasPrimaryKey ? .merge(withBase: true) : .seedStands(warn: true)
    }
}
