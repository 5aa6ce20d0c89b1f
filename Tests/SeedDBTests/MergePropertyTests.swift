import Foundation
import GRDB
import PropertyBased
@testable import SeedDB
import Testing

/// Random base/user/seed edit scripts on a table with an integer key and one with a
/// composite key (`WITHOUT ROWID`), merged on real files and compared with the pure row
/// decision.
@Suite struct MergePropertyTests {
    enum KeyKind: String, CaseIterable, Sendable {
        case integer
        case composite

        var create: String {
            switch self {
            case .integer: "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b);"
            case .composite: "CREATE TABLE t (k1 TEXT, k2 INTEGER, a, b, PRIMARY KEY (k1, k2)) WITHOUT ROWID;"
            }
        }

        /// The new seed's table with the columns reordered and one inserted in the middle.
        var createReordered: String {
            switch self {
            case .integer: "CREATE TABLE t (b, z DEFAULT 'z', a, id INTEGER PRIMARY KEY);"
            case .composite: "CREATE TABLE t (b, k2 INTEGER, z DEFAULT 'z', a, k1 TEXT, PRIMARY KEY (k1, k2)) WITHOUT ROWID;"
            }
        }

        var key: String { self == .integer ? "id" : "k1, k2" }

        func key(_ index: Int) -> [MergeValue] {
            switch self {
            case .integer: [.integer(Int64(index))]
            case .composite: [.text(index % 2 == 0 ? "x" : "y"), .integer(Int64(index / 2))]
            }
        }
    }

    /// Rows by key index: the key's values followed by `a` and `b`.
    typealias Table = [Int: [MergeValue]]

    static let keyCount = 6
    static let domain: [MergeValue] = [.null, .integer(0), .integer(1), .real(1), .text("1"), .text("a"), .text("A"), .blob([1])]
    static let codes = Gen.int(in: 0...99).array(of: keyCount * 3)

    static func base(_ kind: KeyKind, _ codes: [Int]) -> Table {
        var table: Table = [:]
        for index in 0..<keyCount where codes[2 * index] % 4 != 0 {
            table[index] = kind.key(index) + [domain[codes[2 * index] % 8], domain[codes[2 * index + 1] % 8]]
        }
        return table
    }

    /// Applies an edit script: per key, keep (most often), delete or insert, set `a`, `b` or both.
    static func edit(_ table: Table, _ kind: KeyKind, _ codes: [Int]) -> Table {
        var table = table
        for index in 0..<keyCount {
            let (op, x, y) = (codes[3 * index] % 8, domain[codes[3 * index + 1] % 8], domain[codes[3 * index + 2] % 8])
            let width = kind.key(index).count
            switch op {
            case 4:
                table[index] = table[index] == nil ? kind.key(index) + [x, y] : nil
            case 5, 6, 7:
                var row = table[index] ?? kind.key(index) + [.null, .null]
                if op != 6 { row[width] = x }
                if op != 5 { row[width + 1] = y }
                table[index] = row
            default:
                break
            }
        }
        return table
    }

    /// What the pure decision says, key by key.
    static func model(base: Table, user: Table, seed: Table, policy: MergePolicy) -> (table: Table, conflicts: Int, summary: MergeSummary) {
        var result: Table = [:]
        var summary = MergeSummary()
        for index in Set(base.keys).union(user.keys).union(seed.keys) {
            let outcome = RowMerge.resolve(base: base[index], user: user[index], seed: seed[index], policy: policy)
            summary.add(outcome)
            result[index] = outcome.values(user: user[index], seed: seed[index])
        }
        return (result, summary.conflicts, summary)
    }

    static func write(_ table: Table, create: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: create)
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(t)").map { $0["name"] as String }
            for index in table.keys.sorted() {
                let row = table[index]!
                let named = Dictionary(uniqueKeysWithValues: zip(columns.filter { $0 != "z" }.sortedByCanonicalOrder(), row))
                let present = columns.filter { $0 != "z" }
                // A seed with the inserted column `z` gives it a value of its own.
                let z = columns.contains("z") ? ", z" : ""
                try db.execute(sql: "INSERT INTO t (\(present.joined(separator: ", "))\(z)) VALUES (\(present.map { _ in "?" }.joined(separator: ", "))\(z.isEmpty ? "" : ", 'seed'"))",
                               arguments: StatementArguments(present.map { named[$0]!.databaseValue }))
            }
        }
        try queue.close()
    }

    static func read(_ kind: KeyKind, from path: String) throws -> [[MergeValue]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let columns = kind == .integer ? "id, a, b" : "k1, k2, a, b"
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(columns) FROM t ORDER BY \(kind.key)").map { row in (0..<row.count).map { MergeValue(row[$0] as DatabaseValue) } }
        }
    }

    /// The rows in the order SQLite sorts their keys: composite keys by `k1`, then `k2`.
    static func sorted(_ table: Table, _ kind: KeyKind) -> [[MergeValue]] {
        table.keys.sorted { order(kind)($0) < order(kind)($1) }.map { table[$0]! }
    }

    /// A key index's place in SQLite's key order.
    static func order(_ kind: KeyKind) -> (Int) -> (Int, Int) {
        { kind == .integer ? (0, $0) : ($0 % 2, $0 / 2) }
    }

    /// Sets up the three files and merges (`splitting`: see ``MergeFixture/merge(_:withBase:splitting:)``).
    static func merge(_ kind: KeyKind, base: Table, user: Table, seed: Table, policy: MergePolicy, seedCreate: String? = nil, splitting: Bool = false) throws -> (MergeFixture, MergeResult) {
        let fixture = try MergeFixture()
        try write(base, create: kind.create, to: fixture.base)
        try write(user, create: kind.create, to: fixture.user)
        try write(seed, create: seedCreate ?? kind.create, to: fixture.seed)
        return (fixture, try fixture.merge(MergePolicies(default: policy), splitting: splitting))
    }

    static func policy(_ codes: [Int]) -> MergePolicy { codes[0] % 2 == 0 ? .userWins : .seedWins }

    /// The integer key also with the user's changes searched in two halves of the keys on
    /// two connections (``MergeSecondReader``), split whatever the table's size.
    @Test(arguments: [(KeyKind.integer, false), (.composite, false), (.integer, true)])
    func theMergeIsThePureDecisionKeyByKey(_ kind: KeyKind, splitting: Bool) async {
        await propertyCheck(count: 40, input: Self.codes, Self.codes, Self.codes) { b, u, s in
            let base = Self.base(kind, b), policy = Self.policy(s)
            let user = Self.edit(base, kind, u), seed = Self.edit(base, kind, s)
            let (fixture, result) = try Self.merge(kind, base: base, user: user, seed: seed, policy: policy, splitting: splitting)
            let model = Self.model(base: base, user: user, seed: seed, policy: policy)
            #expect(try Self.read(kind, from: fixture.staged) == Self.sorted(model.table, kind))
            #expect(result.summary == model.summary)
            // Each conflict reported once.
            let places = result.conflicts.map { "\($0.key) \($0.column ?? "-")" }
            #expect(Set(places).count == places.count)
            #expect(result.conflicts.count == model.conflicts)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func withoutUserEditsTheResultIsTheNewSeed(_ kind: KeyKind) async {
        await propertyCheck(count: 30, input: Self.codes, Self.codes) { b, s in
            let base = Self.base(kind, b), seed = Self.edit(base, kind, s)
            let (fixture, result) = try Self.merge(kind, base: base, user: base, seed: seed, policy: Self.policy(s))
            #expect(try Self.read(kind, from: fixture.staged) == Self.read(kind, from: fixture.seed))
            #expect(result.conflicts.isEmpty)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func withoutSeedChangesTheResultIsTheWorkingCopy(_ kind: KeyKind) async {
        await propertyCheck(count: 30, input: Self.codes, Self.codes) { b, u in
            let base = Self.base(kind, b), user = Self.edit(base, kind, u)
            let (fixture, result) = try Self.merge(kind, base: base, user: user, seed: base, policy: Self.policy(u))
            #expect(try Self.read(kind, from: fixture.staged) == Self.read(kind, from: fixture.user))
            #expect(result.conflicts.isEmpty)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func everyCellComesFromTheUserOrTheSeed(_ kind: KeyKind) async {
        await propertyCheck(count: 30, input: Self.codes, Self.codes, Self.codes) { b, u, s in
            let base = Self.base(kind, b)
            let user = Self.edit(base, kind, u), seed = Self.edit(base, kind, s)
            let (fixture, _) = try Self.merge(kind, base: base, user: user, seed: seed, policy: Self.policy(u))
            let userRows = try Self.read(kind, from: fixture.user), seedRows = try Self.read(kind, from: fixture.seed)
            let width = kind.key(0).count
            for row in try Self.read(kind, from: fixture.staged) {
                let key = Array(row.prefix(width))
                let fromUser = userRows.first { Array($0.prefix(width)) == key }
                let fromSeed = seedRows.first { Array($0.prefix(width)) == key }
                #expect(fromUser != nil || fromSeed != nil)
                for column in width..<row.count {
                    #expect(row[column] == fromUser?[column] || row[column] == fromSeed?[column], "\(row) column \(column)")
                }
            }
        }
    }

    @Test(arguments: KeyKind.allCases)
    func mergingTwiceChangesNothing(_ kind: KeyKind) async {
        await propertyCheck(count: 30, input: Self.codes, Self.codes, Self.codes) { b, u, s in
            let base = Self.base(kind, b), policy = Self.policy(s)
            let user = Self.edit(base, kind, u), seed = Self.edit(base, kind, s)
            let (fixture, _) = try Self.merge(kind, base: base, user: user, seed: seed, policy: policy)
            let merged = try Self.read(kind, from: fixture.staged)
            // The same merge again gives the same rows, byte for byte.
            try fixture.merge(MergePolicies(default: policy))
            #expect(try Self.read(kind, from: fixture.staged) == merged)
            // Merging the result again, as if it were the new seed, changes nothing.
            try FileManager.default.removeItem(atPath: fixture.seed)
            try FileManager.default.copyItem(atPath: fixture.staged, toPath: fixture.seed)
            try fixture.merge(MergePolicies(default: policy))
            #expect(try Self.read(kind, from: fixture.staged) == merged)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func reorderedOrInsertedSeedColumnsNeverShiftAValue(_ kind: KeyKind) async {
        await propertyCheck(count: 30, input: Self.codes, Self.codes, Self.codes) { b, u, s in
            let base = Self.base(kind, b), policy = Self.policy(s)
            let user = Self.edit(base, kind, u), seed = Self.edit(base, kind, s)
            let (fixture, _) = try Self.merge(kind, base: base, user: user, seed: seed, policy: policy, seedCreate: kind.createReordered)
            let model = Self.model(base: base, user: user, seed: seed, policy: policy)
            #expect(try Self.read(kind, from: fixture.staged) == Self.sorted(model.table, kind))
            // The inserted column: the seed's value where the seed has the row, else its default.
            let z = try fixture.rows("SELECT z FROM t ORDER BY \(kind.key)")
            let expected = model.table.keys.sorted { Self.order(kind)($0) < Self.order(kind)($1) }
                .map { [MergeValue.text(seed[$0] == nil ? "z" : "seed")] }
            #expect(z == expected)
        }
    }
}

extension [String] {
    /// Key columns first, then `a`, `b`: the order the test's rows hold their values in.
    func sortedByCanonicalOrder() -> [String] {
        let order = ["id", "k1", "k2", "a", "b"]
        return sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
    }
}
