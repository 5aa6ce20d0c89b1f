import Foundation
import Glibc
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

    /// A name on disk that is not UTF-8 (`w\xFF.sqlite`) is read as `w\u{FFFD}.sqlite`, and
    /// is still not the working copy of that name, a link or a file: the working copy is
    /// absent (the look does not go round, taking the one for a link the other is not).
    @Test func aNameThatIsNotUTF8IsNotTheWorkingCopyItLooksLike() throws {
        let name = try SeedName("w\u{FFFD}.sqlite")
        let lookalike = SeedPaths(
            app: try AppIdentifier("com.example.levels"), name: name, location: .data,
            directories: XDGDirectories(dataHome: directory.path + "/data", cacheHome: directory.path + "/cache", configHome: directory.path + "/config"))
        let raw = Array(lookalike.directory.utf8) + Array("/w".utf8) + [0xFF] + Array(".sqlite".utf8) + [0]
        let made = raw.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { Glibc.symlink("w\u{FFFD}.sqlite.v1", $0.baseAddress!) }
        }
        #expect(made == 0)
        file("w\u{FFFD}.sqlite.v1")
        #expect(try WorkingCopy.inspect(lookalike).state == .absent)
        #expect(try !WorkingCopy.inspect(lookalike).listing().names.contains("w\u{FFFD}.sqlite"))
        _ = raw.withUnsafeBufferPointer { bytes in bytes.withMemoryRebound(to: CChar.self) { Glibc.unlink($0.baseAddress!) } }
        let created = raw.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(created >= 0)
        _ = Glibc.close(created)
        #expect(try WorkingCopy.inspect(lookalike).state == .absent)
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
        let listing = copy.listing()
        let leftovers = Set(copy.leftovers(disposable: [4], in: listing))
        #expect(leftovers == [temporary, paths.inDirectory("levels.sqlite.v4"), paths.inDirectory("levels.sqlite.v4-journal")])
        #expect(Set(copy.leftovers(disposable: [], in: listing)) == [temporary], "a generation nobody proved disposable stays")
    }

    /// The file system tells names apart by their bytes; Swift's `String` comparisons take
    /// `e` + U+0301 for `é`. A working copy named `é.sqlite` (one scalar) must not take the
    /// files of one named `e\u{301}.sqlite` (two) for its own: not its generations, their
    /// sidecars, its temporary files or its adopted copies, and never remove them.
    @Test func anotherWorkingCopysCanonicallyEquivalentNamesAreNotThisOnes() throws {
        let composed = SeedPaths(
            app: try AppIdentifier("com.example.levels"), name: try SeedName("\u{E9}.sqlite"),
            location: .data, directories: XDGDirectories(dataHome: directory.path + "/data", cacheHome: directory.path + "/cache", configHome: directory.path + "/config"))
        let decomposed = "e\u{301}.sqlite"
        #expect(Array(decomposed.utf8) != Array(composed.name.rawValue.utf8) && decomposed == composed.name.rawValue, "Swift calls the two names equal")
        let others = [decomposed + ".v3", decomposed + ".v3-wal", decomposed + ".v5-journal", decomposed + ".adopted-20261126T071500Z",
                      "." + decomposed + ".seeddb-abc.tmp", "." + decomposed + ".seeddb-" + decomposed + ".v4.base.tmp"]
        for name in others {
            #expect(FileManager.default.createFile(atPath: composed.inDirectory(name), contents: Data("x".utf8)))
        }
        let copy = try WorkingCopy.inspect(composed)
        let listing = copy.listing()
        #expect(listing.names.count == others.count)
        #expect(listing.generations.isEmpty && listing.sidecarGenerations.isEmpty && listing.stagedBases.isEmpty)
        #expect(listing.adoptedCopies.isEmpty && !listing.temporaries)
        #expect(copy.leftovers(disposable: [3, 5], in: listing).isEmpty)
        #expect(composed.generationNumber(of: decomposed + ".v3") == nil && composed.adoptedCopyStamp(of: decomposed + ".adopted-1") == nil)
        #expect(FileSystem.staleTemporaryFiles(in: composed.directory, listing: listing.names, stems: [composed.name.rawValue]).isEmpty)
    }
}
