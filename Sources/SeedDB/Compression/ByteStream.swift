import SeedDBCore

/// A streaming transformation of bytes: a decompressor or a compressor.
///
/// Memory stays constant: each call produces output in fixed-size chunks handed to
/// `output`, never the whole result.
protocol ByteStream {
    /// Feeds `input`, calling `output` with each chunk produced.
    mutating func process(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Ends the stream, flushing what remains.
    /// - Throws: ``CompressionError`` when the input ended in the middle of a frame.
    mutating func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws
}

/// Corrupt or truncated compressed data, or a codec that failed.
struct CompressionError: Error, CustomStringConvertible {
    var description: String
}

extension SeedCompression {
    /// A decompressor for this format; `nil` for ``SeedCompression/none``.
    func decoder() throws -> (any ByteStream)? {
        switch self {
        case .none: return nil
        case .zstd: return try ZstdStream(compressing: nil)
        case .gzip: return try GzipStream(compressing: false)
        }
    }

    /// A compressor for this format; `nil` for ``SeedCompression/none``.
    func encoder() throws -> (any ByteStream)? {
        switch self {
        case .none: return nil
        case .zstd: return try ZstdStream(compressing: .pack)
        case .gzip: return try GzipStream(compressing: true)
        }
    }
}

/// The size of the output chunks codecs produce.
let codecChunkSize = 1 << 20
