import Synchronization
import SeedDBCore

/// The manifests (and their `.minisig` files) this process read, and the signatures it
/// checked, so a run reads a manifest once and checks its signature once however many
/// seeds it lists and however many steps look at it (the CLI's load, the signature check
/// of each seed, the quick look and the locked run, the orphan warning).
///
/// A file's bytes are used again only while it has the identity it had when read (device,
/// inode, size, modification and change times: one `stat`); a manifest replaced or
/// rewritten since is read again, so a long-lived app that keeps a ``Deployer`` sees a new
/// release (package managers replace a file by a rename: a new inode). A signature check is
/// kept for the exact bytes and keys it checked. Within one run this also means every seed
/// of a manifest is checked against the same bytes, never a file changed halfway.
final class ManifestMemo: Sendable {
    /// The process's memo.
    static let shared = ManifestMemo()

    private struct File {
        var identity: FileIdentity
        var bytes: [UInt8]
    }

    /// What a signature check depends on: the exact bytes of both files and the key.
    struct CheckKey: Hashable {
        var manifest: [UInt8]
        var signature: [UInt8]
        var key: MinisignPublicKey
    }

    private struct State {
        var files: [String: File] = [:]
        var checks: Set<CheckKey> = []
    }

    /// How many signature checks are kept (a run checks one or two manifests).
    private static let checksKept = 16

    private let state = Mutex(State())

    /// The bytes of the file at `path` (a resolved path), read only when it is not the file
    /// read before; `nil` when there is no file.
    /// - Throws: ``SeedDBError`` as `FileSystem.readFile(at:)`.
    func read(_ path: String) throws(SeedDBError) -> [UInt8]? {
        guard let identity = try? FileDigest.identity(ofFileAt: path) else { return try FileSystem.readFile(at: path) }
        if let file = state.withLock({ $0.files[path] }), file.identity == identity { return file.bytes }
        guard let bytes = try FileSystem.readFile(at: path) else { return nil }
        // Kept only when nothing changed the file while it was read.
        if (try? FileDigest.identity(ofFileAt: path)) == identity {
            state.withLock { $0.files[path] = File(identity: identity, bytes: bytes) }
        }
        return bytes
    }

    /// Whether `key` verified a signature over these exact bytes before.
    func verified(_ check: CheckKey) -> Bool {
        state.withLock { $0.checks.contains(check) }
    }

    /// Remembers that the check `check` names passed.
    func remember(_ check: CheckKey) {
        state.withLock { state in
            if state.checks.count >= Self.checksKept { state.checks.removeAll() }
            state.checks.insert(check)
        }
    }
}
