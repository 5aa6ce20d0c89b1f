import Foundation
@testable import SeedDB
import SeedDBCore
import Testing

/// The seed file's identity and digest in a settings entry's `"source"`.
@Suite struct SourceDigestTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test func theChangeTimeIsPartOfTheIdentityAndRoundTrips() throws {
        let identity = FileIdentity(device: 2049, inode: 1234, size: 8192, modifiedNanoseconds: 1_763_769_104_123_456_789, changedNanoseconds: 1_763_769_105_000_000_001)
        var entry = SettingsEntry()
        entry.source = SourceDigest(identity: identity, sha256: try SHA256Digest(hex: Self.digest))
        let object = try #require(entry.json.object?["source"]?.object)
        #expect(object["changed"]?.integer == 1_763_769_105_000_000_001)
        let decoded = try SettingsEntry.decoding(entry.json.prettyPrinted)
        #expect(decoded.source == entry.source)

        var touched = identity
        touched.changedNanoseconds += 1
        #expect(touched != identity, "a write that restored the modification time still changes the identity")
    }

    @Test func anEntryWrittenWithoutTheChangeTimeIsACacheMiss() throws {
        let json = #"{"source": {"device": 2049, "inode": 1234, "size": 8192, "modified": 1763769104123456789, "sha256": "\#(Self.digest)"}}"#
        let entry = try SettingsEntry.decoding(Array(json.utf8))
        #expect(entry.source == nil)
    }

    @Test func aMistypedChangeTimeIsReported() throws {
        let json = #"{"source": {"device": 2049, "inode": 1234, "size": 8192, "modified": 1, "changed": "x", "sha256": "\#(Self.digest)"}}"#
        #expect(throws: SettingsEntry.ShapeError.self) { try SettingsEntry.decoding(Array(json.utf8)) }
    }

    @Test func theIdentityOfAFileHasItsChangeTime() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("seed", "x")
        let identity = try FileDigest.identity(ofFileAt: path)
        #expect(identity.changedNanoseconds > 0 && identity.size == 1)
    }
}

extension SettingsEntry {
    /// The entry whose JSON object is `object`, read as the settings store reads one.
    ///
    /// - Throws: The ``ShapeError`` naming the field missing or mistyped, or
    ///   ``SeedDBError`` for text that is not JSON.
    static func decoding(_ object: [UInt8]) throws -> SettingsEntry {
        try JSONValue.reading(object[...], rules: .lenient) { (parser) throws(SeedDBError) in try read(&parser, depth: 0) }.get()
    }
}
