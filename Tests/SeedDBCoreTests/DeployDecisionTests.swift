import SeedDBCore
import Testing

@Suite struct DeployDecisionTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var recorded: String?
        var current: String
        var exists: Bool
        var force: Bool
        var action: DeployAction
        var state: SeedState
        var testDescription: String { "recorded \(recorded ?? "nil"), current \(current), exists \(exists), force \(force)" }
    }

    static let rows: [Row] = [
        Row(recorded: nil, current: "1", exists: false, force: false, action: .installed, state: .notInstalled),
        Row(recorded: nil, current: "1", exists: true, force: false, action: .installed, state: .notInstalled),
        Row(recorded: "1", current: "1", exists: true, force: false, action: .unchanged, state: .upToDate),
        Row(recorded: "1", current: "2", exists: true, force: false, action: .replaced, state: .outdated),
        Row(recorded: "2", current: "1", exists: true, force: false, action: .replaced, state: .outdated),   // downgrade
        Row(recorded: "1", current: "2", exists: false, force: false, action: .replaced, state: .outdated),
        Row(recorded: "1", current: "1", exists: false, force: false, action: .restored, state: .missing),   // cleared cache
        Row(recorded: "1", current: "1.0", exists: true, force: false, action: .replaced, state: .outdated), // any difference
        Row(recorded: "1", current: "1", exists: true, force: true, action: .reseeded, state: .upToDate),
        Row(recorded: nil, current: "1", exists: false, force: true, action: .reseeded, state: .notInstalled),
        Row(recorded: "1", current: "2", exists: false, force: true, action: .reseeded, state: .outdated),
    ]

    @Test(arguments: rows)
    func decides(_ row: Row) throws {
        let recorded = try row.recorded.map { try SeedVersion($0) }
        let current = try SeedVersion(row.current)
        #expect(DeployDecision.action(recorded: recorded, current: current, workingCopyExists: row.exists, force: row.force) == row.action)
        #expect(DeployDecision.state(recorded: recorded, current: current, workingCopyExists: row.exists) == row.state)
    }

    @Test func onlyUnchangedAndHeldSkipTheCopy() {
        #expect(DeployAction.allCases.filter { !$0.copies } == [.unchanged, .held])
    }
}
