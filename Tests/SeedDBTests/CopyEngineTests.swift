import Crypto
import Foundation
@testable import SeedDB
import SystemPackage
import Testing

@Suite struct CopyEngineTests {
    let directory = TemporaryDirectory()

    static let payload: [UInt8] = (0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }

    static var expectedDigest: String {
        SeedDBCore.SHA256Digest(bytes: SHA256.hash(data: payload)).hex
    }

    func copy(from input: FileDescriptor, hashing: CopyEngine.Hashing = .source(prefix: [])) throws -> (CopyEngine.Result, [UInt8]) {
        let output = try FileDescriptor.open(FilePath(directory.file("out")), .readWrite, options: [.create, .truncate], permissions: .ownerReadWrite)
        defer { try? output.close() }
        var flushed = false
        let result = try CopyEngine.copy(from: input, to: output, total: Int64(Self.payload.count), hashing: hashing, progress: nil) { () throws(SeedDBError) in
            flushed = true
        }
        #expect(flushed, "the overlapped step ran")
        return (result, [UInt8](FileManager.default.contents(atPath: directory.file("out")) ?? Data()))
    }

    @Test func kernelCopyHashesTheSourceInTheSamePass() throws {
        _ = FileManager.default.createFile(atPath: directory.file("in"), contents: Data(Self.payload))
        let input = try FileDescriptor.open(FilePath(directory.file("in")), .readOnly)
        defer { try? input.close() }
        let (result, bytes) = try copy(from: input)
        #expect(result.size == Int64(Self.payload.count))
        #expect(result.digest?.hex == Self.expectedDigest)
        #expect(bytes == Self.payload)
    }

    @Test func kernelCopyOfAKnownSourceHashesNothing() throws {
        _ = FileManager.default.createFile(atPath: directory.file("in"), contents: Data(Self.payload))
        let input = try FileDescriptor.open(FilePath(directory.file("in")), .readOnly)
        defer { try? input.close() }
        let (result, bytes) = try copy(from: input, hashing: .none)
        #expect(result.kernelMade)
        #expect(result.digest == nil)
        #expect(bytes == Self.payload)
    }

    @Test func aKnownSeedIsCopiedWithItsRememberedDigest() throws {
        // Given a seed whose digest is remembered for its identity
        _ = FileManager.default.createFile(atPath: directory.file("in"), contents: Data(Self.payload))
        let identity = try FileDigest.identity(ofFileAt: directory.file("in"))
        let remembered = SourceDigest(identity: identity, sha256: try SeedDBCore.SHA256Digest(hex: String(repeating: "ab", count: 32)))
        let output = try FileDescriptor.open(FilePath(directory.file("out")), .readWrite, options: [.create, .truncate], permissions: .ownerReadWrite)
        defer { try? output.close() }

        // When it is copied, the copy takes that digest without reading anything back
        let copy = try SeedSource(path: directory.file("in")).copy(to: output, destinationPath: directory.file("out"), known: remembered, progress: nil)
        #expect(copy.digest == remembered.sha256)
        #expect(copy.identity == identity)

        // and `rereads` (--integrity full) reads it back and finds the difference
        try output.seek(offset: 0, from: .start)
        _ = try output.resize(to: 0)
        #expect(throws: SeedDBError.self) {
            _ = try SeedSource(path: directory.file("in")).copy(to: output, destinationPath: directory.file("out"), known: remembered, rereads: true, progress: nil)
        }
    }

    @Test func fallsBackToReadAndWriteWhereTheKernelCannotCopy() throws {
        // copy_file_range refuses a pipe: the read/write fallback must take over from byte 0.
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close() }
        let feeder = Thread {
            _ = try? writer.writeAll(Self.payload)
            try? writer.close()
        }
        feeder.start()
        let (result, bytes) = try copy(from: reader, hashing: .none)
        #expect(result.size == Int64(Self.payload.count))
        #expect(!result.kernelMade)
        #expect(result.digest?.hex == Self.expectedDigest, "a copy through user space hashes what it passes")
        #expect(bytes == Self.payload)
    }

    @Test(arguments: [SeedCompression.zstd, .gzip])
    func codecsRoundTripInChunks(_ compression: SeedCompression) throws {
        var encoder = try #require(try compression.encoder())
        var compressed: [UInt8] = []
        for chunk in stride(from: 0, to: Self.payload.count, by: 100_000) {
            try Self.payload[chunk..<min(chunk + 100_000, Self.payload.count)].withUnsafeBytes { try encoder.process($0) { compressed += $0 } }
        }
        try encoder.finish { compressed += $0 }
        #expect(compressed.count < Self.payload.count)

        var decoder = try #require(try compression.decoder())
        var restored: [UInt8] = []
        for chunk in stride(from: 0, to: compressed.count, by: 7_777) {
            try compressed[chunk..<min(chunk + 7_777, compressed.count)].withUnsafeBytes { try decoder.process($0) { restored += $0 } }
        }
        try decoder.finish { restored += $0 }
        #expect(restored == Self.payload)

        // Cut short: the decoder says so instead of returning a short result quietly.
        var truncated = try #require(try compression.decoder())
        try compressed.prefix(compressed.count / 2).withUnsafeBytes { try truncated.process($0) { _ in } }
        #expect(throws: (any Error).self) { try truncated.finish { _ in } }
    }
}
