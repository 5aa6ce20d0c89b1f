import Foundation
import GRDB
import Logging
import SeedDB
import SeedDBTestSupport
import Testing

/// `Seed(readOnly: true)` through the library: the working copy is a link to the seed
/// file, and `SeedDatabase` opens it read-only, so SQLite refuses a write.
@Suite(.enabled(if: getuid() == 0, "a read-only seed the app's user owns is refused: the seeds these tests make are root's only when they run as root"))
struct ReadOnlySeedDatabaseTests {
    let directory = TemporaryDirectory()

    @Test func aReadOnlySeedOpensReadOnlyAndAWriteIsRefused() throws {
        let shipped = directory.file("share/levels.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("share"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DemoSeeds.v1, toPath: shipped)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: shipped)
        let seed = try Seed(app: AppIdentifier("com.example.levels"), source: shipped, version: SeedVersion("1"), readOnly: true)
        #expect(seed.readOnly)
        let deployer = Deployer(directories: directory.xdg, logger: Logger(label: "test"))

        let handle = try SeedDatabase.open(seed, deployer: deployer)
        defer { try? handle.close() }
        #expect(handle.deployment.action == .installed)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.file("data/com.example.levels/levels.sqlite")) == shipped)
        #expect(try handle.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM levels") } == 20)
        #expect {
            try handle.writer.write { try $0.execute(sql: "DELETE FROM levels") }
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_READONLY
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: shipped)) == Data(contentsOf: URL(fileURLWithPath: DemoSeeds.v1)))
    }

    @Test func aWritableSeedIsRefusedWithCannotCreate() throws {
        let shipped = directory.file("share/levels.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("share"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DemoSeeds.v1, toPath: shipped)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: shipped)
        let seed = try Seed(app: AppIdentifier("com.example.levels"), source: shipped, version: SeedVersion("1"), readOnly: true)
        let deployer = Deployer(directories: directory.xdg, logger: Logger(label: "test"))
        #expect { try deployer.deploy(seed) } throws: { ($0 as? SeedDBError)?.code == .cannotCreate }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/com.example.levels/levels.sqlite")))
    }

    /// A reseed's own merge (`reseedMerge`) beside a release whose seeds are all read-only
    /// was ignored: the release reseeded the links (the CLI refused it, 64). The library
    /// refuses it alike, `invalidArgument`, before anything is looked at, and so does its
    /// dry run; a deploy ignores it, as documented, and a release that also copies a seed
    /// applies it to that seed.
    @Test func aReseedMergeBesideOnlyReadOnlySeedsIsRefused() throws {
        let shipped = directory.file("share/levels.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("share"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DemoSeeds.v1, toPath: shipped)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: shipped)
        let app = try AppIdentifier("com.example.levels")
        let linked = try Seed(app: app, source: shipped, version: SeedVersion("1"), readOnly: true)
        var configuration = DeployConfiguration()
        configuration.reseedMerge = MergePolicies(default: .off)
        let deployer = Deployer(directories: directory.xdg, configuration: configuration, logger: Logger(label: "test"))
        let alsoLinked = try Seed(app: app, source: shipped, version: SeedVersion("1"), name: SeedName("also.sqlite"), readOnly: true)
        #expect(deployer.deploy(release: [linked, alsoLinked]).failure == nil)
        let settings = directory.file("config/com.example.levels/settings.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: settings))

        for outcome in [deployer.deploy(release: [linked, alsoLinked], force: true), deployer.plan(release: [linked, alsoLinked], force: true)] {
            let failure = try #require(outcome.failure)
            #expect(failure.error.code == .invalidArgument, "\(failure.error)")
            #expect(failure.error.message == "every seed of the release is read-only, a link to its seed file, not a copy: a reseed's own merge (--merge) has nothing to apply to; drop it", "\(failure.error)")
            // The other seed is reported as it is, as after any failure.
            #expect(outcome.reports.map(\.name) == [alsoLinked.name] && outcome.reports.first?.action == .unchanged, "\(outcome.reports)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: settings)) == before)

        let copied = try Seed(app: app, source: DemoSeeds.v1, version: SeedVersion("1"), name: SeedName("copy.sqlite"))
        #expect(deployer.deploy(release: [linked, copied]).failure == nil)
        let mixed = deployer.deploy(release: [linked, copied], force: true)
        #expect(mixed.failure == nil, "\(String(describing: mixed.failure))")
        #expect(mixed.reports.last?.action == .reseeded, "\(mixed.reports)")
    }
}
