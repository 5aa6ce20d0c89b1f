import Crypto
import Foundation
import SeedDBCore
import SystemPackage

/// A minisign public key: a key id and an Ed25519 public key, in the file format
/// `minisign -G` writes (`untrusted comment: minisign public key <ID>`, then the base64 of
/// `Ed`, the key id and the 32-byte key).
///
/// A trusted key in ``DeployConfiguration/trustedKeys``; its signatures are checked with
/// swift-crypto's `Curve25519.Signing`.
public struct MinisignPublicKey: Hashable, Sendable {
    /// The key id every signature made with the matching secret key carries.
    public let keyID: MinisignKeyID
    /// The Ed25519 public key's 32 bytes.
    let rawKey: [UInt8]

    init(keyID: MinisignKeyID, rawKey: [UInt8]) {
        self.keyID = keyID
        self.rawKey = rawKey
    }

    /// Parses a public key: the text of a `.pub` file, or its base64 line alone (what
    /// `minisign -P` takes).
    ///
    /// - Throws: ``SeedDBError`` `invalidManifest` (a configuration error, exit 78) when
    ///   the text is not a minisign Ed25519 public key.
    public init(text: String, source: String = "public key") throws(SeedDBError) {
        let lines = MinisignFile.lines(Array(text.utf8))
        let line: String?
        switch lines.count {
        case 1: line = lines[0]
        case 2 where lines[0].hasPrefix(MinisignFile.untrustedPrefix): line = lines[1]
        default: line = nil
        }
        guard let line, let bytes = MinisignFile.decode(line, count: 42), bytes.starts(with: MinisignFile.legacyTag) else {
            throw SeedDBError(.invalidManifest, "invalid public key \(source): not a minisign Ed25519 public key (an \"untrusted comment:\" line, then the base64 of 42 bytes starting with \"Ed\")")
        }
        self.init(keyID: MinisignKeyID(bytes[2..<10]), rawKey: Array(bytes[10..<42]))
    }

    /// Reads the public key file at `path` (a symbolic link is followed).
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` (missing, not a regular file, or
    ///   unreadable: exit 66, as any input file that cannot be read), `invalidManifest`
    ///   (not a minisign public key).
    public static func load(_ path: String) throws(SeedDBError) -> MinisignPublicKey {
        let target = FileSystem.resolvingLinks(path)
        let bytes: [UInt8]?
        do throws(SeedDBError) {
            switch try FileSystem.status(at: target, followingLinks: true)?.type {
            case nil: bytes = nil
            case .regular?: bytes = try FileSystem.readFile(at: target)
            // Not opened: a directory's read fails, and a FIFO's open waits for a writer.
            default: throw SeedDBError(.seedUnavailable, "not a regular file")
            }
        } catch {
            // The cause alone: the error's own message names the path again.
            let cause = (error.underlying as? Errno).map(SeedDBError.describe) ?? error.message
            throw SeedDBError(.seedUnavailable, "cannot read public key \(path): \(cause)", underlying: error.underlying)
        }
        guard let bytes else {
            throw SeedDBError(.seedUnavailable, "public key not found: \(path)")
        }
        return try MinisignPublicKey(text: String(decoding: bytes, as: UTF8.self), source: path)
    }

    /// The key's base64 line (what `minisign -P` takes).
    public var base64: String {
        MinisignFile.encode(MinisignFile.legacyTag + keyID.bytes + rawKey)
    }

    /// The key as a `.pub` file, as `minisign -G` writes it.
    public var fileText: String {
        "\(MinisignFile.untrustedPrefix)minisign public key \(keyID)\n\(base64)\n"
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
