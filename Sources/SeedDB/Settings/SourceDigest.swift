import SeedDBCore

/// A seed file's identity and the digest of its content when it had that identity,
/// remembered in the settings (`"source"`) so an unchanged seed is not hashed again.
public struct SourceDigest: Sendable, Hashable {
    /// The file's identity when it was hashed.
    public var identity: FileIdentity
    /// Its SHA-256 then.
    public var sha256: SHA256Digest
}
