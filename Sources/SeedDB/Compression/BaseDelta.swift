import Crypto
import SeedDBCore
import SystemPackage

/// The previous generation's merge base kept as its difference from the previous
/// generation (`<name>.previous.base.xor.zst`): zstd over the base's bytes XOR the
/// reference's bytes at the same offsets (zeros past the reference's end).
///
/// The previous generation is the base plus what the user wrote, and SQLite writes a
/// row's change into the pages that hold it, so the difference is zeros but for those
/// pages, whatever the seed holds: a tile set or random rows alike. Memory stays
/// constant (one chunk of each file at a time). Decoding needs the very reference the
/// delta was made against; against any other file it gives other bytes, which the
/// base's recorded digest catches.
enum BaseDelta {
    /// Writes the delta of `base` against `reference` to `output`, compressed.
    static func encode(_ base: FileDescriptor, against reference: FileDescriptor, to output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var encoder = try ZstdStream(compressing: .delta)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 4096)
        let other = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 4096)
        defer { chunk.deallocate(); other.deallocate() }
        var offset: Int64 = 0
        while true {
            let count = try readFully(base, at: offset, into: chunk)
            if count == 0 { break }
            try xor(chunk, count: count, withBytesOf: reference, at: offset, using: other)
            try encoder.process(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), output: output)
            offset += Int64(count)
        }
        try encoder.finish(output: output)
    }

    /// Decodes the delta in `delta` against `reference`, calling `body` with each chunk
    /// of the base in order.
    /// - Throws: ``CompressionError`` when `delta` is not whole zstd data.
    static func decode(_ delta: FileDescriptor, against reference: FileDescriptor, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var decoder = try ZstdStream(compressing: nil)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 4096)
        let other = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 4096)
        defer { chunk.deallocate(); other.deallocate() }
        var offset: Int64 = 0
        func restore(_ difference: UnsafeRawBufferPointer) throws {
            // The decoder's chunks are at most its buffer's size, the same as this one's.
            precondition(difference.count <= chunk.count, "a zstd output chunk larger than codecChunkSize")
            chunk.copyMemory(from: difference)
            try xor(chunk, count: difference.count, withBytesOf: reference, at: offset, using: other)
            try body(UnsafeRawBufferPointer(rebasing: chunk[0..<difference.count]))
            offset += Int64(difference.count)
        }
        try FileSystem.forEachChunk(of: delta) { compressed in try decoder.process(compressed, output: restore) }
        try decoder.finish(output: restore)
    }

    /// The SHA-256 of the base the delta at `path` restores against the file at
    /// `reference`, which is written to `output` when one is given; `nil` when the delta
    /// is not whole zstd data.
    static func sha256(of path: String, against reference: String, writingTo output: FileDescriptor? = nil) throws -> SeedDBCore.SHA256Digest? {
        try opened(path) { delta in
            try opened(reference) { reference in
                var hasher = SHA256()
                do {
                    try decode(delta, against: reference) { chunk in
                        hasher.update(bufferPointer: chunk)
                        if let output { _ = try output.writeAll(chunk) }
                    }
                } catch is CompressionError {
                    return nil
                }
                return SeedDBCore.SHA256Digest(bytes: hasher.finalize())
            }
        }
    }

    /// `body` with the file at `path` open for reading.
    static func opened<Result>(_ path: String, _ body: (FileDescriptor) throws -> Result) throws -> Result {
        let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        return try descriptor.closeAfter { try body(descriptor) }
    }

    /// XORs the first `count` bytes of `chunk` with `reference`'s bytes at `offset`
    /// (read into `scratch`; zeros past its end).
    private static func xor(_ chunk: UnsafeMutableRawBufferPointer, count: Int, withBytesOf reference: FileDescriptor, at offset: Int64, using scratch: UnsafeMutableRawBufferPointer) throws {
        let available = try readFully(reference, at: offset, into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]))
        let words = available / 8
        let target = chunk.baseAddress!, source = UnsafeRawPointer(scratch.baseAddress!)
        for word in 0..<words {
            let mixed = target.load(fromByteOffset: word * 8, as: UInt64.self) ^ source.load(fromByteOffset: word * 8, as: UInt64.self)
            target.storeBytes(of: mixed, toByteOffset: word * 8, as: UInt64.self)
        }
        for byte in (words * 8)..<available {
            chunk[byte] ^= scratch[byte]
        }
    }

    /// Reads from `offset` until `buffer` is full or the file ends; the bytes read.
    private static func readFully(_ descriptor: FileDescriptor, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var total = 0
        while total < buffer.count {
            let count = try descriptor.read(fromAbsoluteOffset: offset + Int64(total), into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
            if count == 0 { break }
            total += count
        }
        return total
    }
}
