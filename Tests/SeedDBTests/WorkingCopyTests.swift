import Foundation
@testable import SeedDB
import Testing

/// `WorkingCopy` tells each state of the working-copy path apart, follows only SeedDB's own
/// link, never reuses a generation number, and calls only SeedDB's temporary files and
/// the generations it is told are disposable leftovers.
@Suite struct WorkingCopyTests {
    let directory = TemporaryDirectory()
    var paths: SeedPaths {
        SeedPaths(app: try! AppIdentifier("com.example.levels"), name: try! SeedName("levels.sqlite"), location: .data,
                  directories: XDGDirectories(dataHome: directory.path + "/data", cacheHome: directory.path + "/cache", configHome: directory.path + "/config"))
    }

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.path + "/data/com.example.levels", withIntermediateDirectories: true)
    }

    private func file(_ name: String) {
        _ = FileManager.default.createFile(atPath: paths.inDirectory(name), contents: Data("x".utf8))
    }

    private func link(to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: paths.workingCopy, withDestinationPath: target)
    }

    @Test func nothingAFileAndSeedDBsLink() throws {
        #expect(try WorkingCopy.inspect(paths).state == .absent)
        file("levels.sqlite")
        #expect(try WorkingCopy.inspect(paths).state == .file)
        #expect(try WorkingCopy.inspect(paths).contentFile == paths.workingCopy)
        try FileManager.default.removeItem(atPath: paths.workingCopy)
        file("levels.sqlite.v3")
        try link(to: "levels.sqlite.v3")
        let linked = try WorkingCopy.inspect(paths)
        #expect(linked.state == .generation(3))
        #expect(linked.contentFile == paths.inDirectory("levels.sqlite.v3"))
    }

    @Test func whatSeedDBDidNotMakeIsForeign() throws {
        try link(to: "levels.sqlite.v9")
        guard case .foreign(let dangling) = try WorkingCopy.inspect(paths).state else { Issue.record("a dangling link"); return }
        #expect(dangling.contains("does not exist"))
        try FileManager.default.removeItem(atPath: paths.workingCopy)
        file("elsewhere.sqlite")
        try link(to: "elsewhere.sqlite")
        guard case .foreign(let other) = try WorkingCopy.inspect(paths).state else { Issue.record("a foreign link"); return }
        #expect(other.contains("did not make"))
        try FileManager.default.removeItem(atPath: paths.workingCopy)
        try FileManager.default.createDirectory(atPath: paths.workingCopy, withIntermediateDirectories: false)
        #expect(try WorkingCopy.inspect(paths).state == .foreign("a directory"))
        #expect(try WorkingCopy.inspect(paths).contentFile == nil)
    }

    @Test func aRemovedLinkIsTheRecordedGenerationWithoutIt() throws {
        file("levels.sqlite.v2")
        let found = try WorkingCopy.inspect(paths, recordedGeneration: "levels.sqlite.v2")
        #expect(found.state == .generation(2) && found.linkMissing)
        #expect(try WorkingCopy.inspect(paths, recordedGeneration: "levels.sqlite.v5").state == .absent, "a recorded file that is gone")
    }

    @Test func oneReadListsGenerationsTheirSidecarsAdoptedCopiesAndTemporaries() throws {
        file("levels.sqlite.v2")
        file("levels.sqlite.v7")
        file("levels.sqlite.v9-wal")
        file("levels.sqlite.v9-shm")
        file("levels.sqlite.v2-journal")
        file("levels.sqlite.adopted-20261126T071500Z")
        file("levels.sqlite.adopted-20261126T071500Z-wal")
        try link(to: "levels.sqlite.v2")
        let listing = try WorkingCopy.inspect(paths).listing()
        #expect(listing.generations == [2, 7])
        #expect(listing.sidecarGenerations == [2, 9])
        #expect(listing.adoptedCopies == ["20261126T071500Z"])
        #expect(!listing.temporaries)
        file(".levels.sqlite.seeddb-abc.tmp")
        #expect(try WorkingCopy.inspect(paths).listing().temporaries)
    }

    @Test func leftoversAreSeedDBsTemporaryFilesAndDisposableGenerationsOnly() throws {
        file("levels.sqlite.v1")
        file("levels.sqlite.v4")
        file("levels.sqlite.v4-journal")
        file("levels.sqlite.previous")
        try link(to: "levels.sqlite.v1")
        let temporary = FileSystem.temporaryPath(in: paths.directory, stem: "levels.sqlite", kind: "retired")
        _ = FileManager.default.createFile(atPath: temporary, contents: Data())
        let copy = try WorkingCopy.inspect(paths)
        let listing = try copy.listing()
        let leftovers = Set(copy.leftovers(disposable: [4], in: listing))
        #expect(leftovers == [temporary, paths.inDirectory("levels.sqlite.v4"), paths.inDirectory("levels.sqlite.v4-journal")])
        #expect(Set(copy.leftovers(disposable: [], in: listing)) == [temporary], "a generation nobody proved disposable stays")
    }
}
