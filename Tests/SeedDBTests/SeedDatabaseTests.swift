import Foundation
import GRDB
import Logging
import SeedDB
import SeedDBTestSupport
import Testing

/// The app-side handle: when another instance keeps the working copy busy past the wait,
/// the app can start on the copy it has and deploy at its next start.
@Suite struct SeedDatabaseTests {
    let directory = TemporaryDirectory()

    func deployer(wait: Duration) -> Deployer {
        var configuration = DeployConfiguration()
        configuration.wait = wait
        return Deployer(directories: directory.xdg, configuration: configuration, logger: Logger(label: "test"))
    }

    func seed(_ version: Int) throws -> Seed {
        try Seed(app: AppIdentifier("com.example.levels"), source: version == 1 ? DemoSeeds.v1 : DemoSeeds.v2,
                 version: SeedVersion("\(version)"), name: SeedName("levels.sqlite"))
    }

    @Test func aBusyCopyOpensAsItIsWhenAskedAndSaysTheDeployIsPending() throws {
        try deployer(wait: .seconds(2)).deploy(seed(1))
        // Another instance holds a write transaction past the wait.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: directory.file("data/com.example.levels/levels.sqlite"), configuration: configuration)
        try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } }

        let busy = deployer(wait: .milliseconds(300))
        #expect(throws: SeedDBError.self) { try SeedDatabase.open(try seed(2), deployer: busy) }
        let handle = try SeedDatabase.open(seed(2), deployer: busy, whenBusy: .openCurrentCopy)
        #expect(handle.pendingDeploy?.code == .inUse)
        #expect(handle.deployment.action == .unchanged && handle.deployment.to.rawValue == "1")
        #expect(try handle.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM levels") } == 20, "the copy there, v1")
        try handle.close()
    }

    @Test func aDeployThatRanHasNothingPending() throws {
        let handle = try SeedDatabase.open(seed(1), deployer: deployer(wait: .seconds(2)), whenBusy: .openCurrentCopy)
        #expect(handle.pendingDeploy == nil)
        #expect(handle.deployment.action == .installed)
        try handle.close()
    }
}
