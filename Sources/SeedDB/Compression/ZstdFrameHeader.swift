import SystemPackage

/// The decompressed size a Zstandard frame declares in its header (`Frame_Content_Size`,
/// RFC 8878 §3.1.1.1), for the progress of a `.zst` seed's copy: `zstd` and
/// `seeddb pack` write it when they know the input's size.
enum ZstdFrameHeader {
    /// The most bytes a frame header takes: magic (4), descriptor (1), window (1),
    /// dictionary id (4), content size (8).
    static let maximumLength = 18

    /// The content size the first frame of `file` declares, read with `pread` (the file's
    /// offset does not move); `nil` when the header does not say or cannot be read.
    static func contentSize(of file: FileDescriptor) -> Int64? {
        var bytes = [UInt8](repeating: 0, count: maximumLength)
        let count = (try? bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }) ?? 0
        return contentSize(header: Array(bytes.prefix(count)))
    }

    /// The content size `header` (a frame's first bytes) declares, or `nil`.
    static func contentSize(header: [UInt8]) -> Int64? {
        guard header.count >= 5, header[0] == 0x28, header[1] == 0xB5, header[2] == 0x2F, header[3] == 0xFD else { return nil }
        let descriptor = header[4]
        let singleSegment = descriptor & 0x20 != 0
        let fieldSize: Int
        switch descriptor >> 6 {
        case 0: fieldSize = singleSegment ? 1 : 0
        case 1: fieldSize = 2
        case 2: fieldSize = 4
        default: fieldSize = 8
        }
        guard fieldSize > 0 else { return nil }
        let dictionaryIDSize = [0, 1, 2, 4][Int(descriptor & 0x03)]
        let start = 5 + (singleSegment ? 0 : 1) + dictionaryIDSize
        guard header.count >= start + fieldSize else { return nil }
        var value: UInt64 = 0
        for (shift, byte) in header[start..<start + fieldSize].enumerated() {
            value |= UInt64(byte) << (8 * UInt64(shift))
        }
        if fieldSize == 2 { value += 256 }
        return Int64(exactly: value)
    }
}
