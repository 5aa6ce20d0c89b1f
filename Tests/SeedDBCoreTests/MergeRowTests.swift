import SeedDBCore
import Testing

/// Every row of the merge table, under every policy.
@Suite struct MergeRowTests {
    typealias Values = [MergeValue]

    /// What one policy gives for one row of the table.
    struct Expected: Sendable {
        var result: Values?
        var effect: RowMergeOutcome.Effect?
        var conflict: Conflict?
    }

    enum Conflict: Sendable, Equatable {
        case row
        case cell(Int)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var base: Values?
        var user: Values?
        var seed: Values?
        var off: Expected
        var seedWins: Expected
        var userWins: Expected
        var fail: Expected
        var testDescription: String { name }

        func expected(_ policy: MergePolicy) -> Expected {
            switch policy {
            case .off: off
            case .seedWins: seedWins
            case .userWins: userWins
            case .fail: fail
            }
        }
    }

    // Columns: id (the key), name, score.
    static let base: Values = [.integer(1), .text("base"), .integer(10)]
    static let userRow: Values = [.integer(1), .text("user"), .integer(10)]
    static let seedRow: Values = [.integer(1), .text("base"), .integer(20)]

    static func make(_ name: String, base: Values?, user: Values?, seed: Values?,
                     all expected: Expected) -> Case {
        Case(name: name, base: base, user: user, seed: seed, off: Expected(result: seed),
             seedWins: expected, userWins: expected, fail: expected)
    }

    static let cases: [Case] = [
        make("no row, user inserted, seed has none: the user's row",
             base: nil, user: userRow, seed: nil, all: Expected(result: userRow, effect: .inserted)),
        make("no row, both inserted the same row: that row, no conflict",
             base: nil, user: userRow, seed: userRow, all: Expected(result: userRow, effect: .inserted)),
        Case(name: "no row, both inserted different rows: row conflict",
             base: nil, user: userRow, seed: seedRow,
             off: Expected(result: seedRow),
             seedWins: Expected(result: seedRow, conflict: .row),
             userWins: Expected(result: userRow, effect: .inserted, conflict: .row),
             fail: Expected(result: seedRow, conflict: .row)),
        make("row unchanged by the user, seed changed it: the seed's",
             base: base, user: base, seed: seedRow, all: Expected(result: seedRow)),
        make("row unchanged by the user, seed deleted it: deleted",
             base: base, user: base, seed: nil, all: Expected(result: nil)),
        make("row unchanged on both sides: the seed's",
             base: base, user: base, seed: base, all: Expected(result: base)),
        make("user deleted, seed unchanged: deleted",
             base: base, user: nil, seed: base, all: Expected(result: nil, effect: .deleted)),
        make("both deleted: deleted",
             base: base, user: nil, seed: nil, all: Expected(result: nil, effect: .deleted)),
        Case(name: "user deleted, seed changed: row conflict",
             base: base, user: nil, seed: seedRow,
             off: Expected(result: seedRow),
             seedWins: Expected(result: seedRow, conflict: .row),
             userWins: Expected(result: nil, effect: .deleted, conflict: .row),
             fail: Expected(result: seedRow, conflict: .row)),
        make("user changed a cell, seed left it: the user's cell, the seed's others",
             base: base, user: userRow, seed: seedRow,
             all: Expected(result: [.integer(1), .text("user"), .integer(20)], effect: .updated)),
        make("user changed a cell, seed left the whole row: the user's row",
             base: base, user: userRow, seed: base, all: Expected(result: userRow, effect: .updated)),
        make("both changed a cell to the same value: that value, no conflict",
             base: base, user: userRow, seed: [.integer(1), .text("user"), .integer(20)],
             all: Expected(result: [.integer(1), .text("user"), .integer(20)], effect: .updated)),
        Case(name: "both changed a cell differently: cell conflict",
             base: base, user: userRow, seed: [.integer(1), .text("seed"), .integer(20)],
             off: Expected(result: [.integer(1), .text("seed"), .integer(20)]),
             seedWins: Expected(result: [.integer(1), .text("seed"), .integer(20)], conflict: .cell(1)),
             userWins: Expected(result: [.integer(1), .text("user"), .integer(20)], effect: .updated, conflict: .cell(1)),
             fail: Expected(result: [.integer(1), .text("seed"), .integer(20)], conflict: .cell(1))),
        Case(name: "user changed cells, seed deleted the row: row conflict",
             base: base, user: userRow, seed: nil,
             off: Expected(result: nil),
             seedWins: Expected(result: nil, conflict: .row),
             userWins: Expected(result: userRow, effect: .updated, conflict: .row),
             fail: Expected(result: nil, conflict: .row)),
        Case(name: "storage classes differ: integer 10 against real 10.0 is a change, against text '10' another",
             base: base, user: [.integer(1), .text("base"), .real(10)], seed: [.integer(1), .text("base"), .text("10")],
             off: Expected(result: [.integer(1), .text("base"), .text("10")]),
             seedWins: Expected(result: [.integer(1), .text("base"), .text("10")], conflict: .cell(2)),
             userWins: Expected(result: [.integer(1), .text("base"), .real(10)], effect: .updated, conflict: .cell(2)),
             fail: Expected(result: [.integer(1), .text("base"), .text("10")], conflict: .cell(2))),
        make("text compares byte for byte: 'É' precomposed against decomposed is a change",
             base: [.integer(1), .text("\u{C9}"), .null], user: [.integer(1), .text("E\u{301}"), .null], seed: [.integer(1), .text("\u{C9}"), .null],
             all: Expected(result: [.integer(1), .text("E\u{301}"), .null], effect: .updated)),
        make("NULL is a value: the user setting a cell to NULL is a change",
             base: base, user: [.integer(1), .null, .integer(10)], seed: base,
             all: Expected(result: [.integer(1), .null, .integer(10)], effect: .updated)),
        make("absent everywhere but the seed: the seed's",
             base: nil, user: nil, seed: seedRow, all: Expected(result: seedRow)),
    ]

    static let arguments: [(Case, MergePolicy)] = cases.flatMap { row in MergePolicy.allCases.map { (row, $0) } }

    @Test(arguments: arguments)
    func decides(_ row: Case, _ policy: MergePolicy) throws {
        let outcome = RowMerge.resolve(base: row.base, user: row.user, seed: row.seed, policy: policy)
        let expected = row.expected(policy)
        let result = outcome.values(user: row.user, seed: row.seed)
        #expect(result == expected.result, "result")
        #expect(outcome.effect == expected.effect, "effect")
        let conflicts = outcome.conflicts.map { $0.column.map(Conflict.cell) ?? .row }
        #expect(conflicts == (expected.conflict.map { [$0] } ?? []), "conflicts")
        #expect(outcome.conflicts.allSatisfy { $0.kept == policy.keptSide }, "kept side")
        if case .cells(let sources) = outcome.row {
            // A cell the merge writes from the user must exist on the user's side.
            #expect(row.user != nil || !sources.contains(.user))
            #expect(row.seed != nil || !sources.contains(.seed))
        }
    }

    @Test func identicalEditsAreNeverConflicts() {
        let base: Values = [.integer(7), .text("a"), .blob([1, 2])]
        let edited: Values = [.integer(7), .text("b"), .blob([3])]
        for policy in MergePolicy.allCases {
            #expect(RowMerge.resolve(base: base, user: edited, seed: edited, policy: policy).conflicts.isEmpty)
            #expect(RowMerge.resolve(base: nil, user: edited, seed: edited, policy: policy).conflicts.isEmpty)
            #expect(RowMerge.resolve(base: base, user: nil, seed: nil, policy: policy).conflicts.isEmpty)
        }
    }

    @Test func twoCellConflictsInOneRowAreReportedInColumnOrder() {
        let outcome = RowMerge.resolve(base: [.integer(1), .integer(0), .integer(0)],
                                       user: [.integer(1), .integer(1), .integer(1)],
                                       seed: [.integer(1), .integer(2), .integer(2)], policy: .userWins)
        #expect(outcome.conflicts == [.init(column: 1, kept: .user), .init(column: 2, kept: .user)])
        var summary = MergeSummary()
        summary.add(outcome)
        #expect(summary == MergeSummary(inserted: 0, updated: 1, deleted: 0, conflicts: 2))
    }

    @Test func seedWinsOnEveryConflictAppliesNoneOfTheUsersChanges() {
        let outcome = RowMerge.resolve(base: [.integer(1), .integer(0)], user: [.integer(1), .integer(1)],
                                       seed: [.integer(1), .integer(2)], policy: .seedWins)
        #expect(outcome.effect == nil)
        #expect(outcome.row == .seed)
    }
}

/// The decision without a merge base: nothing the user's copy holds is lost.
@Suite struct MergeRowWithoutBaseTests {
    let user: [MergeValue] = [.integer(1), .text("mine"), .integer(3)]
    let seed: [MergeValue] = [.integer(1), .text("seed"), .integer(3)]

    @Test func aRowOnlyTheUserHasStaysUnlessTheMergeRefuses() {
        for policy in [MergePolicy.userWins, .seedWins] {
            let outcome = RowMerge.resolveWithoutBase(user: user, seed: nil, policy: policy)
            #expect(outcome.row == .cells([.user, .user, .user]) && outcome.effect == .inserted && outcome.conflicts.isEmpty)
        }
        let refused = RowMerge.resolveWithoutBase(user: user, seed: nil, policy: .fail)
        #expect(refused.conflicts == [RowMergeOutcome.Conflict(column: nil, kept: .none)])
    }

    @Test func eachCellThatDiffersIsAConflictThePolicyResolves() {
        let userWins = RowMerge.resolveWithoutBase(user: user, seed: seed, policy: .userWins)
        #expect(userWins.row == .cells([.seed, .user, .seed]) && userWins.effect == .updated)
        #expect(userWins.conflicts == [RowMergeOutcome.Conflict(column: 1, kept: .user)])
        let seedWins = RowMerge.resolveWithoutBase(user: user, seed: seed, policy: .seedWins)
        #expect(seedWins.row == .seed && seedWins.effect == nil)
        #expect(seedWins.conflicts == [RowMergeOutcome.Conflict(column: 1, kept: .seed)])
    }

    @Test func aColumnTheAppAddedIsTheUsersWithoutAConflict() {
        let user: [MergeValue] = [.integer(1), .text("seed"), .integer(1)]
        let seed: [MergeValue] = [.integer(1), .text("seed"), .null]
        let outcome = RowMerge.resolveWithoutBase(user: user, seed: seed, policy: .fail, appColumns: [2])
        #expect(outcome.conflicts.isEmpty)
        #expect(outcome.row == .cells([.seed, .seed, .user]))
    }

    @Test func theSeedsRowsAndMergingOffStand() {
        #expect(RowMerge.resolveWithoutBase(user: nil, seed: seed, policy: .userWins).row == .seed)
        #expect(RowMerge.resolveWithoutBase(user: user, seed: seed, policy: .off) == RowMergeOutcome(row: .seed))
        #expect(RowMerge.resolveWithoutBase(user: user, seed: user, policy: .fail).conflicts.isEmpty)
    }

    @Test func aConflictsJSONLeavesOutASideWithoutTheColumn() {
        let conflict = MergeConflict(table: "t", key: [MergeField("id", .integer(1))], column: "note",
                                     base: .noColumn, user: .value(.text("x")), seed: .noColumn, kept: .user)
        #expect(conflict.json == #"{"table":"t","key":{"id":1},"column":"note","user":"x","kept":"user"}"#)
    }
}
