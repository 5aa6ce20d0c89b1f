import Foundation
@testable import SeedDB
import SystemPackage
import Testing

/// A copy notices an interruption between two chunks (so Ctrl-C stops it within a chunk,
/// not at its end), and a compressed seed's progress counts decompressed bytes against
/// the size its Zstandard frame header declares.
@Suite struct InterruptedCopyTests {
    let directory = TemporaryDirectory()

    /// 24 MiB: three kernel chunks.
    private func input(megabytes: Int = 24) throws -> FileDescriptor {
        let bytes = (0..<(megabytes << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }
        _ = FileManager.default.createFile(atPath: directory.file("in"), contents: Data(bytes))
        return try FileDescriptor.open(FilePath(directory.file("in")), .readOnly)
    }

    private func output() throws -> FileDescriptor {
        try FileDescriptor.open(FilePath(directory.file("out")), .readWrite, options: [.create, .truncate], permissions: .ownerReadWrite)
    }

    @Test func aCopyStopsAtTheFirstChunkAfterAnInterruption() throws {
        let input = try input(), output = try output()
        defer { try? input.close(); try? output.close() }
        let reports = Counter()
        #expect(throws: CopyEngine.Failure.self) {
            _ = try CopyEngine.copy(
                from: input, to: output, total: 24 << 20, hashing: .source(prefix: []),
                progress: { _, _ in reports.add() }, whileHashing: {}, isInterrupted: { reports.value >= 1 })
        }
        #expect(reports.value == 1, "stopped after one chunk of \(CopyEngine.kernelChunk) bytes")
        #expect(try output.stat().size <= Int64(CopyEngine.kernelChunk))
    }

    @Test func aSeedCopyInterruptedFailsAsAnInterruption() throws {
        _ = try input()
        let output = try output()
        defer { try? output.close() }
        let error = try #require(throws: SeedDBError.self) {
            _ = try SeedSource(path: directory.file("in")).copy(to: output, destinationPath: directory.file("out"), progress: nil, isInterrupted: { true })
        }
        #expect(error.code == .interrupted)
    }

    @Test func aZstdSeedsProgressCountsDecompressedBytesAgainstItsDeclaredSize() throws {
        _ = try input(megabytes: 3)
        let compressed = directory.file("in.zst")
        let zstd = Process()
        zstd.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        zstd.arguments = ["-q", "-f", directory.file("in"), "-o", compressed]
        try zstd.run()
        zstd.waitUntilExit()
        #expect(zstd.terminationStatus == 0)
        let file = try FileDescriptor.open(FilePath(compressed), .readOnly)
        defer { try? file.close() }
        #expect(ZstdFrameHeader.contentSize(of: file) == 3 << 20)

        let output = try output()
        defer { try? output.close() }
        let last = Last()
        _ = try SeedSource(path: compressed).copy(to: output, destinationPath: directory.file("out"), progress: { last.set($0, $1) })
        #expect(last.value == (3 << 20, 3 << 20))
    }

    @Test func aFrameHeaderWithoutAContentSizeSaysNothing() {
        // Magic, a descriptor with no content-size field and no single segment, a window byte.
        #expect(ZstdFrameHeader.contentSize(header: [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58]) == nil)
        // Single segment, one-byte field: 200.
        #expect(ZstdFrameHeader.contentSize(header: [0x28, 0xB5, 0x2F, 0xFD, 0x20, 200]) == 200)
        // A two-byte field counts from 256.
        #expect(ZstdFrameHeader.contentSize(header: [0x28, 0xB5, 0x2F, 0xFD, 0x60, 0x01, 0x00]) == 257)
        #expect(ZstdFrameHeader.contentSize(header: [0x1F, 0x8B, 0x08, 0x00, 0x00]) == nil, "gzip")
    }
}

/// A count the copy's callbacks share.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// The last progress report.
private final class Last: @unchecked Sendable {
    private let lock = NSLock()
    private var pair: (Int64, Int64) = (0, 0)
    var value: (Int64, Int64) { lock.withLock { pair } }
    func set(_ copied: Int64, _ total: Int64) { lock.withLock { pair = (copied, total) } }
}
