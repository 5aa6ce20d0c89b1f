import Foundation
import SeedDBCore

/// Signed seeds: a deploy of an app with trusted keys, or of a seed whose record pins a
/// key, deploys only what a trusted or the pinned key signed, and never a lower serial
/// than the one recorded.
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
        for name in try FileSystem.entries(of: directory).map(\.name).sorted() where name.hasSuffix(".pub") {
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
            for name in try FileSystem.entries(of: base).map(\.name).sorted() {
                guard let app = try? AppIdentifier(name) else { continue }
                keys += try trustedKeys(for: app).filter { !configuration.trustedKeys.contains($0) }
            }
        }
        guard !keys.isEmpty else { return }
        try SignedManifest.requireSignature(path, trustedKeys: keys)
    }

    /// When keys are trusted for `seed`'s app or its record pins one: the seed as the signed
    /// manifest it came from describes it (its `sha256` becomes the digest the copy checks),
    /// with who signed it; otherwise `seed` unchanged and no signature.
    ///
    /// The pin is read here, before anything else is looked at (see ``pin(of:in:)``): from
    /// `snapshot` when the caller read the settings already, else from the settings file.
    ///
    /// - Throws: ``SeedDBError`` `untrustedSeed` (exit 65) when the seed is not from a
    ///   manifest a trusted or pinned key signed, or differs from what it signed; see
    ///   ``SignedManifest/verify(_:trustedKeys:pinned:now:)``.
    func authenticate(_ seed: Seed, snapshot: SettingsSnapshot? = nil) throws(SeedDBError) -> (seed: Seed, signature: SeedSignature?) {
        let keys = try trustedKeys(for: seed.app)
        let pinned = try pin(of: seed, in: snapshot)
        guard !keys.isEmpty || pinned != nil else { return (seed, nil) }
        guard let path = seed.manifest else {
            let trust = SignedManifest.Trust(keys, pinned: pinned)
            throw SeedDBError(.untrustedSeed, "refusing seed \(seed.name) of \(seed.app) (unsigned; \(trust)): it is not from a signed manifest", remedy: trust.unsignedRemedy)
        }
        let signed = try SignedManifest.verify(path, trustedKeys: keys, pinned: pinned)
        guard var vouched = signed.manifest.seeds.first(where: { $0.name == seed.name }), signed.manifest.app == seed.app else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(signed.signature.keyID)): the signed manifest has no seed \(seed.name) of \(seed.app)")
        }
        vouched.manifest = seed.manifest
        guard vouched == seed || (seed.version.isAuto && vouched.source == seed.source) else {
            throw SeedDBError(.untrustedSeed, "refusing \(path) (key id \(signed.signature.keyID)): seed \(seed.name) differs from the one the manifest signs (the manifest changed since it was read)")
        }
        return (vouched, signed.signature)
    }

    /// The signature `seed`'s record pins (trust on first use), `nil` when none is or
    /// ``DeployConfiguration/forgetSignature``: in `snapshot` (`seed`'s settings as the
    /// caller read them), else in the settings file.
    func pin(of seed: Seed, in snapshot: SettingsSnapshot?) throws(SeedDBError) -> SeedSignature? {
        guard !configuration.forgetSignature else { return nil }
        if let snapshot { return try snapshot.entry(of: seed.name)?.signature }
        return try records(at: paths(for: seed)).snapshot(only: seed.name).entry(of: seed.name)?.signature
    }

    /// Refuses what the pin in `entry` (the record as observed, again under the deploy
    /// lock) does not allow: no signature, or a serial lower than the pinned one unless
    /// ``DeployConfiguration/allowDowngrade``. Nothing with
    /// ``DeployConfiguration/forgetSignature``. (Which keys may sign is
    /// ``authenticate(_:)``'s to check; this catches a pin recorded since.)
    /// - Throws: ``SeedDBError`` `untrustedSeed`, with the remedy
    ///   ``SeedDBError/Remedy/forgetSignature`` or ``SeedDBError/Remedy/downgrade``.
    func requirePinned(_ signature: SeedSignature?, entry: SettingsEntry, seed: Seed) throws(SeedDBError) {
        guard let pinned = entry.signature, !configuration.forgetSignature else { return }
        guard let signature else {
            throw SeedDBError(.untrustedSeed, "refusing \(seed.manifest ?? seed.source) (unsigned; pinned key id \(pinned.keyID)): \(paths(for: seed).workingCopy) was deployed from a signed manifest", remedy: .forgetSignature)
        }
        guard signature.serial < pinned.serial, !configuration.allowDowngrade else { return }
        throw SeedDBError(
            .untrustedSeed,
            "refusing \(seed.manifest ?? seed.source) (key id \(signature.keyID)): its serial \(signature.serial) is lower than serial \(pinned.serial) (pinned key id \(pinned.keyID)) deployed to \(paths(for: seed).workingCopy): a downgrade or a replayed manifest",
            remedy: .downgrade)
    }

    /// Refuses, before `plan` finishes a killed run that installed its content, what the
    /// pin that finish records would refuse: the finish records the killed run's own
    /// signature (``SettingsEntry/InterruptedRun/runSignature``), so an older serial met
    /// after a killed newer one is refused before it changes anything, not once the newer
    /// one is finished. So is a plan that replaces the copy of a killed live replace, which
    /// may have committed the newer content. Nothing when `plan` undoes the killed run (it
    /// installed nothing), and nothing for a killed rollback (its finish keeps the pin).
    /// - Throws: ``SeedDBError`` `untrustedSeed`, as ``requirePinned(_:entry:seed:)``.
    func requirePinned(_ signature: SeedSignature?, finishing plan: DeployPlan, entry: SettingsEntry, seed: Seed) throws(SeedDBError) {
        guard let killed = entry.interrupted, !killed.isRollback, case .signed(let killedSignature) = killed.runSignature else { return }
        guard plan.finishesInterrupted && !plan.undoesInterrupted || killed.isLive && plan.action.copies else { return }
        var finished = entry
        finished.signature = killedSignature
        try requirePinned(signature, entry: finished, seed: seed)
    }

    /// Whether a run whose plan copies nothing still records `signature`: an up-to-date
    /// seed whose manifest a new key signed (a rotation re-pins), or a higher serial, or
    /// whose pin ``DeployConfiguration/forgetSignature`` forgets. A seed a rollback holds
    /// too: the pin follows the releases deployed, whatever content the rollback keeps.
    func recordsSignature(_ signature: SeedSignature?, entry: SettingsEntry, plan: DeployPlan) -> Bool {
        (plan.action == .unchanged || plan.action == .held) && entry.signature != signature
    }

    /// Records `signature` for a run with nothing to copy, when ``recordsSignature(_:entry:plan:)``.
    func rememberSignature(_ signature: SeedSignature?, entry: SettingsEntry, plan: DeployPlan, paths: SeedPaths) throws(SeedDBError) {
        guard recordsSignature(signature, entry: entry, plan: plan) else { return }
        try records(at: paths).update(timeout: configuration.wait) { $0[paths.name.rawValue]?.signature = signature }
    }

    /// `report` with what the run did with signatures: the one it checked, and the pin it
    /// forgot (``DeployConfiguration/forgetSignature`` over a pin no longer recorded).
    func signed(_ report: DeployReport, _ signature: SeedSignature?, pinned: SeedSignature?) -> DeployReport {
        var report = report
        report.signature = signature
        if configuration.forgetSignature, let pinned, pinned.keyID != signature?.keyID {
            report.forgotSignature = pinned
        }
        return report
    }

    /// What a deploy of `seed` would refuse for its signature, as the error it would fail
    /// with, reading the manifest, its signature and the settings but changing nothing:
    /// `status` and `verify` report it. Returns who signed the manifest, or `nil` when no
    /// key is trusted for its app and none is pinned.
    ///
    /// - Parameters:
    ///   - seed: The seed to check.
    ///   - digest: Also read the seed and compare its SHA-256 with the signed one
    ///     (a deploy does it in the pass that copies it).
    /// - Throws: ``SeedDBError`` `untrustedSeed` when a deploy would be refused for it
    ///   (see `authenticate(_:)`, `requirePinned(_:entry:seed:)`).
    public func checkSignature(_ seed: Seed, digest: Bool = false) throws(SeedDBError) -> SeedSignature? {
        let (vouched, signature) = try authenticate(seed)
        let entry = try settings(for: vouched).snapshot(only: vouched.name).entry(of: vouched.name) ?? SettingsEntry()
        try requirePinned(signature, entry: entry, seed: vouched)
        guard digest, let signature, let expected = vouched.expectedSHA256 else { return signature }
        let actual = try SeedSource(path: vouched.source).withPlainFile { path in
            Result { () throws(SeedDBError) in try FileDigest.sha256(ofFileAt: path) }
        }.get()
        guard actual == expected else {
            throw SignedManifest.digestRefusal(vouched.manifest ?? vouched.source, keyID: signature.keyID, source: vouched.source, actual: actual, expected: expected)
        }
        return signature
    }
}

extension DeployTarget {
    /// The error for a copy whose digest is not the expected one: a refusal naming the
    /// signed manifest and its key when the digest is a signed one.
    func digestMismatch(_ actual: SHA256Digest, expected: SHA256Digest) -> SeedDBError {
        Self.digestMismatch(source: source, signature: signature, manifest: manifest, actual, expected: expected)
    }

    /// The error for seed `source` whose digest is `actual`, not `expected`; a refusal
    /// naming the signed `manifest` and its key when a `signature` vouched for `expected`.
    static func digestMismatch(source: String, signature: SeedSignature?, manifest: String?, _ actual: SHA256Digest, expected: SHA256Digest) -> SeedDBError {
        guard let signature, let manifest else {
            return SeedDBError(.invalidSeed, "invalid seed \(source): SHA-256 is \(actual), expected \(expected)")
        }
        return SignedManifest.digestRefusal(manifest, keyID: signature.keyID, source: source, actual: actual, expected: expected)
    }
}
