/// What the settings store remembers about one deployed working copy.
public struct DeployRecord: Hashable, Sendable {
    /// The version that was deployed.
    public var version: SeedVersion
    /// The SHA-256 of the working copy's bytes as deployed; `nil` for a read-only seed's
    /// link whose digest was not known (the seed is never read just to find it: the
    /// link is O(1)).
    public var sha256: SHA256Digest?
    /// The working copy's size in bytes as deployed.
    public var size: Int64
    /// When the deploy finished, ISO-8601 in UTC (`2026-11-21T23:45:22Z`).
    public var deployedAt: String
    /// For a previous generation: the SHA-256 of its merge base (`<name>.previous.base`),
    /// when one was kept. (The current one is the settings entry's own `base`.)
    public var base: SHA256Digest?
    /// The names of the tables the deployed content had before anything was carried into
    /// it (the seed's own tables): a table is the app's only if its seed lacked it. `nil`
    /// in records written before they were recorded, and for an adopted database.
    public var seedTables: [String]?
    /// For a previous generation: the signed manifest it came from, if it was verified, so
    /// a rollback records it again. (The current one is the settings entry's own.)
    public var signature: SeedSignature?
    /// The SHA-256 of each of the seed's own tables (rows and columns) as deployed, by
    /// name, when no merge base was kept to compare with (a `data` seed whose merging is
    /// off): a later replace names the tables the user changed by them. `nil` otherwise.
    public var tableDigests: [String: SHA256Digest]?

    /// Creates a record.
    public init(version: SeedVersion, sha256: SHA256Digest?, size: Int64, deployedAt: String, base: SHA256Digest? = nil, seedTables: [String]? = nil) {
        self.version = version
        self.sha256 = sha256
        self.size = size
        self.deployedAt = deployedAt
        self.base = base
        self.seedTables = seedTables
    }

    /// The version an adopted database is recorded with when it becomes the previous
    /// generation: what it holds is not known.
    public static let adoptedVersion = try! SeedVersion("adopted")
}
