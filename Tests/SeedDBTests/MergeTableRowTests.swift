import Foundation
import GRDB
@testable import SeedDB
import Testing

/// Every row of the merge table, under every policy, on real files, with an integer key
/// (rowid table) and with a composite key (`WITHOUT ROWID`).
@Suite struct MergeTableRowTests {
    typealias Cells = [MergeValue]   // name, score

    enum Conflict: Sendable, Equatable {
        case row
        case cell(String)
    }

    /// What one policy leaves: the row (or none), the conflict, and which count it adds to.
    struct Expected: Sendable {
        var row: Cells?
        var conflict: Conflict? = nil
        var count: RowMergeOutcome.Effect? = nil
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var base: Cells?
        var user: Cells?
        var seed: Cells?
        var seedWins: Expected
        var userWins: Expected
        var failConflict: Conflict?
        var testDescription: String { name }
    }

    static let base: Cells = [.text("base"), .integer(10)]
    static let user: Cells = [.text("user"), .integer(10)]
    static let seed: Cells = [.text("base"), .integer(20)]

    static func same(_ name: String, base: Cells?, user: Cells?, seed: Cells?, _ expected: Expected) -> Case {
        Case(name: name, base: base, user: user, seed: seed, seedWins: expected, userWins: expected, failConflict: nil)
    }

    static let cases: [Case] = [
        same("no row, user inserted, seed none", base: nil, user: user, seed: nil, Expected(row: user, count: .inserted)),
        same("no row, both inserted alike", base: nil, user: user, seed: user, Expected(row: user, count: .inserted)),
        Case(name: "no row, both inserted differently", base: nil, user: user, seed: seed,
             seedWins: Expected(row: seed, conflict: .row), userWins: Expected(row: user, conflict: .row, count: .inserted), failConflict: .row),
        same("unchanged by the user, seed changed", base: base, user: base, seed: seed, Expected(row: seed)),
        same("unchanged by the user, seed deleted", base: base, user: base, seed: nil, Expected(row: nil)),
        same("user deleted, seed unchanged", base: base, user: nil, seed: base, Expected(row: nil, count: .deleted)),
        same("both deleted", base: base, user: nil, seed: nil, Expected(row: nil, count: .deleted)),
        Case(name: "user deleted, seed changed", base: base, user: nil, seed: seed,
             seedWins: Expected(row: seed, conflict: .row), userWins: Expected(row: nil, conflict: .row, count: .deleted), failConflict: .row),
        same("user changed a cell, seed another", base: base, user: user, seed: seed, Expected(row: [.text("user"), .integer(20)], count: .updated)),
        same("both changed a cell alike", base: base, user: user, seed: [.text("user"), .integer(20)], Expected(row: [.text("user"), .integer(20)], count: .updated)),
        Case(name: "both changed a cell differently", base: base, user: user, seed: [.text("seed"), .integer(10)],
             seedWins: Expected(row: [.text("seed"), .integer(10)], conflict: .cell("name")),
             userWins: Expected(row: user, conflict: .cell("name"), count: .updated), failConflict: .cell("name")),
        Case(name: "user changed, seed deleted", base: base, user: user, seed: nil,
             seedWins: Expected(row: nil, conflict: .row), userWins: Expected(row: user, conflict: .row, count: .updated), failConflict: .row),
    ]

    enum Key: String, CaseIterable, Sendable {
        case integer
        case compositeWithoutRowid

        var create: String {
            switch self {
            case .integer: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);"
            case .compositeWithoutRowid: "CREATE TABLE t (a TEXT, b INTEGER, name TEXT, score INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID;"
            }
        }

        var key: [MergeField] {
            switch self {
            case .integer: [MergeField("id", .integer(7))]
            case .compositeWithoutRowid: [MergeField("a", .text("k")), MergeField("b", .integer(7))]
            }
        }
    }

    static let arguments: [(Case, MergePolicy, Key)] = cases.flatMap { row in
        MergePolicy.allCases.flatMap { policy in Key.allCases.map { (row, policy, $0) } }
    }

    static func insert(_ cells: Cells?, _ key: Key) -> String {
        guard let cells else { return "" }
        let values = (key.key.map(\.value) + cells).map(\.description).joined(separator: ", ")
        return "INSERT INTO t VALUES (\(values)); "
    }

    /// A neighbour row nobody touches, so the table is never empty.
    static func neighbour(_ key: Key) -> String {
        key == .integer ? "INSERT INTO t VALUES (1, 'n', 0);" : "INSERT INTO t VALUES ('n', 1, 'n', 0);"
    }

    @Test(arguments: arguments)
    func follows(_ row: Case, _ policy: MergePolicy, _ key: Key) throws {
        let fixture = try MergeFixture()
        try fixture.run(key.create + Self.neighbour(key) + Self.insert(row.base, key), on: fixture.base)
        try fixture.run(key.create + Self.neighbour(key) + Self.insert(row.user, key), on: fixture.user)
        try fixture.run(key.create + Self.neighbour(key) + Self.insert(row.seed, key), on: fixture.seed)
        let select = "SELECT name, score FROM t WHERE " + key.key.map { "\($0.column) = \($0.value)" }.joined(separator: " AND ")
        let policies = MergePolicies(default: policy)
        switch policy {
        case .off:
            try fixture.merge(policies)
            #expect(try fixture.rows(select) == (row.seed.map { [$0] } ?? []))
        case .fail:
            if let conflict = row.failConflict {
                let error = try #require(throws: SeedDBError.self) { try fixture.merge(policies) }
                let failure = try #require(error.underlying as? MergeFailure)
                #expect(failure.conflicts.map { $0.column.map(Conflict.cell) ?? .row } == [conflict])
                #expect(failure.conflicts.first?.key == key.key)
                #expect(failure.conflicts.first?.kept == MergeConflict.Kept.none)
                #expect(try fixture.dump() == fixture.dump(fixture.seed))
            } else {
                let result = try fixture.merge(policies)
                #expect(try fixture.rows(select) == (row.userWins.row.map { [$0] } ?? []))
                #expect(result.conflicts.isEmpty)
            }
        case .seedWins, .userWins:
            let expected = policy == .seedWins ? row.seedWins : row.userWins
            let result = try fixture.merge(policies)
            #expect(try fixture.rows(select) == (expected.row.map { [$0] } ?? []))
            #expect(result.conflicts.map { $0.column.map(Conflict.cell) ?? .row } == (expected.conflict.map { [$0] } ?? []))
            #expect(result.conflicts.allSatisfy { $0.key == key.key && $0.kept == policy.keptSide })
            var counts = MergeSummary(conflicts: result.conflicts.count)
            switch expected.count {
            case .inserted: counts.inserted = 1
            case .updated: counts.updated = 1
            case .deleted: counts.deleted = 1
            case nil: break
            }
            #expect(result.summary == counts)
            // The untouched neighbour is still the seed's.
            #expect(try fixture.rows("SELECT name FROM t WHERE name = 'n'") == [[.text("n")]])
        }
    }
}
