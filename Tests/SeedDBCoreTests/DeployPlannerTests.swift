import SeedDBCore
import Testing

/// The deploy plan, table-driven: every choice (action, strategy, previous generation,
/// integrity, the steps and which run under the writer's lock) from what was observed.
@Suite struct DeployPlannerTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var label: String
        var observed: DeployObservation
        var request: DeployRequest
        var action: DeployAction
        var strategy: DeployStrategy?
        var keepsPrevious = false
        var dropsPrevious = false
        var integrity: IntegrityLevel = .quick
        var steps: [DeployStep]
        var locked: [DeployStep] = []
        var testDescription: String { label }
    }

    static func observed(
        recorded: String? = "1", current: String = "2", exists: Bool = true, previous: Bool = false,
        checked: IntegrityLevel? = nil, usage: DeployObservation.Usage = .idle
    ) -> DeployObservation {
        DeployObservation(
            recorded: recorded.map { try! SeedVersion($0) }, previousRecorded: previous, workingCopyExists: exists,
            previousExists: previous, current: try! SeedVersion(current), alreadyChecked: checked, usage: usage)
    }

    static let rows: [Row] = [
        Row(label: "up to date: nothing", observed: observed(recorded: "2"), request: DeployRequest(kind: .deploy),
            action: .unchanged, strategy: nil, integrity: .none, steps: []),
        Row(label: "first install: swap, nothing withdrawn or carried", observed: observed(recorded: nil, exists: false),
            request: DeployRequest(kind: .deploy), action: .installed, strategy: .swap,
            steps: [.stage, .check, .install, .record, .cleanUp]),
        Row(label: "first install over a stray file: carry what the app made", observed: observed(recorded: nil, exists: true),
            request: DeployRequest(kind: .deploy), action: .installed, strategy: .swap,
            steps: [.stage, .check, .carry, .install, .record, .cleanUp], locked: [.carry, .install, .record]),
        Row(label: "upgrade, idle: swap, keep previous, all under the writer's lock", observed: observed(),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "upgrade, a handle open: auto goes live, record after the commit",
            observed: observed(usage: .init(handleOpen: true)), request: DeployRequest(kind: .deploy),
            action: .replaced, strategy: .live, keepsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .keepPrevious, .install, .record, .cleanUp], locked: [.carry, .keepPrevious]),
        Row(label: "upgrade, a swap found connections busy: auto goes live", observed: observed(usage: .init(connectionsBusy: true)),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .live, keepsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .keepPrevious, .install, .record, .cleanUp], locked: [.carry, .keepPrevious]),
        Row(label: "upgrade, connections busy: swap asked, swap planned (it waits)",
            observed: observed(usage: .init(connectionsBusy: true)), request: DeployRequest(kind: .deploy, strategy: .swap),
            action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "live asked while idle: live", observed: observed(), request: DeployRequest(kind: .deploy, strategy: .live),
            action: .replaced, strategy: .live, keepsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .keepPrevious, .install, .record, .cleanUp], locked: [.carry, .keepPrevious]),
        Row(label: "live asked, nothing there: swap", observed: observed(recorded: nil, exists: false),
            request: DeployRequest(kind: .deploy, strategy: .live), action: .installed, strategy: .swap,
            steps: [.stage, .check, .install, .record, .cleanUp]),
        Row(label: "cache cleared: restore, nothing to keep", observed: observed(recorded: "2", exists: false),
            request: DeployRequest(kind: .deploy), action: .restored, strategy: .swap,
            steps: [.stage, .check, .withdraw, .install, .record, .cleanUp]),
        Row(label: "reseed replaces the previous generation", observed: observed(recorded: "2", previous: true),
            request: DeployRequest(kind: .reseed), action: .reseeded, strategy: .swap, keepsPrevious: true, dropsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "generations off: the existing previous goes", observed: observed(previous: true),
            request: DeployRequest(kind: .deploy, keepPrevious: false), action: .replaced, strategy: .swap, dropsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "generations off, none there: no keep-previous step", observed: observed(),
            request: DeployRequest(kind: .deploy, keepPrevious: false), action: .replaced, strategy: .swap,
            steps: [.stage, .check, .withdraw, .carry, .install, .record, .cleanUp], locked: [.carry, .install, .record]),
        Row(label: "rollback consumes the previous generation", observed: observed(recorded: "2", previous: true),
            request: DeployRequest(kind: .rollback), action: .rolledBack, strategy: .swap, dropsPrevious: true,
            steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "content already checked as strictly: no check", observed: observed(checked: .quick),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, integrity: .none,
            steps: [.stage, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "checked less strictly than asked: full check", observed: observed(checked: .quick),
            request: DeployRequest(kind: .deploy, integrity: .full), action: .replaced, strategy: .swap, keepsPrevious: true,
            integrity: .full, steps: [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp],
            locked: [.carry, .install, .keepPrevious, .record]),
        Row(label: "integrity none: no check", observed: observed(recorded: nil, exists: false),
            request: DeployRequest(kind: .deploy, integrity: .none), action: .installed, strategy: .swap, integrity: .none,
            steps: [.stage, .install, .record, .cleanUp]),
    ]

    @Test(arguments: rows)
    func plans(_ row: Row) {
        let plan = DeployPlanner.plan(row.observed, row.request)
        #expect(plan.action == row.action)
        #expect(plan.strategy == row.strategy)
        #expect(plan.keepsPrevious == row.keepsPrevious)
        #expect(plan.dropsPrevious == row.dropsPrevious)
        #expect(plan.integrity == row.integrity)
        #expect(plan.steps == row.steps)
        #expect(plan.writerLockedSteps == row.locked)
    }

    @Test func everyPlanEndsByRecordingThenCleaningUp() {
        for row in Self.rows where row.action.copies {
            let plan = DeployPlanner.plan(row.observed, row.request)
            #expect(plan.steps.suffix(2) == [.record, .cleanUp], "\(row.label)")
            #expect(plan.steps.first == .stage, "\(row.label)")
        }
    }
}
