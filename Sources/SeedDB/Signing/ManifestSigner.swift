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
    /// - Parameter algorithm: `legacy` (`Ed`, the default: checking needs no libsodium) or
    ///   `prehashed` (`ED`, minisign's default).
    /// - Returns: The signature, the manifest it signed, and the signature file's path
    ///   (beside the file a symbolic link to the manifest points to).
    /// - Throws: ``SeedDBError`` `invalidManifest` (not a manifest, or a seed without
    ///   `sha256`), `seedUnavailable`, `cannotCreate`/`ioFailure`.
    @discardableResult
    public static func sign(_ path: String, with key: MinisignSecretKey, algorithm: MinisignSignature.Algorithm = .legacy) throws(SeedDBError) -> (signature: MinisignSignature, manifest: Manifest, path: String) {
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
        try FileSystem.writeAtomically(Array(signature.fileText.utf8), to: target + ".minisig", permissions: [.ownerReadWrite, .groupRead, .otherRead])
        return (signature, manifest, target + ".minisig")
    }
}
