import Foundation
import SeedDBCore

/// A manifest whose detached minisign signature (`<manifest>.minisig`) a trusted key
/// verified, and what the signature vouches for.
///
/// The signature covers the manifest file's exact bytes, and the manifest carries every
/// seed's `sha256`: one signature covers every byte SeedDB deploys. The seed's digest is
/// checked by the copy that deploys it, which hashes the seed in the same pass (no second
/// read of the seed).
public struct SignedManifest: Sendable {
    /// The manifest, parsed from the bytes that were verified.
    public var manifest: Manifest
    /// The manifest's path.
    public var path: String
    /// The signer's key id and the manifest's serial (0 when it has none).
    public var signature: SeedSignature
    /// The signature as read.
    public var minisig: MinisignSignature

    /// Reads the manifest at `path` and its signature beside it, and checks them against
    /// `trustedKeys`.
    ///
    /// Refused (``SeedDBError/Code/untrustedSeed``, exit 65), each with one line naming the
    /// manifest, the key id and what failed: no signature, a malformed signature, a key not
    /// trusted, a signature that does not match the bytes, an expired manifest.
    ///
    /// - Parameter now: The time `expires` is compared with.
    /// - Throws: ``SeedDBError`` `untrustedSeed` as above, `invalidManifest` (the signed
    ///   bytes are not a valid manifest, or a seed has no `sha256`), `seedUnavailable`.
    public static func verify(_ path: String, trustedKeys: [MinisignPublicKey], now: Date = Date()) throws(SeedDBError) -> SignedManifest {
        let target = FileSystem.resolvingLinks(path)
        let (bytes, minisig) = try checkSignature(path, target: target, trustedKeys: trustedKeys)
        let manifest: Manifest
        do {
            manifest = try Manifest(parsing: bytes, folder: FileSystem.directory(of: target))
        } catch {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path): \(error.message)")
        }
        try requireDigests(manifest, path: path)
        if let expires = manifest.expires, let date = Manifest.date(iso8601: expires), date <= now {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(minisig.keyID)): it expired on \(expires)")
        }
        var signed = manifest
        for index in signed.seeds.indices { signed.seeds[index].manifest = path }
        return SignedManifest(manifest: signed, path: path, signature: SeedSignature(keyID: minisig.keyID.description, serial: manifest.serial ?? 0), minisig: minisig)
    }

    /// Checks the signature of the manifest file at `path` against `trustedKeys`, without
    /// reading it as a manifest: bytes that are not even valid JSON are refused as a bad
    /// signature (65) first, when a key would have to vouch for them.
    ///
    /// - Throws: ``SeedDBError`` `untrustedSeed` as ``verify(_:trustedKeys:now:)``,
    ///   `seedUnavailable`.
    public static func requireSignature(_ path: String, trustedKeys: [MinisignPublicKey]) throws(SeedDBError) {
        _ = try checkSignature(path, target: FileSystem.resolvingLinks(path), trustedKeys: trustedKeys)
    }

    /// The manifest's bytes and their signature, checked.
    private static func checkSignature(_ path: String, target: String, trustedKeys: [MinisignPublicKey]) throws(SeedDBError) -> (bytes: [UInt8], signature: MinisignSignature) {
        guard let bytes = try FileSystem.readFile(at: target) else {
            throw SeedDBError(.seedUnavailable, "manifest not found: \(path)")
        }
        let trusted = trustedKeys.map(\.keyID.description).joined(separator: ", ")
        let signaturePath = try signaturePath(of: path, target: target)
        guard let signatureBytes = try signaturePath.flatMap({ (path) throws(SeedDBError) in try FileSystem.readFile(at: path) }) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (unsigned; trusted key ids: \(trusted)): no signature \(path).minisig")
        }
        let minisig: MinisignSignature
        do {
            minisig = try MinisignSignature(bytes: signatureBytes)
        } catch {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id unknown): \(error)")
        }
        guard let key = trustedKeys.first(where: { $0.keyID == minisig.keyID }) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(minisig.keyID)): the key is not trusted (trusted key ids: \(trusted))")
        }
        do {
            try minisig.verify(bytes, with: key)
        } catch {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(minisig.keyID)): \(error)")
        }
        return (bytes, minisig)
    }

    /// Refuses a manifest with a seed that has no `sha256`: a signature of a manifest
    /// vouches for a seed only through its digest.
    /// - Throws: ``SeedDBError`` `invalidManifest` (exit 78).
    static func requireDigests(_ manifest: Manifest, path: String) throws(SeedDBError) {
        if let index = manifest.seeds.firstIndex(where: { $0.expectedSHA256 == nil }) {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path): seeds[\(index)] (\(manifest.seeds[index].name)) has no \"sha256\"; a signed manifest needs one for every seed")
        }
    }

    /// The signature file beside the manifest: `<path>.minisig`, or, for a manifest
    /// reached through a symbolic link, beside the file it points to.
    private static func signaturePath(of path: String, target: String) throws(SeedDBError) -> String? {
        for candidate in [path + ".minisig", target + ".minisig"] {
            let resolved = FileSystem.resolvingLinks(candidate)
            if try FileSystem.fileType(at: resolved) != nil { return resolved }
        }
        return nil
    }
}
