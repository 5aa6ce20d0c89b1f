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
    /// `trustedKeys` and the key `pinned` records.
    ///
    /// Refused (``SeedDBError/Code/untrustedSeed``, exit 65), each with one line naming the
    /// manifest, the key id and what failed: no signature (with a pin, the remedy
    /// ``SeedDBError/Remedy/forgetSignature``), a malformed signature, a key neither
    /// trusted nor pinned, a signature that does not match the bytes, an expired manifest.
    ///
    /// - Parameters:
    ///   - path: The manifest; its signature is `<path>.minisig`.
    ///   - trustedKeys: The keys trusted for the manifest's app.
    ///   - pinned: The signature the seed's record pins, if any: its public key verifies
    ///     too, and refusals name it.
    ///   - now: The time `expires` is compared with.
    /// - Returns: The manifest, with ``signature`` naming the key that verified it
    ///   (its public key included, to be pinned).
    /// - Throws: ``SeedDBError`` `untrustedSeed` as above, `invalidManifest` (the signed
    ///   bytes are not a valid manifest, or a seed has no `sha256`), `seedUnavailable`.
    public static func verify(_ path: String, trustedKeys: [MinisignPublicKey], pinned: SeedSignature? = nil, now: Date = Date()) throws(SeedDBError) -> SignedManifest {
        let target = FileSystem.resolvingLinks(path)
        let (bytes, minisig, key) = try checkSignature(path, target: target, trust: Trust(trustedKeys, pinned: pinned))
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
        let signature = SeedSignature(keyID: minisig.keyID.description, serial: manifest.serial ?? 0, publicKey: key.base64)
        return SignedManifest(manifest: signed, path: path, signature: signature, minisig: minisig)
    }

    /// Checks the signature of the manifest file at `path` against `trustedKeys`, without
    /// reading it as a manifest: bytes that are not even valid JSON are refused as a bad
    /// signature (65) first, when a key would have to vouch for them.
    ///
    /// - Throws: ``SeedDBError`` `untrustedSeed` as ``verify(_:trustedKeys:pinned:now:)``,
    ///   `seedUnavailable`.
    public static func requireSignature(_ path: String, trustedKeys: [MinisignPublicKey]) throws(SeedDBError) {
        _ = try checkSignature(path, target: FileSystem.resolvingLinks(path), trust: Trust(trustedKeys, pinned: nil))
    }

    /// The manifest's bytes, their signature, and the key that verified it.
    private static func checkSignature(_ path: String, target: String, trust: Trust) throws(SeedDBError) -> (bytes: [UInt8], signature: MinisignSignature, key: MinisignPublicKey) {
        // Read and checked once per process for the same bytes and keys (``ManifestMemo``).
        let memo = ManifestMemo.shared
        guard let bytes = try memo.read(target) else {
            throw SeedDBError(.seedUnavailable, "manifest not found: \(path)")
        }
        let trusted = trust.description
        let signaturePath = try signaturePath(of: path, target: target)
        guard let signatureBytes = try signaturePath.flatMap({ (path) throws(SeedDBError) in try memo.read(path) }) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (unsigned; \(trusted)): no signature \(path).minisig", remedy: trust.unsignedRemedy)
        }
        let minisig: MinisignSignature
        do {
            minisig = try MinisignSignature(bytes: signatureBytes)
        } catch {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id unknown; \(trusted)): \(error)")
        }
        guard let key = trust.keys.first(where: { $0.keyID == minisig.keyID }) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(minisig.keyID)): the key is not trusted (\(trusted))")
        }
        // Kept by the exact bytes checked: never vouches for other bytes.
        let check = ManifestMemo.CheckKey(manifest: bytes, signature: signatureBytes, key: key)
        if memo.verified(check) { return (bytes, minisig, key) }
        do {
            try minisig.verify(bytes, with: key)
        } catch {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(minisig.keyID)): \(error)")
        }
        memo.remember(check)
        return (bytes, minisig, key)
    }

    /// The keys a signature may be made with, and how a refusal names them.
    struct Trust: CustomStringConvertible {
        /// The keys trusted by configuration.
        var trusted: [MinisignPublicKey]
        /// The signature the seed's record pins.
        var pinned: SeedSignature?

        init(_ trusted: [MinisignPublicKey], pinned: SeedSignature?) {
            self.trusted = trusted
            self.pinned = pinned
        }

        /// The trusted keys, then the pinned one (when its public key is recorded).
        var keys: [MinisignPublicKey] {
            guard let key = pinned?.publicKey.flatMap({ try? MinisignPublicKey(text: $0) }), !trusted.contains(key) else { return trusted }
            return trusted + [key]
        }

        /// The remedy an unsigned manifest's refusal offers: `--forget-signature` only when
        /// the pin alone refuses it (keys trusted by configuration still apply once the pin
        /// is forgotten).
        var unsignedRemedy: SeedDBError.Remedy? {
            pinned != nil && trusted.isEmpty ? .forgetSignature : nil
        }

        /// `pinned key id 7B0460144D009C90; trusted key ids: 8F2F0F871B302A7F`, each part
        /// when there is one (`trusted key ids: none` when there is neither).
        var description: String {
            var parts: [String] = []
            if let pinned { parts.append("pinned key id \(pinned.keyID)\(pinned.publicKey == nil ? " (recorded without its public key)" : "")") }
            if !trusted.isEmpty || parts.isEmpty { parts.append("trusted key ids: \(trusted.isEmpty ? "none" : trusted.map(\.keyID.description).joined(separator: ", "))") }
            return parts.joined(separator: "; ")
        }
    }

    /// The refusal of a seed whose SHA-256 differs from the one the signed manifest at
    /// `path` gives: the same line from the copy that deploys it and from `verify`.
    static func digestRefusal(_ path: String, keyID: String, source: String, actual: SHA256Digest, expected: SHA256Digest) -> SeedDBError {
        SeedDBError(.untrustedSeed, "refusing \(path) (key id \(keyID)): seed \(source) has SHA-256 \(actual), the signed manifest says \(expected)")
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
