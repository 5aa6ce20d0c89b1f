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
    /// Whether the table of the content merged into is not its seed's but the app's: a
    /// rollback restores a generation that holds the tables the app had made by then.
    public var seedTableIsTheApps: Bool
    /// Whether the user's copy of the table is proven unchanged since the copy's deploy
    /// (its digest is the one recorded then): nothing in it is the user's.
    public var userLeftAlone = false

    /// Creates the facts of one table.
    public init(name: String, base: Kind?, user: Kind?, seed: Kind?, hasPrimaryKey: Bool, seedIsEmpty: Bool, seedTableIsTheApps: Bool = false) {
        self.name = name
        self.base = base
        self.user = user
        self.seed = seed
        self.hasPrimaryKey = hasPrimaryKey
        self.seedIsEmpty = seedIsEmpty
        self.seedTableIsTheApps = seedTableIsTheApps
    }
}
