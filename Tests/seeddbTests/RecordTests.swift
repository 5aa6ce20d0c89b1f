import Foundation
import Testing

/// One record per working copy, purge all or nothing, generations that come and
/// go as they should.
@Suite struct RecordTests {
    let cli = CLIHarness()

    @Test func aNameRecordedForTheOtherLocationIsRefusedFromFlags() throws {
        #expect(try cli.run(["deploy", "--location", "data"] + cli.seedFlags(1)).status == 0)
        let settings = cli.bytes(cli.settingsFile)
        let result = try cli.run(["deploy", "--location", "cache"] + cli.seedFlags(2))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("recorded in the data location") && result.stderr.contains("purge"), "\(result.stderr)")
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/cache/\(cli.app)"))
        let purge = try cli.run(["purge", "--location", "cache", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purge.status == 64, "purge of the other location: \(purge.stderr)")
        #expect(cli.bytes(cli.settingsFile) == settings, "the data copy's record is kept")
    }

    @Test func aNameRecordedForTheOtherLocationIsRefusedFromAManifest() throws {
        #expect(try cli.run(["deploy", "--location", "data"] + cli.seedFlags(1)).status == 0)
        let manifest = cli.root + "/seeds.json"
        try Data("""
        {"app": "\(cli.app)", "seeds": [{"source": "\(CLIHarness.seeds)/v2/levels.sqlite", "version": "2", "location": "cache"}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78, "\(result.stderr)")
    }

    @Test func anEntryWithoutALocationCountsAsWhereItsCopyIs() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        // An entry written before locations were recorded.
        let bytes = try #require(cli.bytes(cli.settingsFile))
        var document = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        var table = try #require(document["seeddb"] as? [String: Any])
        var entry = try #require(table["levels.sqlite"] as? [String: Any])
        entry["location"] = nil
        table["levels.sqlite"] = entry
        document["seeddb"] = table
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: cli.settingsFile))
        #expect(try cli.run(["deploy", "--location", "cache"] + cli.seedFlags(1)).status == 64)
        #expect(try cli.run(["deploy", "--location", "data"] + cli.seedFlags(2)).status == 0)
    }

    @Test func keepPreviousFalseRemovesTheExistingPreviousGeneration() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.workingCopy + ".previous"))
        #expect(try cli.run(["reseed", "--keep-previous", "false"] + cli.seedFlags(2)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy + ".previous"))
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 66, "no jump back to 1")
    }

    @Test func anOldRegularFileWorkingCopyBecomesALinkAtItsNextSwap() throws {
        try FileManager.default.createDirectory(atPath: cli.appData, withIntermediateDirectories: true)
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        // Turn the install into one made before generations: a regular file.
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        try FileManager.default.moveItem(atPath: cli.appData + "/levels.sqlite.v1", toPath: cli.workingCopy)
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0, "up to date as a regular file")
        let result = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy) == "levels.sqlite.v2")
        // The old file, fenced (write version 3, change counter advanced): the rest of its
        // bytes are the seed's.
        let previous = try #require(cli.bytes(cli.workingCopy + ".previous"))
        let seed = try #require(cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        let fenceBytes = Set([18] + Array(24..<28) + Array(92..<96))
        #expect(previous[18] == 3)
        #expect(previous.count == seed.count && !zip(previous, seed).enumerated().contains { !fenceBytes.contains($0.offset) && $0.element.0 != $0.element.1 })
        #expect(try cli.run(["rollback"] + cli.seedFlags(2)).status == 0)
        #expect(try cli.levelCount() == 20)
    }

    @Test func oldGenerationsDoNotPileUp() throws {
        for round in 0..<6 {
            #expect(try cli.run(["reseed"] + cli.seedFlags(round % 2 + 1)).status == 0)
        }
        let generations = cli.list(cli.appData).filter { $0.contains(".v") }
        #expect(generations == [cli.generationFile], "\(cli.list(cli.appData))")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func purgeOfAnOwnedInstallWorksWithAndWithoutOwner() throws {
        for withOwner in [true, false] {
            let root = cli.root + "/image-\(withOwner)"
            let owner = ["--owner", "nobody:nogroup"]
            #expect(try cli.run(["deploy", "--system", "--root", root] + owner + cli.seedFlags(1)).status == 0)
            #expect(try cli.run(["deploy", "--system", "--root", root] + owner + cli.seedFlags(2)).status == 0)
            let result = try cli.run(["purge", "--system", "--root", root, "--app", cli.app, "--name", "levels.sqlite"] + (withOwner ? owner : []))
            #expect(result.status == 0, "with owner \(withOwner): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/\(cli.app)"), "\(cli.list(root + "/var/lib/\(cli.app)"))")
        }
    }

    @Test(.enabled(if: PackagingTests.isRoot, "the rule is for root"))
    func aPurgeThatCannotFinishRemovesNothing() throws {
        let root = cli.root + "/image"
        #expect(try cli.run(["deploy", "--system", "--root", root] + cli.seedFlags(1)).status == 0)
        let directory = root + "/var/lib/\(cli.app)"
        let before = cli.list(directory)
        // The settings (in the same directory in system mode) become unsafe for root to write.
        #expect(chmod(directory, 0o777) == 0)
        let result = try cli.run(["purge", "--system", "--root", root, "--app", cli.app, "--name", "levels.sqlite"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(cli.list(directory) == before)
    }

    @Test(arguments: ["levels.sqlite.previous", "levels.sqlite-wal", "levels.sqlite.v3", "levels.sqlite.base", "levels.sqlite.lock"])
    func aNameEndingWithOneOfSeedDBsSuffixesIsRefused(name: String) throws {
        let flags = try cli.run(["deploy", "--name", name] + cli.seedFlags(1))
        #expect(flags.status == 64, "\(name): \(flags.stderr)")
        let manifest = cli.root + "/seeds.json"
        try Data("""
        {"app": "\(cli.app)", "seeds": [{"source": "\(CLIHarness.seeds)/v1/levels.sqlite", "version": "1"},
                                     {"source": "\(CLIHarness.seeds)/v2/levels.sqlite", "version": "2", "name": "\(name)"}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78, "\(name): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData))
    }

    @Test func twoSeedsWithOneNameAreRefusedNamingBoth() throws {
        let manifest = cli.root + "/seeds.json"
        try Data("""
        {"app": "\(cli.app)", "seeds": [{"source": "\(CLIHarness.seeds)/v1/levels.sqlite", "version": "1"},
                                     {"source": "\(CLIHarness.seeds)/v2/levels.sqlite", "version": "2"}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78)
        #expect(result.stderr.contains("seeds[0] and seeds[1]"), "\(result.stderr)")
    }

    @Test func theMergeFlagsAndManifestKeysAreChecked() throws {
        #expect(try cli.run(["deploy", "--merge", "theirs"] + cli.seedFlags(1)).status == 64)
        #expect(try cli.run(["deploy", "--merge-table", "levels"] + cli.seedFlags(1)).status == 64)
        #expect(try cli.run(["deploy", "--merge-table", "levels=mine"] + cli.seedFlags(1)).status == 64)
        let manifest = cli.root + "/seeds.json"
        try Data("""
        {"app": "\(cli.app)", "seeds": [{"source": "\(CLIHarness.seeds)/v1/levels.sqlite", "version": "1", "mergeTables": {"levels": "mine"}}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78)
        #expect(result.stderr.contains("mergeTables.levels"), "\(result.stderr)")
    }
}
