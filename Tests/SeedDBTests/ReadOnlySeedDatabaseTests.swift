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
}
