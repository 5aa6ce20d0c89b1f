import CZstd

/// Zstandard through Debian's libzstd: streaming decompression, or compression at
/// level ``level`` with a content checksum.
struct ZstdStream: ByteStream {
    /// The compression level `pack --compress zstd` uses.
    static let level: Int32 = 9

    private final class Context {
        let compressor: OpaquePointer?
        let decompressor: OpaquePointer?
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 16)
        /// Whether the last decompression call ended exactly at a frame's end.
        var atFrameEnd = true

        init(compressing: Bool) throws {
            if compressing {
                compressor = ZSTD_createCCtx()
                decompressor = nil
                guard let compressor else { throw CompressionError(description: "cannot create a zstd compressor") }
                ZSTD_CCtx_setParameter(compressor, ZSTD_c_compressionLevel, ZstdStream.level)
                ZSTD_CCtx_setParameter(compressor, ZSTD_c_checksumFlag, 1)
            } else {
                compressor = nil
                decompressor = ZSTD_createDCtx()
                guard decompressor != nil else { throw CompressionError(description: "cannot create a zstd decompressor") }
            }
        }

        deinit {
            if let compressor { ZSTD_freeCCtx(compressor) }
            if let decompressor { ZSTD_freeDCtx(decompressor) }
            buffer.deallocate()
        }
    }

    private let context: Context

    init(compressing: Bool) throws {
        context = try Context(compressing: compressing)
    }

    mutating func process(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        repeat {
            try step(&source, end: false, output: output)
        } while source.pos < source.size
    }

    mutating func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        if context.compressor != nil {
            try step(&source, end: true, output: output)
        } else if !context.atFrameEnd {
            throw CompressionError(description: "zstd data is truncated")
        }
    }

    /// One round of the codec until it has consumed `source` (and, at the end, flushed).
    private func step(_ source: inout ZSTD_inBuffer, end: Bool, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        while true {
            var target = ZSTD_outBuffer(dst: context.buffer.baseAddress, size: context.buffer.count, pos: 0)
            let result: Int
            if let compressor = context.compressor {
                result = ZSTD_compressStream2(compressor, &target, &source, end ? ZSTD_e_end : ZSTD_e_continue)
            } else {
                result = ZSTD_decompressStream(context.decompressor, &target, &source)
                context.atFrameEnd = result == 0
            }
            if ZSTD_isError(result) != 0 {
                throw CompressionError(description: "zstd: " + String(cString: ZSTD_getErrorName(result)))
            }
            if target.pos > 0 {
                try output(UnsafeRawBufferPointer(rebasing: context.buffer[0..<target.pos]))
            }
            let drained = target.pos < target.size
            if end ? result == 0 : (source.pos == source.size && drained) { return }
        }
    }
}
