/// One conflict met by a three-way merge: the user and the new seed both changed the same
/// cell (or row) differently.
///
/// This is what `seeddb conflicts` lists; ``json`` is its JSON shape.
public struct MergeConflict: Sendable, Hashable {
    /// Which side the merge kept.
    public enum Kept: String, Sendable, Hashable, CaseIterable {
        /// The user's value (or deletion) was kept.
        case user
        /// The seed's value (or deletion) was kept.
        case seed
        /// Nothing was kept: the policy was `fail` and the merge was refused.
        case none
    }

    /// One side of a conflict.
    public enum Side: Sendable, Hashable {
        /// The side has no such row.
        case absent
        /// The side has no such column (or, in a merge without a base, there is no base):
        /// the conflict's JSON leaves the side out rather than show a `null` nobody wrote.
        case noColumn
        /// The cell's value (a cell conflict).
        case value(MergeValue)
        /// The whole row, column by column (a row conflict): only the columns the side has.
        case row([MergeField])

        /// JSON: a value, an object of column to value, `null` when the row is absent;
        /// `nil` when the side is left out (``noColumn``).
        public var json: String? {
            switch self {
            case .absent: return "null"
            case .noColumn: return nil
            case .value(let value): return value.json
            case .row(let fields): return MergeConflict.object(fields)
            }
        }
    }

    /// The table.
    public var table: String
    /// The row's primary key, column by column, in key order.
    public var key: [MergeField]
    /// The column of a cell conflict, `nil` for a row conflict (insert against insert,
    /// delete against change).
    public var column: String?
    /// The previous seed's side.
    public var base: Side
    /// The user's side (the working copy).
    public var user: Side
    /// The new seed's side.
    public var seed: Side
    /// Which side the merge kept.
    public var kept: Kept

    /// Creates a conflict.
    public init(table: String, key: [MergeField], column: String?, base: Side, user: Side, seed: Side, kept: Kept) {
        self.table = table
        self.key = key
        self.column = column
        self.base = base
        self.user = user
        self.seed = seed
        self.kept = kept
    }

    /// The conflict as one JSON object:
    /// `{"table":…,"key":{"<pk column>":value},"column":… or null,"base":…,"user":…,"seed":…,"kept":"user"|"seed"|"none"}`;
    /// a side without the conflict's column is left out.
    public var json: String {
        let sides = [("base", base), ("user", user), ("seed", seed)].compactMap { name, side in side.json.map { "\"\(name)\":\($0)," } }
        return "{\"table\":\(MergeJSON.string(table)),\"key\":\(MergeConflict.object(key)),\"column\":\(column.map(MergeJSON.string) ?? "null"),"
            + sides.joined() + "\"kept\":\"\(kept.rawValue)\"}"
    }

    /// A one-line rendering for messages: `table "t", key [id=3], column "name"`.
    public var location: String {
        "table \(NameRules.quoted(table)), key \(MergeConflict.keyText(key))" + (column.map { ", column \(NameRules.quoted($0))" } ?? " (whole row)")
    }

    /// A row's key as every message and `seeddb conflicts` write it: its columns in name
    /// order, each value as JSON, `[tag="weather",word_id=100]`.
    public static func keyText(_ key: [MergeField]) -> String {
        "[" + key.sorted { $0.column < $1.column }.map { "\($0.column)=\($0.value.json)" }.joined(separator: ",") + "]"
    }

    /// `conflicts` as one JSON array of ``json`` objects, in the order given: what a merge
    /// writes to the conflicts file, and what `seeddb conflicts --json` lists for a seed.
    public static func jsonArray(_ conflicts: [MergeConflict]) -> String {
        "[" + conflicts.map(\.json).joined(separator: ",") + "]"
    }

    /// The whole `seeddb conflicts --json` document:
    /// `{"seeds":[{"name":"…","conflicts":[…]}]}`, seeds in the order given.
    ///
    /// - Parameter seeds: Each seed's name (its working copy's name) and the conflicts of its
    ///   last merge attempt.
    public static func document(seeds: [(name: String, conflicts: [MergeConflict])]) -> String {
        let entries = seeds.map { seed in
            "{\"name\":\(MergeJSON.string(seed.name)),\"conflicts\":\(jsonArray(seed.conflicts))}"
        }
        return "{\"seeds\":[\(entries.joined(separator: ","))]}"
    }

    static func object(_ fields: [MergeField]) -> String {
        "{" + fields.map { "\(MergeJSON.string($0.column)):\($0.value.json)" }.joined(separator: ",") + "}"
    }
}

extension MergeConflict.Kept: CustomStringConvertible {
    /// What was kept, in the words `seeddb conflicts` prints: `kept the user's`, `kept the
    /// seed's`, or `nothing kept: the merge was refused`.
    public var description: String {
        switch self {
        case .user: "kept the user's"
        case .seed: "kept the seed's"
        case .none: "nothing kept: the merge was refused"
        }
    }
}
