/// The merge policy of one seed: a default and per-table overrides.
///
/// Mirrors the manifest's `"merge"` and `"mergeTables"` keys. Table names match the way
/// SQLite matches them: ASCII letters compare without regard to case.
public struct MergePolicies: Sendable, Hashable {
    /// The policy of every table not named in ``tables``. Default: ``MergePolicy/off``
    /// here; a ``Seed`` given no policies takes ``standard(for:)``.
    public var `default`: MergePolicy
    /// Per-table policies, by table name. Default: empty.
    public var tables: [String: MergePolicy]

    /// Creates a set of policies.
    ///
    /// - Parameters:
    ///   - default: The policy of tables not named in `tables`.
    ///   - tables: Per-table overrides.
    public init(default: MergePolicy = .off, tables: [String: MergePolicy] = [:]) {
        self.default = `default`
        self.tables = tables
    }

    /// The policy that applies to `table`.
    public func policy(for table: String) -> MergePolicy {
        explicitPolicy(for: table) ?? self.default
    }

    /// The policy named for `table` in ``tables``, if any: an exact match first, then a
    /// case-insensitive one (the first in name order, so the answer is deterministic).
    public func explicitPolicy(for table: String) -> MergePolicy? {
        if let policy = tables[table] { return policy }
        let folded = MergeNames.folded(table)
        return tables.keys.sorted().first { MergeNames.folded($0) == folded }.flatMap { tables[$0] }
    }

    /// Whether any table could be merged: the default or some table is not `off`.
    public var mergesAnything: Bool {
        self.default != .off || tables.values.contains { $0 != .off }
    }

    /// Whether some table is not merged (`off`): a replace puts the seed's rows in place of
    /// the user's changes to it.
    public var replacesAnything: Bool {
        self.default == .off || tables.values.contains(.off)
    }

    /// The policies a seed has when none are given: ``MergePolicy/userWins`` for the
    /// `data` location (the user builds on that data: nothing the user wrote is lost),
    /// ``MergePolicy/off`` for `cache` (its content can be regenerated).
    public static func standard(for location: SeedLocation) -> MergePolicies {
        MergePolicies(default: location == .data ? .userWins : .off)
    }
}
