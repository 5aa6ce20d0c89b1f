import Foundation
import SeedDBCore

/// Signed seeds: a deploy of an app with trusted keys deploys only what a trusted key
/// signed, and never a lower serial than the one recorded.
extension Deployer {
    /// The keys trusted for `app`: ``DeployConfiguration/trustedKeys`` and the `*.pub`
    /// files in ``DeployConfiguration/trustedKeysDirectory``'s `<app>` subdirectory.
    ///
    /// The directory, its parents and each key must be safe for root (see
    /// `FileSystem.requireSafeForRoot`): one a non-root user can write is refused.
    ///
    /// - Throws: ``SeedDBError`` `untrustedSeed` (an unsafe trust anchor, a key that is not
    ///   a regular file), `invalidManifest` (a key that is not a minisign public key).
    public func trustedKeys(for app: AppIdentifier) throws(SeedDBError) -> [MinisignPublicKey] {
        var keys = configuration.trustedKeys
        guard let base = configuration.trustedKeysDirectory.map(PathText.trimmingTrailingSlashes) else { return keys }
        let directory = base + "/" + app.rawValue
        guard let type = try FileSystem.fileType(at: directory) else { return keys }
        guard type == .directory else {
            throw SeedDBError(.untrustedSeed, "refusing the trusted keys of \(app): \(directory) is not a directory")
        }
        // Whoever can write the directory or a parent could plant a key.
        var ancestor = directory
        var sticky = false
        while true {
            try Self.requireSafeAnchor(ancestor, sticky: sticky)
            if ancestor == base { sticky = true }
            guard ancestor != "/", !ancestor.isEmpty else { break }
            ancestor = FileSystem.directory(of: ancestor)
        }
        for name in try FileSystem.entries(of: directory).sorted() where name.hasSuffix(".pub") {
            let path = directory + "/" + name
            guard try FileSystem.fileType(at: path) == .regular else {
                throw SeedDBError(.untrustedSeed, "refusing the trusted keys of \(app): \(path) is not a regular file")
            }
            try Self.requireSafeAnchor(path, sticky: false)
            keys.append(try MinisignPublicKey.load(path))
        }
        return keys
    }

    /// `FileSystem.requireSafeForRoot`, as a refusal of the trust anchors.
    private static func requireSafeAnchor(_ path: String, sticky: Bool) throws(SeedDBError) {
        do {
            try FileSystem.requireSafeForRoot(path, owner: nil, sticky: sticky)
        } catch {
            let status = try? FileSystem.status(at: path)
            let facts = status.map { " (owner uid \($0.userID.rawValue), mode \(String($0.permissionBits, radix: 8)))" } ?? ""
            throw SeedDBError(.untrustedSeed, "refusing the trusted keys in \(path) as root: it can be written by a non-root user\(facts); make it root's and not group- or world-writable")
        }
    }

    /// For a manifest that cannot be read as one (its app unknown): refuses it as unsigned
    /// or badly signed (65) when any key is trusted, for any app, and its signature does
    /// not verify with one of them; returns when none is trusted or one vouches for the
    /// bytes (then the manifest's own error stands).
    /// - Throws: ``SeedDBError`` `untrustedSeed`.
    public func requireSignatureOfUnreadableManifest(_ path: String) throws(SeedDBError) {
        var keys = configuration.trustedKeys
        if let base = configuration.trustedKeysDirectory, try FileSystem.fileType(at: base) == .directory {
            for name in try FileSystem.entries(of: base).sorted() {
                guard let app = try? AppIdentifier(name) else { continue }
                keys += try trustedKeys(for: app).filter { !configuration.trustedKeys.contains($0) }
            }
        }
        guard !keys.isEmpty else { return }
        try SignedManifest.requireSignature(path, trustedKeys: keys)
    }

    /// When keys are trusted for `seed`'s app: the seed as the signed manifest it came
    /// from describes it (its `sha256` becomes the digest the copy checks), with who
    /// signed it; otherwise `seed` unchanged and no signature.
    ///
    /// - Throws: ``SeedDBError`` `untrustedSeed` (exit 65) when the seed is not from a
    ///   manifest a trusted key signed, or differs from what it signed; see
    ///   ``SignedManifest/verify(_:trustedKeys:now:)``.
    func authenticate(_ seed: Seed) throws(SeedDBError) -> (seed: Seed, signature: SeedSignature?) {
        let keys = try trustedKeys(for: seed.app)
        guard !keys.isEmpty else { return (seed, nil) }
        guard let path = seed.manifest else {
            throw SeedDBError(.untrustedSeed, "refusing seed \(seed.name) of \(seed.app) (unsigned; trusted key ids: \(keys.map(\.keyID.description).joined(separator: ", "))): it is not from a signed manifest")
        }
        let signed = try SignedManifest.verify(path, trustedKeys: keys)
        guard var vouched = signed.manifest.seeds.first(where: { $0.name == seed.name }), signed.manifest.app == seed.app else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(signed.signature.keyID)): the signed manifest has no seed \(seed.name) of \(seed.app)")
        }
        vouched.manifest = seed.manifest
        guard vouched == seed || (seed.version.isAuto && vouched.source == seed.source) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(signed.signature.keyID)): seed \(seed.name) differs from the one the manifest signs (the manifest changed since it was read)")
        }
        return (vouched, signed.signature)
    }

    /// Refuses a signed manifest whose serial is lower than the one `entry` records,
    /// unless ``DeployConfiguration/allowDowngrade``.
    /// - Throws: ``SeedDBError`` `untrustedSeed` with the remedy ``SeedDBError/Remedy/downgrade``.
    func requireNoDowngrade(_ signature: SeedSignature?, entry: SettingsEntry, seed: Seed) throws(SeedDBError) {
        guard let signature, let recorded = entry.signature, signature.serial < recorded.serial, !configuration.allowDowngrade else { return }
        throw SeedDBError(
            .untrustedSeed,
            "refusing \(seed.manifest ?? seed.source) (key id \(signature.keyID)): its serial \(signature.serial) is lower than serial \(recorded.serial) (key id \(recorded.keyID)) deployed to \(paths(for: seed).workingCopy): a downgrade or a replayed manifest",
            remedy: .downgrade)
    }

    /// Checks the signature a deploy of `seed` would check, reading the manifest and its
    /// signature but not the seed: who signed it and its serial, or `nil` when no key is
    /// trusted for its app.
    /// - Throws: ``SeedDBError`` `untrustedSeed` when a deploy would be refused for it.
    public func checkSignature(_ seed: Seed) throws(SeedDBError) -> SeedSignature? {
        try authenticate(seed).signature
    }

    /// What `verify` adds for a seed whose app has trusted keys: the signature checked,
    /// and the seed's digest compared with the signed one (`nil` when no key is trusted).
    func verifySignature(_ seed: Seed) throws(SeedDBError) -> SeedSignature? {
        let (vouched, signature) = try authenticate(seed)
        guard let signature, let expected = vouched.expectedSHA256 else { return nil }
        let digest = try SeedSource(path: vouched.source).withPlainFile { path in
            Result { () throws(SeedDBError) in try FileDigest.sha256(ofFileAt: path) }
        }.get()
        guard digest == expected else {
            throw SeedDBError(.untrustedSeed, "refusing \(vouched.manifest ?? vouched.source) (key id \(signature.keyID)): seed \(vouched.source) has SHA-256 \(digest), the signed manifest says \(expected)")
        }
        return signature
    }
}

extension DeployTarget {
    /// The error for a copy whose digest is not the expected one: a refusal naming the
    /// signed manifest and its key when the digest is a signed one.
    func digestMismatch(_ actual: SHA256Digest, expected: SHA256Digest) -> SeedDBError {
        guard let signature, let manifest else {
            return SeedDBError(.invalidSeed, "invalid seed \(source): SHA-256 is \(actual), expected \(expected)")
        }
        return SeedDBError(.untrustedSeed, "refusing \(manifest) (key id \(signature.keyID)): seed \(source) has SHA-256 \(actual), the signed manifest says \(expected)")
    }
}
