import Foundation
import GRDB
import Logging
import SeedDB
import Testing

/// Issue 11 through the deployer: the merge base beside the working copy, the merge under
/// every install, the conflicts file, rollback and purge of merged deploys.
@Suite struct MergedDeployTests {
    let directory = TemporaryDirectory()
    let logs = LogCapture()

    var deployer: Deployer {
        var configuration = DeployConfiguration()
        configuration.wait = .seconds(5)
        return Deployer(
            directories: XDGDirectories(dataHome: directory.file("data"), cacheHome: directory.file("cache"), configHome: directory.file("config")),
            configuration: configuration, logger: logs.logger)
    }

    static let levelsV1 = """
        CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT NOT NULL, stars INTEGER NOT NULL DEFAULT 0);
        INSERT INTO levels VALUES (1, 'meadow', 0), (2, 'cave', 0), (3, 'desert', 0);
        """
    static let levelsV2 = """
        CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT NOT NULL, stars INTEGER NOT NULL DEFAULT 0);
        INSERT INTO levels VALUES (1, 'meadow-hd', 0), (2, 'cave', 5), (4, 'ocean', 0);
        """

    func makeSeed(_ name: String, _ sql: String) throws -> String {
        let path = directory.file(name)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    func seed(_ version: String, _ source: String, merge: MergePolicy) throws -> Seed {
        try Seed(app: AppIdentifier("com.example.merge"), source: source, version: SeedVersion(version),
                 name: SeedName("levels.sqlite"), merge: MergePolicies(default: merge))
    }

    var paths: SeedPaths { deployer.paths(for: try! seed("1", "/x", merge: .off)) }

    func edit(_ sql: String) throws {
        let queue = try DatabaseQueue(path: paths.workingCopy)
        try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
        try queue.close()
    }

    func rows() throws -> [String] {
        let queue = try DatabaseQueue(path: paths.workingCopy)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT ix, background, stars FROM levels ORDER BY ix").map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
        }
    }

    @Test func userWinsKeepsTheUsersEditsAndReportsTheConflict() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .userWins))
        let base = try FileManager.default.attributesOfItem(atPath: paths.base)
        #expect(base[.posixPermissions] as? Int == 0o444, "the base is read-only")
        // The user stars level 2 (the seed changes it too: a conflict), renames level 3
        // (the seed deletes it: a conflict) and adds their own level 9.
        try edit("UPDATE levels SET stars = 3 WHERE ix = 2; UPDATE levels SET background = 'my desert' WHERE ix = 3; INSERT INTO levels VALUES (9, 'mine', 1);")
        let report = try deployer.deploy(seed("2", v2, merge: .userWins))
        #expect(report.action == .replaced)
        #expect(report.merge == MergeSummary(inserted: 1, updated: 2, deleted: 0, conflicts: 2))
        #expect(try rows() == ["1 meadow-hd 0", "2 cave 3", "3 my desert 0", "4 ocean 0", "9 mine 1"])
        let conflicts = try deployer.conflicts(seed("2", v2, merge: .userWins))
        #expect(conflicts.contains("\"table\":\"levels\"") && conflicts.contains("\"kept\":\"user\""), "\(conflicts)")
        // The same conflicts as values: a cell conflict on level 2's stars, a row
        // conflict on level 3 (the seed deleted it), each written back as the file has it.
        let list = try deployer.conflictList(seed("2", v2, merge: .userWins))
        #expect(list.map(\.kept) == [.user, .user])
        let stars = try #require(list.first { $0.column == "stars" })
        #expect(stars.key == [MergeField("ix", .integer(2))] && stars.user == .value(.integer(3)) && stars.table == "levels")
        let deleted = try #require(list.first { $0.column == nil })
        #expect(deleted.seed == .absent && deleted.key == [MergeField("ix", .integer(3))])
        let written = try JSONSerialization.jsonObject(with: Data(("[" + list.map(\.json).joined(separator: ",") + "]").utf8)) as? NSArray
        #expect(written == (try JSONSerialization.jsonObject(with: Data(conflicts.utf8)) as? NSArray), "values written back differ from the file")
        // The base is now the pristine v2.
        #expect(try FileDigest.sha256(ofFileAt: paths.base) == FileDigest.sha256(ofFileAt: v2))
    }

    @Test func failRefusesAConflictAndChangesNothingButTheConflictsFile() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .fail))
        try edit("UPDATE levels SET stars = 3 WHERE ix = 2")
        let before = try Data(contentsOf: URL(fileURLWithPath: paths.settingsFile))
        #expect(throws: SeedDBError.self) { try deployer.deploy(seed("2", v2, merge: .fail)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: paths.settingsFile)) == before)
        #expect(try rows() == ["1 meadow 0", "2 cave 3", "3 desert 0"])
        let conflicts = try deployer.conflicts(seed("2", v2, merge: .fail))
        #expect(conflicts.contains("\"kept\":\"none\""), "\(conflicts)")
    }

    /// `conflicts(_:)` once returned a damaged file's bytes as its JSON: it reads the file
    /// as `conflictList(_:)` does, and both refuse it alike, naming it. Whitespace alone is
    /// no conflicts.
    @Test func aDamagedConflictsFileIsRefusedAsDamaged() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .userWins))
        try edit("UPDATE levels SET stars = 3 WHERE ix = 2")
        let upgrade = try seed("2", v2, merge: .userWins)
        try deployer.deploy(upgrade)
        let written = try deployer.conflicts(upgrade)
        #expect(written == "[" + (try deployer.conflictList(upgrade)).map(\.json).joined(separator: ",") + "]", "\(written)")
        for damage in [#"[{"table":"levels","ke"#, "garbage", #"{"a":1}"#] {
            try Data(damage.utf8).write(to: URL(fileURLWithPath: paths.conflictsFile))
            for read in [{ () throws in _ = try deployer.conflicts(upgrade) }, { () throws in _ = try deployer.conflictList(upgrade) }] {
                let error = try #require(throws: SeedDBError.self) { try read() }
                #expect(error.code == .corruptWorkingCopy, "\(damage): \(error)")
                #expect(error.message.hasPrefix("cannot read the conflicts in \(paths.conflictsFile): the file is damaged ("), "\(error.message)")
            }
        }
        try Data(" \t\r\n".utf8).write(to: URL(fileURLWithPath: paths.conflictsFile))
        #expect(try deployer.conflicts(upgrade) == "[]" && deployer.conflictList(upgrade).isEmpty)
    }

    @Test func aMissingBaseMergesWithoutOneAndKeepsTheNewBase() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .userWins))
        try edit("UPDATE levels SET stars = 3 WHERE ix = 1; CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, 'hi');")
        try FileManager.default.removeItem(atPath: paths.base)
        let report = try deployer.deploy(seed("2", v2, merge: .userWins))
        #expect(report.carried.contains("notes"))
        #expect(try rows().first == "1 meadow 3", "without a base, the user's cells that differ win under user-wins")
        #expect(report.merge?.withoutBase == true)
        #expect(logs.messages.contains { $0.contains(paths.base) && $0.contains("missing") }, "\(logs.messages)")
        #expect(FileManager.default.fileExists(atPath: paths.base), "the new base is kept so the next upgrade merges")
    }

    @Test func rollbackRestoresThePreviousBaseAndAMergeAfterItWorks() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .userWins))
        try deployer.deploy(seed("2", v2, merge: .userWins))
        // A second name where the file system clones (the base shares its extents), a
        // compressed copy where it does not (tmpfs, ext4).
        let kept = [paths.previousBase, paths.previousBaseCompressed].filter(FileManager.default.fileExists(atPath:))
        #expect(kept.count == 1, "\(kept)")
        try deployer.rollback(seed("2", v2, merge: .userWins))
        #expect(try FileDigest.sha256(ofFileAt: paths.base) == FileDigest.sha256(ofFileAt: v1))
        #expect(!FileManager.default.fileExists(atPath: paths.previousBase))
        #expect(!FileManager.default.fileExists(atPath: paths.previousBaseCompressed))
        try edit("UPDATE levels SET stars = 4 WHERE ix = 1")
        // Version 2 is held while the app ships it; the next version merges from the restored base.
        #expect(try deployer.deploy(seed("2", v2, merge: .userWins)).action == .held)
        let report = try deployer.deploy(seed("3", v2, merge: .userWins))
        #expect(report.merge?.updated == 1)
        #expect(try rows().first == "1 meadow-hd 4")
    }

    @Test func purgeRemovesTheBasesAndTheConflictsFile() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        try deployer.deploy(seed("1", v1, merge: .seedWins))
        try edit("UPDATE levels SET stars = 3 WHERE ix = 2")
        try deployer.deploy(seed("2", v2, merge: .seedWins))
        #expect(FileManager.default.fileExists(atPath: paths.conflictsFile))
        let report = try deployer.purge(app: AppIdentifier("com.example.merge"), name: SeedName("levels.sqlite"), location: .data)
        let previousBase = report.removed.contains(paths.previousBase) || report.removed.contains(paths.previousBaseCompressed)
        #expect(report.removed.contains(paths.base) && previousBase && report.removed.contains(paths.conflictsFile), "\(report.removed)")
        #expect(!FileManager.default.fileExists(atPath: paths.directory))
    }

    @Test func theAppsMigrationsRunOnBothSides() throws {
        let v1 = try makeSeed("v1.sqlite", Self.levelsV1)
        let v2 = try makeSeed("v2.sqlite", Self.levelsV2)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("favorites") { db in
            try db.execute(sql: "ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0")
        }
        let first = try SeedDatabase.open(seed("1", v1, merge: .userWins), deployer: deployer, migrator: migrator)
        try first.writer.write { try $0.execute(sql: "UPDATE levels SET favorite = 1 WHERE ix = 2") }
        try first.close()
        let second = try SeedDatabase.open(seed("2", v2, merge: .userWins), deployer: deployer, migrator: migrator)
        defer { try? second.close() }
        let favorites = try second.writer.read { try Int.fetchAll($0, sql: "SELECT ix FROM levels WHERE favorite = 1") }
        #expect(favorites == [2])
        #expect(second.deployment.merge != nil)
    }
}
