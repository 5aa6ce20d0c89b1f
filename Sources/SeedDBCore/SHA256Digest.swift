/// A SHA-256 digest in its lowercase hexadecimal form (64 characters).
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 64 lowercase hexadecimal characters.
    public let hex: String

    /// Validates a hexadecimal digest; upper case is accepted and folded to lower case.
    /// - Throws: ``SeedDBError`` with code `invalidArgument`.
    public init(hex: String) throws(SeedDBError) {
        let lowered = hex.lowercased()
        guard lowered.utf8.count == 64,
              lowered.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw SeedDBError(.invalidArgument, "invalid SHA-256 \(NameRules.quoted(hex)): expected 64 hexadecimal characters")
        }
        self.hex = lowered
    }

    /// Creates a digest from its 32 raw bytes.
    public init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.hex = Hex.encode(bytes)
    }

    public var description: String { hex }
}
