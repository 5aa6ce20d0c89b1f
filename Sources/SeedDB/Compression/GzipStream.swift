import CZlib

/// gzip through Debian's zlib: streaming decompression (several members allowed), or
/// compression at the default level with a header that carries no timestamp (so the
/// output is reproducible).
struct GzipStream: ByteStream {
    private final class Context {
        var stream = z_stream()
        let compressing: Bool
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: codecChunkSize, alignment: 16)
        var atMemberEnd = false

        init(compressing: Bool) throws {
            self.compressing = compressing
            let size = Int32(MemoryLayout<z_stream>.size)
            let status = compressing
                ? deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, size)
                : inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, size)
            guard status == Z_OK else { throw CompressionError(description: "cannot initialise zlib (\(status))") }
        }

        deinit {
            if compressing { deflateEnd(&stream) } else { inflateEnd(&stream) }
            buffer.deallocate()
        }
    }

    private let context: Context

    init(compressing: Bool) throws {
        context = try Context(compressing: compressing)
    }

    mutating func process(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        context.stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        context.stream.avail_in = uInt(input.count)
        try run(flush: Z_NO_FLUSH, output: output)
    }

    mutating func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
        if context.compressing {
            context.stream.next_in = nil
            context.stream.avail_in = 0
            try run(flush: Z_FINISH, output: output)
        } else if !context.atMemberEnd {
            throw CompressionError(description: "gzip data is truncated")
        }
    }

    private func run(flush: Int32, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        while true {
            context.stream.next_out = context.buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            context.stream.avail_out = uInt(context.buffer.count)
            let status = context.compressing ? deflate(&context.stream, flush) : inflate(&context.stream, Z_NO_FLUSH)
            let produced = context.buffer.count - Int(context.stream.avail_out)
            if produced > 0 {
                try output(UnsafeRawBufferPointer(rebasing: context.buffer[0..<produced]))
            }
            switch status {
            case Z_STREAM_END:
                if context.compressing { return }
                context.atMemberEnd = true
                // Another gzip member may follow.
                guard context.stream.avail_in > 0 else { return }
                inflateReset(&context.stream)
                context.atMemberEnd = false
            case Z_OK, Z_BUF_ERROR:
                if !context.compressing && status == Z_OK { context.atMemberEnd = false }
                if context.stream.avail_in == 0 && context.stream.avail_out > 0 { return }
                if status == Z_BUF_ERROR && produced == 0 { return }
            default:
                throw CompressionError(description: "gzip: corrupt data (\(context.stream.msg.map { String(cString: $0) } ?? String(cString: zError(status))))")
            }
        }
    }
}
