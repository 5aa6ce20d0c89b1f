import Foundation
import GRDB
import Logging
@testable import SeedDB
import Testing

/// The `Deployer` through the library API, in a real temporary directory (no binary).
@Suite struct DeployerTests {
    let directory = TemporaryDirectory()

    var deployer: Deployer {
        var configuration = DeployConfiguration()
        configuration.wait = .seconds(2)
        return Deployer(directories: directory.xdg, configuration: configuration, logger: Logger(label: "test"))
    }

    var workingCopy: String { directory.file("data/com.example.levels/levels.sqlite") }

    func seed(_ version: Int) throws -> Seed {
        try Seed(app: AppIdentifier("com.example.levels"), source: version == 1 ? DemoSeeds.v1 : DemoSeeds.v2,
                 version: SeedVersion("\(version)"), name: SeedName("levels.sqlite"))
    }

    @Test func libraryChecksNeverDropTheAppsSQLiteLocks() throws {
        try deployer.deploy(seed(1))
        // The app holds a write lock through its own connection in this process.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let app = try DatabaseQueue(path: workingCopy, configuration: configuration)
        try app.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }

        // Every check the library runs in the same process.
        _ = try deployer.status(seed(1))
        _ = try deployer.plan(seed(1))
        #expect(try deployer.deploy(seed(1)).action == .unchanged)
        #expect(try deployer.verify(seed(1)).workingCopy == .ok)
        let handle = try SeedDatabase.open(seed(1), deployer: deployer)
        #expect(try handle.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM levels") } == 20)
        try handle.close()

        // Another process must still find the database locked.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        other.arguments = ["python3", "-c", "import sqlite3; c = sqlite3.connect('\(workingCopy)', timeout=0, isolation_level=None); c.execute('BEGIN IMMEDIATE')"]
        let errors = Pipe()
        other.standardError = errors
        try other.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        other.waitUntilExit()
        #expect(other.terminationStatus != 0)
        #expect(stderr.contains("locked"), "\(stderr)")
        try app.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        try app.close()
    }

    /// `purge(_:)` of several working copies takes every one's locks before it removes
    /// anything: the second open in this process (a ``SeedDatabase``) past the wait is
    /// `inUse` for it, with no report and the first one's files all there. Once the
    /// handle closes both go, each once however often it is given.
    @Test func aPurgeOfSeveralRemovesNothingWhileOneIsOpenInThisProcess() throws {
        let app = try AppIdentifier("com.example.levels")
        let dict = try Seed(app: app, source: DemoSeeds.v1, version: SeedVersion("1"), name: SeedName("dict.sqlite"))
        try deployer.deploy(seed(1))
        let handle = try SeedDatabase.open(dict, deployer: deployer)
        let data = directory.file("data/com.example.levels")
        let before = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
        var impatient = deployer
        impatient.configuration.wait = .zero
        let targets = try ["levels.sqlite", "dict.sqlite"].map { PurgeTarget(app: app, name: try SeedName($0), location: .data) }

        let refused = impatient.purge(targets)
        #expect(refused.failure?.name.rawValue == "dict.sqlite" && refused.failure?.error.code == .inUse, "\(String(describing: refused.failure?.error))")
        #expect(refused.reports.isEmpty, "\(refused.reports)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).sorted() == before)

        try handle.close()
        let purged = impatient.purge(targets + targets)
        #expect(purged.failure == nil, "\(String(describing: purged.failure?.error))")
        #expect(purged.reports.map(\.name.rawValue) == ["levels.sqlite", "dict.sqlite"])
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    /// A time no record can hold (an app's computed date gone wrong: not finite, or outside
    /// the years 1 to 9999 its stamp writes) is refused with `invalidArgument`, dry run or
    /// not, before anything runs or is recorded; the last second a record can hold still
    /// runs.
    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e19, -1e19, 253_402_300_800, -62_135_596_801])
    func maintainRefusesATimeNoRecordCanHold(seconds: Double) throws {
        try deployer.deploy(seed(1))
        let settings = directory.file("config/com.example.levels/settings.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: settings))
        for dryRun in [false, true] {
            #expect {
                try deployer.maintain(seed(1), every: .zero, policy: .optimize, now: Date(timeIntervalSince1970: seconds), dryRun: dryRun)
            } throws: { ($0 as? SeedDBError)?.code == .invalidArgument }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: settings)) == before)
        let last = try deployer.maintain(seed(1), every: .zero, policy: .optimize, now: Date(timeIntervalSince1970: 253_402_300_799.5))
        #expect(last.action == .optimized)
        #expect(last.lastRun == "9999-12-31T23:59:59Z")
    }

    @Test func rollbackThroughTheLibrary() throws {
        try deployer.deploy(seed(1))
        try deployer.deploy(seed(2))
        let report = try deployer.rollback(seed(2))
        #expect(report.action == .rolledBack)
        #expect(report.to.rawValue == "1")
        #expect(throws: SeedDBError.self) { try deployer.rollback(seed(2)) }
    }

    @Test func verifyDecidesWhatTheResultsAmountTo() throws {
        // Never deployed: nothing to check, not a failure.
        var report = try deployer.verify(seed(1))
        #expect(report.workingCopy == .notDeployed)
        #expect(report.seed == .ok)
        #expect(report.failure == nil)

        // Recorded, then deleted: missing, exit 66's code.
        try deployer.deploy(seed(1))
        try FileManager.default.removeItem(atPath: workingCopy)
        report = try deployer.verify(seed(1))
        #expect(report.workingCopy == .missing)
        #expect(report.failure?.code == .seedUnavailable)

        // Damaged: every problem listed, one line each; the failure names the first.
        try deployer.deploy(seed(1))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: workingCopy))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        report = try deployer.verify(seed(1))
        let problems = report.workingCopy.problems
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { !$0.contains("\n") && !$0.hasPrefix("*** in database") })
        #expect(report.failure?.code == .corruptWorkingCopy)
        #expect(report.failure?.message.contains(problems[0]) == true)
        #expect(report.failure?.message.contains("\n") == false)
    }
}
