/// The last seed content that passed validation, remembered in the settings (`"checked"`)
/// so unchanged content is not checked again.
public struct ValidationMemo: Sendable, Hashable {
    /// The digest of the content that was checked.
    public var sha256: SHA256Digest
    /// How thoroughly.
    public var integrity: IntegrityLevel
    /// The content's tables, listed when it was checked (`nil` in memos written before).
    public var tables: [String]? = nil
    /// The digest of each of the content's tables (``DeployRecord/tableDigests``), when
    /// they were hashed: a deploy of the same content does not hash them again.
    public var tableDigests: [String: SHA256Digest]? = nil

    /// Creates a memo.
    public init(sha256: SHA256Digest, integrity: IntegrityLevel, tables: [String]? = nil) {
        self.sha256 = sha256
        self.integrity = integrity
        self.tables = tables
    }
}
