import Crypto
import Foundation
import SeedDBCore

/// A minisign secret key, in the file format `minisign -G` writes: the base64 of
///
/// | bytes | field |
/// |---|---|
/// | 2 | `Ed`, the signature algorithm |
/// | 2 | `Sc` (scrypt: the key is encrypted with a passphrase) or two zero bytes (it is not, `-W`) |
/// | 2 | `B2`, the checksum algorithm (BLAKE2b-256) |
/// | 32 | the scrypt salt |
/// | 8 + 8 | scrypt's `opslimit` and `memlimit`, little-endian |
/// | 104 | the key id (8), the Ed25519 secret key (64: seed, then public key) and the checksum (32) of `Ed`, key id and secret key; XORed with scrypt's output when encrypted |
///
/// Signing uses swift-crypto's `Curve25519.Signing`; the checksum and the encryption use
/// libsodium (see `Sodium`), as minisign does.
public struct MinisignSecretKey: Sendable {
    /// The key id.
    public let keyID: MinisignKeyID
    /// The Ed25519 key.
    private let key: Curve25519.Signing.PrivateKey

    /// minisign's scrypt limits for a new key (libsodium's `…_SENSITIVE`): about a second
    /// and 1 GiB of memory per use, which is what makes a stolen key file hard to crack.
    static let opslimit: UInt64 = 33_554_432
    static let memlimit: UInt64 = 1_073_741_824

    private init(keyID: MinisignKeyID, key: Curve25519.Signing.PrivateKey) {
        self.keyID = keyID
        self.key = key
    }

    /// A new random key pair.
    public static func generate() -> MinisignSecretKey {
        MinisignSecretKey(keyID: .random(), key: Curve25519.Signing.PrivateKey())
    }

    /// The matching public key.
    public var publicKey: MinisignPublicKey {
        MinisignPublicKey(keyID: keyID, rawKey: Array(key.publicKey.rawRepresentation))
    }

    /// Parses the text of a secret key file, asking `passphrase` for the passphrase only
    /// when the key is encrypted.
    ///
    /// - Throws: ``SeedDBError`` `invalidManifest` (not a minisign secret key),
    ///   `invalidArgument` (the passphrase is wrong), or what `passphrase` throws.
    public init(text: String, source: String = "secret key", passphrase: () throws(SeedDBError) -> [UInt8]) throws(SeedDBError) {
        let lines = MinisignFile.lines(Array(text.utf8))
        guard lines.count == 2, lines[0].hasPrefix(MinisignFile.untrustedPrefix), var bytes = MinisignFile.decode(lines[1], count: 158),
              bytes.starts(with: MinisignFile.legacyTag), bytes[4..<6].elementsEqual("B2".utf8)
        else {
            throw SeedDBError(.invalidManifest, "invalid secret key \(source): not a minisign Ed25519 secret key")
        }
        let encrypted: Bool
        switch Array(bytes[2..<4]) {
        case Array("Sc".utf8): encrypted = true
        case [0, 0]: encrypted = false
        default: throw SeedDBError(.invalidManifest, "invalid secret key \(source): unknown key derivation \(Hex.encode(bytes[2..<4]))")
        }
        let sodium = try Sodium.loaded(for: "a minisign secret key")
        if encrypted {
            let opslimit = Self.littleEndian(bytes[38..<46])
            let memlimit = Self.littleEndian(bytes[46..<54])
            let stream = try sodium.scrypt(passphrase: try passphrase(), salt: Array(bytes[6..<38]), opslimit: opslimit, memlimit: memlimit, length: 104)
            for index in 0..<104 { bytes[54 + index] ^= stream[index] }
        }
        let keyID = Array(bytes[54..<62])
        let secret = Array(bytes[62..<126])
        let checksum = Array(bytes[126..<158])
        // minisign 0.11 leaves the checksum of an unencrypted (-W) key zero.
        if encrypted || checksum.contains(where: { $0 != 0 }) {
            guard checksum == Self.checksum(sodium, keyID: keyID, secret: secret) else {
                throw encrypted
                    ? SeedDBError(.invalidArgument, "wrong passphrase for secret key \(source)")
                    : SeedDBError(.invalidManifest, "invalid secret key \(source): its checksum does not match")
            }
        }
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret[0..<32]),
              Array(key.publicKey.rawRepresentation) == Array(secret[32..<64])
        else {
            throw SeedDBError(.invalidManifest, "invalid secret key \(source): its public half does not match its secret half")
        }
        self.init(keyID: MinisignKeyID(keyID), key: key)
    }

    /// Reads the secret key file at `path` (see ``init(text:source:passphrase:)``).
    public static func load(_ path: String, passphrase: () throws(SeedDBError) -> [UInt8]) throws(SeedDBError) -> MinisignSecretKey {
        guard let bytes = try FileSystem.readFile(at: FileSystem.resolvingLinks(path)) else {
            throw SeedDBError(.seedUnavailable, "secret key not found: \(path)")
        }
        return try MinisignSecretKey(text: String(decoding: bytes, as: UTF8.self), source: path, passphrase: passphrase)
    }

    /// The key as a secret key file, encrypted with `passphrase` (minisign's scrypt
    /// limits) or, when it is `nil`, not.
    public func fileText(passphrase: [UInt8]?) throws(SeedDBError) -> String {
        let sodium = try Sodium.loaded(for: "a minisign secret key")
        let secret = Array(key.rawRepresentation) + Array(key.publicKey.rawRepresentation)
        var payload = keyID.bytes + secret + Self.checksum(sodium, keyID: keyID.bytes, secret: secret)
        var header = MinisignFile.legacyTag
        var parameters = [UInt8](repeating: 0, count: 48)
        if let passphrase {
            var generator = SystemRandomNumberGenerator()
            let salt = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            parameters = salt + Self.littleEndianBytes(Self.opslimit) + Self.littleEndianBytes(Self.memlimit)
            let stream = try sodium.scrypt(passphrase: passphrase, salt: salt, opslimit: Self.opslimit, memlimit: Self.memlimit, length: 104)
            for index in 0..<104 { payload[index] ^= stream[index] }
            header += Array("Sc".utf8)
        } else {
            header += [0, 0]
        }
        let bytes = header + Array("B2".utf8) + parameters + payload
        return "\(MinisignFile.untrustedPrefix)minisign \(passphrase == nil ? "" : "encrypted ")secret key\n\(MinisignFile.encode(bytes))\n"
    }

    /// Writes the key pair: the public key to `publicPath` (mode 0644) and the secret key
    /// to `secretPath` (mode 0600), encrypted with `passphrase` unless it is `nil`.
    ///
    /// - Throws: ``SeedDBError`` `cannotCreate` when either file exists (a key is never
    ///   overwritten) or cannot be written.
    public func save(publicKey publicPath: String, secretKey secretPath: String, passphrase: [UInt8]?) throws(SeedDBError) {
        for path in [publicPath, secretPath] where try FileSystem.fileType(at: path) != nil {
            throw SeedDBError(.cannotCreate, "cannot write key \(path): it already exists (a key is never overwritten; move it away first)")
        }
        guard publicPath != secretPath else {
            throw SeedDBError(.invalidArgument, "the public and the secret key cannot both be \(publicPath)")
        }
        let secretText = try fileText(passphrase: passphrase)
        try FileSystem.writeAtomically(Array(secretText.utf8), to: secretPath, permissions: [.ownerReadWrite])
        try FileSystem.writeAtomically(Array(publicKey.fileText.utf8), to: publicPath, permissions: [.ownerReadWrite, .groupRead, .otherRead])
    }

    /// Signs `message` as `minisign -S` does, with `trustedComment` signed along.
    ///
    /// - Parameters:
    ///   - message: The bytes to sign.
    ///   - trustedComment: The comment signed along (`seeddb sign` names the app, serial and file).
    ///   - untrustedComment: The signature file's first line, not signed.
    ///   - algorithm: ``MinisignSignature/Algorithm/legacy`` (the bytes
    ///     themselves, checkable without libsodium) or ``MinisignSignature/Algorithm/prehashed``.
    public func sign(_ message: [UInt8], trustedComment: String, untrustedComment: String = "signature from seeddb secret key", algorithm: MinisignSignature.Algorithm = .legacy) throws(SeedDBError) -> MinisignSignature {
        guard !trustedComment.contains(where: \.isNewline), !untrustedComment.contains(where: \.isNewline) else {
            throw SeedDBError(.invalidArgument, "a signature's comments are one line each")
        }
        let signed = try MinisignSignature.signedBytes(of: message, algorithm)
        do {
            let signature = Array(try key.signature(for: signed))
            let global = Array(try key.signature(for: signature + Array(trustedComment.utf8)))
            return MinisignSignature(algorithm: algorithm, keyID: keyID, signature: signature, untrustedComment: untrustedComment, trustedComment: trustedComment, globalSignature: global)
        } catch {
            throw SeedDBError(.ioFailure, "cannot sign: \(error)")
        }
    }

    /// minisign's checksum: BLAKE2b-256 of `Ed`, the key id and the secret key.
    private static func checksum(_ sodium: Sodium, keyID: [UInt8], secret: [UInt8]) -> [UInt8] {
        sodium.blake2b(MinisignFile.legacyTag + keyID + secret, length: 32)
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func littleEndianBytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
