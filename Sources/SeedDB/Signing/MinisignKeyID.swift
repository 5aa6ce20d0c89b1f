import SeedDBCore

/// A minisign key id: 8 random bytes a key pair is made with, stored in its public key,
/// its secret key and every signature it makes.
public struct MinisignKeyID: Hashable, Sendable, CustomStringConvertible {
    /// The 8 bytes as the files store them.
    public let bytes: [UInt8]

    /// Wraps the 8 bytes of a key id.
    init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == 8, "a minisign key id has 8 bytes")
        self.bytes = Array(bytes)
    }

    /// A new random key id.
    static func random() -> MinisignKeyID {
        var generator = SystemRandomNumberGenerator()
        return MinisignKeyID((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// As minisign prints it (`minisign public key D762126178BEF898`): the bytes read as a
    /// little-endian 64-bit number, in upper-case hex digits, without leading zeros (minisign
    /// formats it with `%" PRIX64`, so one key in sixteen shows 15 digits or fewer).
    public var description: String {
        let value = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(value, radix: 16, uppercase: true)
    }
}
