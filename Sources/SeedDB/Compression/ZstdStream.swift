import CSeedDBSystem

/// Zstandard through Debian's libzstd (loaded on first use, see ``ZstdLibrary``): streaming
/// decompression, or compression with a content checksum, as a ``Profile`` says.
struct ZstdStream: ByteStream {
    /// How hard a compressor works.
    enum Profile {
        /// `pack --compress zstd`: level 9, once per release, on the publisher's machine.
        case pack
        /// The previous generation's merge base as its difference from the previous
        /// generation (``BaseDelta``), on the user's machine during an upgrade: level 1 with
        /// its own small window. The difference is zeros but for the pages the user wrote,
        /// which need no distant matches: the fastest level, and little memory to compress
        /// or decompress.
        case delta
    }

    private final class Context {
        let zstd: ZstdLibrary
        let compressor: UnsafeMutableRawPointer?
        let decompressor: UnsafeMutableRawPointer?
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 16)
        /// Whether the last decompression call ended exactly at a frame's end.
        var atFrameEnd = true

        init(compressing profile: Profile?) throws {
            zstd = try ZstdLibrary.loaded()
            if let profile {
                compressor = zstd.createCCtx()
                decompressor = nil
                guard let compressor else { throw CompressionError(description: "cannot create a zstd compressor") }
                switch profile {
                case .pack:
                    _ = zstd.setParameter(compressor, Int32(CSEEDDB_ZSTD_C_COMPRESSION_LEVEL), 9)
                case .delta:
                    _ = zstd.setParameter(compressor, Int32(CSEEDDB_ZSTD_C_COMPRESSION_LEVEL), 1)
                }
                _ = zstd.setParameter(compressor, Int32(CSEEDDB_ZSTD_C_CHECKSUM_FLAG), 1)
            } else {
                compressor = nil
                decompressor = zstd.createDCtx()
                guard decompressor != nil else { throw CompressionError(description: "cannot create a zstd decompressor") }
            }
        }

        deinit {
            if let compressor { _ = zstd.freeCCtx(compressor) }
            if let decompressor { _ = zstd.freeDCtx(decompressor) }
            buffer.deallocate()
        }
    }

    private let context: Context

    /// A compressor with `profile`, or a decompressor when it is `nil`.
    /// - Throws: ``SeedDBError`` `seedUnavailable` when `libzstd.so.1` cannot be loaded,
    ///   ``CompressionError`` when the codec cannot start.
    init(compressing profile: Profile?) throws {
        context = try Context(compressing: profile)
    }

    mutating func process(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = cseeddb_zstd_in_buffer(src: input.baseAddress, size: input.count, pos: 0)
        repeat {
            try step(&source, end: false, output: output)
        } while source.pos < source.size
    }

    mutating func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = cseeddb_zstd_in_buffer(src: nil, size: 0, pos: 0)
        if context.compressor != nil {
            try step(&source, end: true, output: output)
        } else if !context.atFrameEnd {
            throw CompressionError(description: "zstd data is truncated")
        }
    }

    /// One round of the codec until it has consumed `source` (and, at the end, flushed).
    private func step(_ source: inout cseeddb_zstd_in_buffer, end: Bool, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        let zstd = context.zstd
        while true {
            var target = cseeddb_zstd_out_buffer(dst: context.buffer.baseAddress, size: context.buffer.count, pos: 0)
            let result: Int
            if let compressor = context.compressor {
                let directive = end ? CSEEDDB_ZSTD_E_END : CSEEDDB_ZSTD_E_CONTINUE
                result = zstd.compressStream2(compressor, &target, &source, Int32(directive))
            } else {
                let consumed = source.pos
                result = zstd.decompressStream(context.decompressor, &target, &source)
                // A call that neither read nor wrote (after a frame ended exactly at a full
                // output buffer) waits for a next frame: the last one still ended.
                if result == 0 || source.pos > consumed || target.pos > 0 { context.atFrameEnd = result == 0 }
            }
            if zstd.failed(result) {
                throw CompressionError(description: "zstd: " + zstd.describe(result))
            }
            if target.pos > 0 {
                try output(UnsafeRawBufferPointer(rebasing: context.buffer[0..<target.pos]))
            }
            let drained = target.pos < target.size
            if end ? result == 0 : (source.pos == source.size && drained) { return }
        }
    }
}
