import Foundation
import SeedDBCore

/// A minisign signature file (`<file>.minisig`): the signature of a file's bytes (or, in
/// the prehashed form, of their BLAKE2b-512) and a trusted comment, itself signed with the
/// signature (the "global signature").
///
/// ```
/// untrusted comment: signature from minisign secret key
/// <base64 of: "Ed" or "ED", key id (8), Ed25519 signature (64)>
/// trusted comment: app:com.example.levels	serial:3	file:seeds.json
/// <base64 of: Ed25519 signature (64) of the signature followed by the trusted comment>
/// ```
public struct MinisignSignature: Sendable, Hashable {
    /// How the file's bytes are signed.
    public enum Algorithm: Sendable, Hashable {
        /// `Ed`: the bytes themselves (minisign `-l`, the "legacy" form).
        case legacy
        /// `ED`: the BLAKE2b-512 of the bytes, minisign's default since 0.8.
        case prehashed
    }

    /// How the bytes were signed.
    public var algorithm: Algorithm
    /// The key id of the secret key that signed.
    public var keyID: MinisignKeyID
    /// The Ed25519 signature of the bytes (or of their BLAKE2b-512).
    var signature: [UInt8]
    /// The comment line nobody signed.
    public var untrustedComment: String
    /// The signed comment line.
    public var trustedComment: String
    /// The Ed25519 signature of ``signature`` followed by ``trustedComment``.
    var globalSignature: [UInt8]

    init(algorithm: Algorithm, keyID: MinisignKeyID, signature: [UInt8], untrustedComment: String, trustedComment: String, globalSignature: [UInt8]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.signature = signature
        self.untrustedComment = untrustedComment
        self.trustedComment = trustedComment
        self.globalSignature = globalSignature
    }

    /// Why a signature does not verify.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file is not a minisign signature.
        case malformed(String)
        /// It was made by another key than the one checked.
        case otherKey
        /// The signature of the bytes does not verify: they, or it, were changed.
        case badSignature
        /// The trusted comment's signature does not verify: it was changed.
        case badComment

        public var description: String {
            switch self {
            case .malformed(let reason): return "the signature file is malformed: \(reason)"
            case .otherKey: return "the key is not trusted"
            case .badSignature: return "the signature does not match the manifest's bytes"
            case .badComment: return "the trusted comment's signature does not verify"
            }
        }
    }

    /// Parses the text of a `.minisig` file.
    /// - Throws: ``Failure/malformed(_:)``.
    public init(bytes: [UInt8]) throws(Failure) {
        let lines = MinisignFile.lines(bytes)
        guard lines.count == 4 else { throw .malformed("\(lines.count) \(lines.count == 1 ? "line" : "lines") instead of 4") }
        guard lines[0].hasPrefix(MinisignFile.untrustedPrefix) else { throw .malformed("the first line is not an untrusted comment") }
        guard lines[2].hasPrefix(MinisignFile.trustedPrefix) else { throw .malformed("the third line is not a trusted comment") }
        guard let body = MinisignFile.decode(lines[1], count: 74) else { throw .malformed("the second line is not the base64 of 74 bytes") }
        guard let global = MinisignFile.decode(lines[3], count: 64) else { throw .malformed("the fourth line is not the base64 of 64 bytes") }
        let tag = Array(body[0..<2])
        switch tag {
        case MinisignFile.legacyTag: algorithm = .legacy
        case MinisignFile.prehashedTag: algorithm = .prehashed
        default: throw .malformed("unknown signature algorithm \(NameRules.quoted(String(decoding: tag, as: UTF8.self)))")
        }
        keyID = MinisignKeyID(body[2..<10])
        signature = Array(body[10..<74])
        untrustedComment = String(lines[0].dropFirst(MinisignFile.untrustedPrefix.count))
        trustedComment = String(lines[2].dropFirst(MinisignFile.trustedPrefix.count))
        globalSignature = global
    }

    /// The signature as a `.minisig` file.
    public var fileText: String {
        let tag = algorithm == .legacy ? MinisignFile.legacyTag : MinisignFile.prehashedTag
        return """
        \(MinisignFile.untrustedPrefix)\(untrustedComment)
        \(MinisignFile.encode(tag + keyID.bytes + signature))
        \(MinisignFile.trustedPrefix)\(trustedComment)
        \(MinisignFile.encode(globalSignature))

        """
    }

    /// What is signed for `message`: the bytes, or their BLAKE2b-512.
    static func signedBytes(of message: [UInt8], _ algorithm: Algorithm) throws(SeedDBError) -> [UInt8] {
        switch algorithm {
        case .legacy: return message
        case .prehashed: return try Sodium.loaded(for: "a prehashed (ED) minisign signature").blake2b(message, length: 64)
        }
    }

    /// Checks that `key` signed `message` and this signature's trusted comment, as
    /// `minisign -V` does.
    ///
    /// - Throws: ``Failure``; ``SeedDBError`` when a prehashed signature needs libsodium
    ///   and it is missing (wrapped in `.malformed`).
    public func verify(_ message: [UInt8], with key: MinisignPublicKey) throws(Failure) {
        guard key.keyID == keyID else { throw .otherKey }
        let signed: [UInt8]
        do {
            signed = try Self.signedBytes(of: message, algorithm)
        } catch {
            throw .malformed(error.message)
        }
        guard key.isValidSignature(signature, for: signed) else { throw .badSignature }
        guard key.isValidSignature(globalSignature, for: signature + Array(trustedComment.utf8)) else { throw .badComment }
    }
}
