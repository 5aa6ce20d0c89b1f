/// A SHA-256 digest: its 32 bytes, written as 64 lowercase hexadecimal characters.
///
/// The bytes are held in place, not as text: a digest is a plain value that copies,
/// compares and hashes without touching the heap, which the startup check, holding a
/// settings entry with several of them, does many times.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes, eight to a word, in order (the first byte the highest of the first word).
    private let words: Words

    /// The four words of the bytes: a struct, so that equality and hashing are synthesized.
    private struct Words: Hashable, Sendable {
        var first: UInt64 = 0, second: UInt64 = 0, third: UInt64 = 0, fourth: UInt64 = 0

        /// Word `index` (0 to 3).
        subscript(index: Int) -> UInt64 {
            get {
                switch index {
                case 0: first
                case 1: second
                case 2: third
                default: fourth
                }
            }
            set {
                switch index {
                case 0: first = newValue
                case 1: second = newValue
                case 2: third = newValue
                default: fourth = newValue
                }
            }
        }
    }

    /// Validates a hexadecimal digest; upper case is accepted and folded to lower case.
    /// - Throws: ``SeedDBError`` with code `invalidArgument`.
    public init(hex: String) throws(SeedDBError) {
        // Read as contiguous UTF-8 when it is (a digest read from a file always is).
        var text = hex
        guard let digest = text.withUTF8(Self.init(hexDigits:)) else {
            throw SeedDBError(.invalidArgument, "invalid SHA-256 \(NameRules.quoted(hex)): expected 64 hexadecimal characters")
        }
        self = digest
    }

    /// The digest `digits` spell: exactly 64 hexadecimal digits, either case; `nil` for
    /// anything else. For a reader that has the text's bytes (a settings file).
    package init?(hexDigits digits: UnsafeBufferPointer<UInt8>) {
        guard digits.count == 64 else { return nil }
        var words = Words()
        for index in 0..<4 {
            var word: UInt64 = 0
            for digit in digits[(index * 16)..<(index * 16 + 16)] {
                guard let nibble = Hex.value(ofDigit: digit) else { return nil }
                word = word << 4 | UInt64(nibble)
            }
            words[index] = word
        }
        self.words = words
    }

    /// Creates a digest from its raw bytes: exactly 32 of them (a hash function's output;
    /// any other count is a programming error, and traps).
    public init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        var words = Words()
        var count = 0
        for byte in bytes {
            precondition(count < 32, "a SHA-256 digest has 32 bytes")
            words[count / 8] |= UInt64(byte) << (56 - 8 * UInt64(count % 8))
            count += 1
        }
        precondition(count == 32, "a SHA-256 digest has 32 bytes")
        self.words = words
    }

    /// The 64 lowercase hexadecimal characters.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { text in
            // Each word's digits from its last: one shift a digit (the startup check of a
            // `version: auto` seed writes one digest so).
            for offset in 0..<4 {
                var rest = words[offset]
                for index in (offset * 16..<offset * 16 + 16).reversed() {
                    text[index] = Hex.digit(UInt8(truncatingIfNeeded: rest) & 0xF)
                    rest >>= 4
                }
            }
            return 64
        }
    }

    public var description: String { hex }
}
