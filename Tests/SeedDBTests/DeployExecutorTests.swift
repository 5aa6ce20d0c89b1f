import Foundation
import GRDB
import Logging
@testable import SeedDB
import SeedDBCore
import Testing

/// `DeployExecutor` and its `DeployRun`: a run that stops before its content is in place
/// undoes every completed step, newest first, and leaves the settings bytes, the directory
/// and the working copy as they were; once the content is in place it finishes instead.
@Suite struct DeployExecutorTests {
    /// A step observer that can stop the run: once `stopAfter` was reached, the executor
    /// is told it is interrupted before its next step.
    private final class Stopper: @unchecked Sendable {
        private let lock = NSLock()
        private var reached: [DeployStep] = []
        private let stopAfter: DeployStep?

        init(stopAfter: DeployStep?) { self.stopAfter = stopAfter }

        var steps: [DeployStep] { lock.withLock { reached } }
        func reach(_ step: DeployStep) { lock.withLock { reached.append(step) } }
        var isInterrupted: Bool { lock.withLock { stopAfter.map(reached.contains) ?? false } }
    }

    /// What a failed run must leave as it found it.
    private struct Snapshot: Equatable {
        var settings: Data?
        var entries: [String]
        var levels: [String]
        var notes: [String]
    }

    private let directory = TemporaryDirectory()
    private var workingCopy: String { directory.file("data/com.example.levels/levels.sqlite") }

    private func deployer(_ stopper: Stopper? = nil) -> Deployer {
        var configuration = DeployConfiguration()
        configuration.wait = .seconds(2)
        configuration.strategy = .swap
        if let stopper {
            configuration.stepObserver = { stopper.reach($0) }
            configuration.isInterrupted = { stopper.isInterrupted }
        }
        return Deployer(directories: directory.xdg, configuration: configuration, logger: Logger(label: "test"))
    }

    private func seed(_ version: Int) throws -> Seed {
        try Seed(app: AppIdentifier("com.example.levels"), source: version == 1 ? DemoSeeds.v1 : DemoSeeds.v2,
                 version: SeedVersion("\(version)"), name: SeedName("levels.sqlite"))
    }

    private func snapshot() throws -> Snapshot {
        let queue = try DatabaseQueue(path: workingCopy)
        defer { try? queue.close() }
        let (levels, notes) = try queue.read { db in
            (try String.fetchAll(db, sql: "SELECT background FROM levels ORDER BY ix"), try String.fetchAll(db, sql: "SELECT body FROM notes ORDER BY id"))
        }
        let settings = FileManager.default.contents(atPath: directory.file("config/com.example.levels/settings.json"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.file("data/com.example.levels")).sorted()
        return Snapshot(settings: settings, entries: entries, levels: levels, notes: notes)
    }

    /// v1 deployed, with a table of the app's holding one row.
    private func deployedWithTheUsersRows() throws {
        try deployer().deploy(seed(1))
        let queue = try DatabaseQueue(path: workingCopy)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'mine')") }
        try queue.close()
    }

    @Test func aRunStoppedBeforeItsInstallIsUndoneStepByStep() throws {
        let clean = Stopper(stopAfter: nil)
        do {
            let fixture = DeployExecutorTests()
            try fixture.deployedWithTheUsersRows()
            try fixture.deployer(clean).deploy(fixture.seed(2))
        }
        let steps = clean.steps.filter { $0 != .cleanUp }
        #expect(steps == [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record], "the plan of a swap that keeps the previous copy")
        for step in steps {
            let fixture = DeployExecutorTests()
            try fixture.deployedWithTheUsersRows()
            let before = try fixture.snapshot()
            #expect(before.settings != nil && before.notes == ["mine"])
            let stopper = Stopper(stopAfter: step)
            let installed = steps.firstIndex(of: step)! >= steps.firstIndex(of: .install)!
            if installed {
                // Past the install, an interruption finishes the run.
                let report = try fixture.deployer(stopper).deploy(fixture.seed(2))
                #expect(report.to == (try SeedVersion("2")), "stopped after \(step)")
                #expect(try fixture.snapshot().notes == ["mine"], "stopped after \(step)")
            } else {
                let error = try #require(throws: SeedDBError.self, "stopped after \(step)") { try fixture.deployer(stopper).deploy(fixture.seed(2)) }
                #expect(error.code == .interrupted)
                #expect(try fixture.snapshot() == before, "stopped after \(step)")
            }
        }
    }

    @Test func undoRunsNewestFirstAndGoesOnPastAFailure() {
        let run = DeployRun()
        let done = LockedList()
        run.onFailure("first") { () throws(SeedDBError) in done.append("first") }
        run.onFailure("second") { () throws(SeedDBError) in throw SeedDBError(.ioFailure, "disk gone") }
        run.onFailure("third") { () throws(SeedDBError) in done.append("third") }
        let logs = LogCapture()
        var logger = logs.logger
        logger.logLevel = .error
        run.undo(logger: logger)
        #expect(done.items == ["third", "first"])
        #expect(logs.messages == ["could not undo second: disk gone"])
        #expect(run.undoCount == 0)
    }

    @Test func undoDownToAMarkKeepsWhatCameBefore() {
        let run = DeployRun()
        let done = LockedList()
        run.onFailure("before the lock") { () throws(SeedDBError) in done.append("before") }
        let mark = run.undoCount
        run.onFailure("under the lock") { () throws(SeedDBError) in done.append("under") }
        run.undo(downTo: mark, logger: Logger(label: "test"))
        #expect(done.items == ["under"])
        #expect(run.undoCount == 1)
    }

    @Test func aStepThatNeedsTheStagedCopyRefusesBeforeStage() {
        let error = #expect(throws: SeedDBError.self) { try DeployRun().staged(for: .carry) }
        #expect(error?.message == "cannot carry: the plan staged no copy")
    }
}

/// A list appended to from undo actions.
private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var items: [String] { lock.withLock { storage } }
    func append(_ item: String) { lock.withLock { storage.append(item) } }
}
