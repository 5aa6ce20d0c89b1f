import Foundation
@testable import SeedDB
import Testing

/// The I/O primitives that replaced Foundation calls answer as Foundation did.
@Suite struct FileSystemTests {
    let directory = TemporaryDirectory()

    @Test func entriesListsWhatFoundationListsAndNothingWhereNoDirectoryIs() throws {
        for name in ["a", ".hidden", "é.sqlite", "levels.sqlite.v2"] { _ = directory.write(name, "x") }
        try FileManager.default.createDirectory(atPath: directory.path + "/sub", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: "a")
        let listed = try FileSystem.entries(of: directory.path)
        let foundation = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(listed.map(\.name).sorted() == foundation.sorted())
        // Each with its type, as `lstat` gives it (ext4, XFS and tmpfs fill `d_type` in).
        for entry in listed {
            let type = try FileSystem.fileType(at: directory.path + "/" + entry.name)
            #expect(entry.type == type, "\(entry.name)")
        }
        #expect(try FileSystem.entries(of: directory.path + "/missing") == [])
        let file = directory.write("plain", "x")
        #expect(try FileSystem.entries(of: file) == [])
        #expect(try FileSystem.entries(of: file + "/below") == [])
        // A directory that cannot be opened (a loop of links) is an I/O failure.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/loop", withDestinationPath: "loop")
        #expect { try FileSystem.entries(of: directory.path + "/loop") } throws: { ($0 as? SeedDBError)?.code == .ioFailure }
    }

    /// `setMode` sets a file's mode, and never a mode through a symbolic link put in a
    /// file's place (found in review: root's `chmod` in a directory the app's account owns
    /// followed such a link to the file it names, a shipped seed).
    @Test func setModeNeverFollowsALink() throws {
        let file = directory.write("seed.sqlite", "x")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let link = directory.path + "/levels.sqlite.previous"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(throws: SeedDBError.self) { try FileSystem.setMode(0o666, owner: nil, of: link) }
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o644)
        try FileSystem.setMode(0o600, owner: nil, of: file)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
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
        let listed = try FileSystem.entries(of: directory.path).map(\.name)
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
