import Foundation
import SeedDBCore

/// Signs a manifest: writes `<manifest>.minisig` beside it, what `seeddb sign` and
/// `seeddb pack --sign` do.
public enum ManifestSigner {
    /// Signs the manifest at `path` with `key`, writing `<path>.minisig` atomically.
    ///
    /// The manifest must be valid and give every seed a `sha256`. The trusted comment names
    /// the app, the serial and the file (`app:com.example.levels	serial:3	file:seeds.json`).
    ///
    /// It signs what it is given, and says what deploys would make of it (see
    /// `warnings(_:path:bytes:replacing:key:now:)`).
    ///
    /// - Parameters:
    ///   - path: The manifest.
    ///   - key: The secret key to sign with.
    ///   - algorithm: `legacy` (`Ed`, the default: checking needs no libsodium) or
    ///     `prehashed` (`ED`, minisign's default).
    ///   - now: The time `expires` is compared with.
    /// - Returns: The signature, the manifest it signed, the signature file's path
    ///   (beside the file a symbolic link to the manifest points to), and the warnings.
    /// - Throws: ``SeedDBError`` `invalidManifest` (not a manifest, or a seed without
    ///   `sha256`), `seedUnavailable`, `cannotCreate`/`ioFailure`.
    @discardableResult
    public static func sign(_ path: String, with key: MinisignSecretKey, algorithm: MinisignSignature.Algorithm = .legacy, now: Date = Date()) throws(SeedDBError) -> (signature: MinisignSignature, manifest: Manifest, path: String, warnings: [String]) {
        let target = FileSystem.resolvingLinks(path)
        guard let bytes = try FileSystem.readFile(at: target) else {
            throw SeedDBError(.seedUnavailable, "manifest not found: \(path)")
        }
        let manifest: Manifest
        do {
            manifest = try Manifest(parsing: bytes, folder: FileSystem.directory(of: target))
        } catch {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path): \(error.message)")
        }
        try SignedManifest.requireDigests(manifest, path: path)
        let comment = "app:\(manifest.app)\tserial:\(manifest.serial ?? 0)\tfile:\(FileSystem.fileName(of: target))"
        let signature = try key.sign(bytes, trustedComment: comment, algorithm: algorithm)
        let written = target + ".minisig"
        let warnings = Self.warnings(manifest, path: path, bytes: bytes, replacing: try FileSystem.readFile(at: written), key: key, now: now)
        try FileSystem.writeAtomically(Array(signature.fileText.utf8), to: written, permissions: [.ownerReadWrite, .groupRead, .otherRead])
        return (signature, manifest, written, warnings)
    }

    /// What a publisher should hear before signing `manifest` (the file at `path`, whose
    /// bytes are `bytes`), one line each: an `expires` that is past or within 7 days
    /// (deploys refuse an expired manifest), and a `serial` not higher than the one of the
    /// signature it replaces, `replacing` (a deploy that recorded that serial refuses a
    /// lower one as a replay, and an equal one tells it nothing new).
    static func warnings(_ manifest: Manifest, path: String, bytes: [UInt8], replacing old: [UInt8]?, key: MinisignSecretKey, now: Date) -> [String] {
        var warnings: [String] = []
        if let expires = manifest.expires, let date = Manifest.date(iso8601: expires) {
            if date <= now {
                warnings.append("\(path) expired on \(expires): deploys refuse it; set a later \"expires\"")
            } else if date.timeIntervalSince(now) < 7 * 86_400 {
                warnings.append("\(path) expires on \(expires), within 7 days: deploys refuse it from then on")
            }
        }
        if let serial = manifest.serial, let previous = previousSerial(old, bytes: bytes, manifest: manifest, key: key), serial <= previous {
            warnings.append("\(path) has serial \(serial), not higher than serial \(previous) of the signature it replaces: a deploy that recorded serial \(previous) refuses a lower one as a replay; raise \"serial\" with each release")
        }
        return warnings
    }

    /// The serial of the signature being replaced: its trusted comment's `serial:N` (as
    /// SeedDB signs), or, for one without (minisign's own), the manifest's serial when
    /// `key` made it of these very bytes; `nil` when it cannot be known.
    private static func previousSerial(_ old: [UInt8]?, bytes: [UInt8], manifest: Manifest, key: MinisignSecretKey) -> UInt64? {
        guard let old, let signature = try? MinisignSignature(bytes: old) else { return nil }
        if let field = signature.trustedComment.split(separator: "\t").first(where: { $0.hasPrefix("serial:") }) {
            return UInt64(field.dropFirst("serial:".count))
        }
        guard signature.keyID == key.keyID, (try? signature.verify(bytes, with: key.publicKey)) != nil else { return nil }
        return manifest.serial ?? 0
    }
}
