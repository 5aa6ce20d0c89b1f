import Foundation
@testable import SeedDB
import Testing

/// The I/O primitives that replaced Foundation calls answer as Foundation did.
@Suite struct FileSystemTests {
    let directory = TemporaryDirectory()

    @Test func entriesListsWhatFoundationListsAndNothingForAMissingDirectory() throws {
        for name in ["a", ".hidden", "é.sqlite", "levels.sqlite.v2"] { _ = directory.write(name, "x") }
        try FileManager.default.createDirectory(atPath: directory.path + "/sub", withIntermediateDirectories: false)
        #expect(try FileSystem.entries(of: directory.path).sorted() == FileManager.default.contentsOfDirectory(atPath: directory.path).sorted())
        #expect(try FileSystem.entries(of: directory.path + "/missing") == [])
        let file = directory.write("plain", "x")
        #expect(throws: SeedDBError.self) { try FileSystem.entries(of: file) }
    }

    /// A directory whose listing takes many `getdents64` calls (3,000 names of 200 bytes
    /// and more, some not ASCII, one of 255 bytes): every name once, none invented.
    @Test func entriesReadsADirectoryInManyBatches() throws {
        var names: Set<String> = []
        for number in 0..<3000 {
            let name = (number % 3 == 0 ? "é" : "x") + String(repeating: "n", count: 196) + String(number)
            _ = directory.write(name, "")
            names.insert(name)
        }
        let longest = String(repeating: "l", count: 253) + "é"
        _ = directory.write(longest, "")
        names.insert(longest)
        let listed = try FileSystem.entries(of: directory.path)
        #expect(listed.count == names.count)
        #expect(Set(listed) == names)
    }

    @Test func resolvingLinksAgreesWithFoundation() throws {
        let target = directory.write("seeds.json", "{}")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link.json", withDestinationPath: "seeds.json")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/dangling.json", withDestinationPath: "gone.json")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/dir", withDestinationPath: directory.path)
        let cases = [target, directory.path + "/link.json", directory.path + "/dangling.json", directory.path + "/missing.json",
                     directory.path + "/dir/link.json", directory.path + "/dir/./seeds.json", "relative/name.json"]
        for path in cases {
            #expect(FileSystem.resolvingLinks(path) == URL(fileURLWithPath: path).resolvingSymlinksInPath().path, "\(path)")
        }
        #expect(FileSystem.resolvingLinks(directory.path + "/link.json") == FileSystem.resolvingLinks(target))
    }
}
