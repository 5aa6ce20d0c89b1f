/// A SHA-256 digest in its lowercase hexadecimal form (64 characters).
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 64 lowercase hexadecimal characters.
    public let hex: String

    /// Validates a hexadecimal digest; upper case is accepted and folded to lower case.
    /// - Throws: ``SeedDBError`` with code `invalidArgument`.
    public init(hex: String) throws(SeedDBError) {
        // Read as contiguous UTF-8 when it is (a digest read from a file always is).
        var text = hex
        let (valid, upper) = text.withUTF8 { bytes in
            var upper = false
            for byte in bytes {
                switch byte {
                case 0x30...0x39, 0x61...0x66: continue
                case 0x41...0x46: upper = true
                default: return (false, upper)
                }
            }
            return (bytes.count == 64, upper)
        }
        guard valid else {
            throw SeedDBError(.invalidArgument, "invalid SHA-256 \(NameRules.quoted(hex)): expected 64 hexadecimal characters")
        }
        self.hex = upper ? text.lowercased() : text
    }

    /// Creates a digest from its 32 raw bytes.
    public init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.hex = Hex.encode(bytes)
    }

    public var description: String { hex }
}
