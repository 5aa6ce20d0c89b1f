import Crypto
import Foundation
import PropertyBased
@testable import SeedDB
import SeedDBCore
import SystemPackage
import Testing

/// The previous generation's base kept as its difference from the previous generation:
/// restored against that very file it is the base, byte for byte, whatever the two sizes
/// (across chunk boundaries, either longer); against any other content it is not; a base
/// the user changed little is a sliver of its size.
@Suite struct BaseDeltaTests {
    /// Sizes around the 1 MiB chunk: empty, small, one chunk and a bit, two and a bit.
    static let size = Gen.int(in: 0...(2 * codecChunkSize + 4099))

    /// `count` pseudo-random bytes from `seed` (a xorshift: fast, and the same every run).
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = (seed &+ 1) &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// A temporary directory holding `files` (name and bytes), for `body`.
    static func inDirectory<Result>(_ files: [String: [UInt8]], _ body: (String) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("basedelta-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, content) in files { try Data(content).write(to: URL(fileURLWithPath: directory + "/" + name)) }
        return try body(directory)
    }

    /// The delta of `base` against `reference`, as bytes.
    static func delta(_ base: String, against reference: String) throws -> [UInt8] {
        var written: [UInt8] = []
        try BaseDelta.opened(base) { base in
            try BaseDelta.opened(reference) { reference in
                try BaseDelta.encode(base, against: reference) { written += $0 }
            }
        }
        return written
    }

    static func sha256(_ bytes: [UInt8]) -> SeedDBCore.SHA256Digest {
        SeedDBCore.SHA256Digest(bytes: Array(SHA256.hash(data: bytes)))
    }

    @Test func restoredAgainstItsReferenceTheDeltaIsTheBase() async {
        await propertyCheck(count: 12, input: Self.size, Self.size, Gen.int(in: 0...1000)) { baseSize, referenceSize, seed in
            // The reference shares the base's bytes but for a run of its own in the middle.
            var base = Self.bytes(baseSize, seed: UInt64(seed))
            let reference = Array(base.prefix(referenceSize)) + Self.bytes(max(0, referenceSize - baseSize), seed: UInt64(seed) + 7)
            if !base.isEmpty { base[base.count / 2] ^= 0x5a }
            try Self.inDirectory(["base": base, "reference": reference]) { directory in
                let delta = try Self.delta(directory + "/base", against: directory + "/reference")
                try Data(delta).write(to: URL(fileURLWithPath: directory + "/delta"))
                let restored = try #require(try BaseDelta.sha256(of: directory + "/delta", against: directory + "/reference"))
                #expect(restored == Self.sha256(base))
                // Written out, byte for byte.
                let output = try FileDescriptor.open(FilePath(directory + "/restored"), .writeOnly, options: [.create], permissions: [.ownerReadWrite])
                _ = try output.closeAfter { try BaseDelta.sha256(of: directory + "/delta", against: directory + "/reference", writingTo: output) }
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: directory + "/restored"))) == base)
            }
        }
    }

    /// The sizes at the chunk's edges and off a word's, each with a reference one byte
    /// shorter and one byte longer.
    @Test(arguments: [1, 7, 8, 9, codecChunkSize - 1, codecChunkSize, codecChunkSize + 1, 2 * codecChunkSize + 3])
    func restoredAtTheEdgesTheDeltaIsTheBase(_ size: Int) throws {
        let base = Self.bytes(size, seed: UInt64(size))
        for reference in [Array(base.dropLast()), base + [9], Array(base.reversed())] {
            try Self.inDirectory(["base": base, "reference": reference]) { directory in
                try Data(try Self.delta(directory + "/base", against: directory + "/reference")).write(to: URL(fileURLWithPath: directory + "/delta"))
                let restored = try BaseDelta.sha256(of: directory + "/delta", against: directory + "/reference")
                #expect(restored == Self.sha256(base), "size \(size), reference \(reference.count) bytes")
            }
        }
    }

    @Test func againstAnyOtherContentItIsNotTheBase() async {
        await propertyCheck(count: 12, input: Gen.int(in: 1...(2 * codecChunkSize)), Gen.int(in: 0...1000)) { size, seed in
            let base = Self.bytes(size, seed: UInt64(seed))
            var other = base
            other[(seed * 7919) % size] ^= 1
            try Self.inDirectory(["base": base, "reference": base, "other": other]) { directory in
                let delta = try Self.delta(directory + "/base", against: directory + "/reference")
                try Data(delta).write(to: URL(fileURLWithPath: directory + "/delta"))
                #expect(try BaseDelta.sha256(of: directory + "/delta", against: directory + "/other") != Self.sha256(base))
            }
        }
    }

    @Test func aBaseTheUserChangedLittleIsASliver() throws {
        // 3 MiB of random bytes (they do not compress), a reference with 4 KiB changed.
        let base = Self.bytes(3 << 20, seed: 42)
        var edited = base
        for offset in 1_000_000..<1_004_096 { edited[offset] ^= 0xff }
        let unrelated = Self.bytes(3 << 20, seed: 43)
        try Self.inDirectory(["base": base, "edited": edited, "unrelated": unrelated]) { directory in
            let delta = try Self.delta(directory + "/base", against: directory + "/edited")
            #expect(delta.count < 16 * 1024, "\(delta.count) bytes")
            // Against unrelated content, about the base's own size: no more than a second name keeps.
            let whole = try Self.delta(directory + "/base", against: directory + "/unrelated")
            #expect(whole.count > base.count * 99 / 100 && whole.count < base.count * 101 / 100, "\(whole.count) bytes")
        }
    }

    @Test func aDeltaThatIsNotZstdDataRestoresNothing() throws {
        try Self.inDirectory(["delta": Array("not zstd".utf8), "reference": [1, 2, 3]]) { directory in
            let restored = try BaseDelta.sha256(of: directory + "/delta", against: directory + "/reference")
            #expect(restored == nil)
        }
    }
}
