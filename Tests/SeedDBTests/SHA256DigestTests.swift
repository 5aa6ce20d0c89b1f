import PropertyBased
import SeedDBCore
import Testing

/// A digest holds its 32 bytes in place: made from bytes or from their hex, in either
/// case, it is the same digest, writes the same lowercase hex, and equals another digest
/// exactly when their bytes are equal.
@Suite struct SHA256DigestTests {
    static let bytes = Gen.int(in: 0...255).map(UInt8.init).array(of: 32...32)

    /// The hex as `Hex.encode` writes it, byte by byte.
    @Test func anyBytesReadBackFromTheirHex() async {
        await propertyCheck(count: 500, input: Self.bytes, Self.bytes) { bytes, others throws in
            let digest = SHA256Digest(bytes: bytes)
            #expect(digest.hex == Hex.encode(bytes))
            #expect(try SHA256Digest(hex: digest.hex) == digest)
            #expect(try SHA256Digest(hex: digest.hex.uppercased()) == digest)
            #expect((SHA256Digest(bytes: others) == digest) == (others == bytes))
            // One byte changed anywhere makes another digest.
            var changed = bytes
            changed[Int(others[0]) % 32] ^= 1 << (others[1] % 8)
            #expect(SHA256Digest(bytes: changed) != digest)
            #expect(Set([digest, SHA256Digest(bytes: bytes)]).count == 1)
        }
    }
}
