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

    func copy(from input: FileDescriptor) throws -> (CopyEngine.Result, [UInt8]) {
        let output = try FileDescriptor.open(FilePath(directory.file("out")), .readWrite, options: [.create, .truncate], permissions: .ownerReadWrite)
        defer { try? output.close() }
        var flushed = false
        let result = try CopyEngine.copy(from: input, to: output, total: Int64(Self.payload.count), progress: nil) { () throws(SeedDBError) in
            flushed = true
        }
        #expect(flushed, "the overlapped step ran")
        return (result, [UInt8](FileManager.default.contents(atPath: directory.file("out")) ?? Data()))
    }

    @Test func kernelCopyHashesWhatItWrote() throws {
        _ = FileManager.default.createFile(atPath: directory.file("in"), contents: Data(Self.payload))
        let input = try FileDescriptor.open(FilePath(directory.file("in")), .readOnly)
        defer { try? input.close() }
        let (result, bytes) = try copy(from: input)
        #expect(result.size == Int64(Self.payload.count))
        #expect(result.digest.hex == Self.expectedDigest)
        #expect(bytes == Self.payload)
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
        let (result, bytes) = try copy(from: reader)
        #expect(result.size == Int64(Self.payload.count))
        #expect(result.digest.hex == Self.expectedDigest)
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
