/// A seed: the read-only database an app ships, and where and how it is deployed.
public struct Seed: Hashable, Sendable {
    /// The app the seed belongs to; names its directories.
    public var app: AppIdentifier
    /// The path of the seed file the app ships; empty for a seed known by its working
    /// copy alone.
    public var source: String
    /// The version the app ships now; ``SeedVersion/unspecified`` for a seed known by
    /// its working copy alone.
    public var version: SeedVersion
    /// Data (default) or cache directory.
    public var location: SeedLocation
    /// The working copy's file name, which also keys its record in the settings store.
    public var name: SeedName
    /// When set, the seed must hash to this digest or the deploy is refused.
    public var expectedSHA256: SHA256Digest?
    /// Tables that hold the user's own data: on replace or reseed their rows are carried
    /// from the old working copy into the new one.
    public var preservedTables: [String]
    /// How the user's edits to the seed's own rows are merged into each new seed
    /// (`"merge"` and `"mergeTables"` in a manifest). Default:
    /// ``MergePolicies/standard(for:)``: the user's edits win in the `data` location; in
    /// `cache`, the seed's rows replace the user's.
    public var merge: MergePolicies
    /// The manifest this seed was read from (``SeedDB/Manifest`` sets it). When trusted keys are
    /// configured, a deploy reads the manifest again, checks its signature, and deploys the
    /// seed as the signed bytes describe it. Default: `nil`.
    public var manifest: String?
    /// Whether the seed is deployed read-only (`"readOnly": true` in a manifest,
    /// `--read-only`): the working copy is a symbolic link straight to the seed file, no
    /// byte is copied, and the app opens it read-only. The seed must be a plain SQLite
    /// file (uncompressed, not in WAL mode) at an absolute path that the app's user can
    /// neither write nor replace (not its own, no group or other write bit, in directories
    /// it cannot write).
    /// Default: `false`, the seed is copied.
    public var readOnly: Bool = false

    /// Creates a seed description.
    ///
    /// - Parameters:
    ///   - name: The working copy's file name; defaults to the last path component of
    ///     `source`, without a `.zst` or `.gz` suffix.
    ///   - preservedTables: Tables whose rows survive a replace or reseed (the user's data).
    ///   - merge: How the user's edits to the seed's rows are merged into a new seed;
    ///     `nil` (the default) for ``MergePolicies/standard(for:)`` of `location`.
    ///   - readOnly: Deploy the seed as a symbolic link to `source`, with no copy
    ///     (``readOnly``); it then takes no `preservedTables` and no `merge`.
    /// - Throws: ``SeedDBError`` (`invalidArgument`) when `source` is empty or the default
    ///   name taken from it is not a valid ``SeedName``, and for a read-only seed given
    ///   preserved tables or a merge policy: a link has no copy to carry them into, and
    ///   taking them silently would let the caller believe they applied.
    public init(
        app: AppIdentifier,
        source: String,
        version: SeedVersion,
        location: SeedLocation = .data,
        name: SeedName? = nil,
        expectedSHA256: SHA256Digest? = nil,
        preservedTables: [String] = [],
        merge: MergePolicies? = nil,
        readOnly: Bool = false
    ) throws(SeedDBError) {
        guard !source.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid seed path: it is empty")
        }
        if readOnly, !preservedTables.isEmpty || merge != nil {
            throw SeedDBError(.invalidArgument, "a read-only seed is a link to the seed file, not a copy: it has no rows of the user's to preserve or merge; drop its preserved tables and merge policy, or deploy a copy")
        }
        self.app = app
        self.source = source
        self.version = version
        self.location = location
        if let name {
            self.name = name
        } else {
            self.name = try Self.defaultName(forSource: source)
        }
        self.expectedSHA256 = expectedSHA256
        self.preservedTables = try Self.checked(preservedTables: preservedTables)
        self.merge = try Self.checked(merge: merge ?? .standard(for: location))
        self.readOnly = readOnly
    }

    /// A seed known by its working copy alone, for the work that never reads the seed
    /// file: a rollback, the conflicts of the last merge, maintenance, purging. Its
    /// ``source`` is empty and its ``version`` is ``SeedVersion/unspecified``.
    ///
    /// - Parameters:
    ///   - preservedTables: Tables whose rows a rollback carries into the restored copy.
    ///   - merge: How a rollback merges the user's edits into the restored copy; `nil`
    ///     (the default) for ``MergePolicies/standard(for:)`` of `location`.
    /// - Throws: ``SeedDBError`` (`invalidArgument`) for an invalid preserved table.
    public init(
        app: AppIdentifier,
        workingCopy name: SeedName,
        location: SeedLocation = .data,
        preservedTables: [String] = [],
        merge: MergePolicies? = nil
    ) throws(SeedDBError) {
        self.app = app
        self.source = ""
        self.version = .unspecified
        self.location = location
        self.name = name
        self.preservedTables = try Self.checked(preservedTables: preservedTables)
        self.merge = try Self.checked(merge: merge ?? .standard(for: location))
    }

    /// The working copy's default name for `source`: its last path component, without a
    /// `.zst` or `.gz` suffix.
    /// - Throws: ``SeedDBError`` (`invalidArgument`) when that is not a valid ``SeedName``.
    public static func defaultName(forSource source: String) throws(SeedDBError) -> SeedName {
        try SeedName(SeedCompression(path: source).stripping(PathText.lastComponent(of: source)))
    }

    /// `preservedTables`, each a valid table name, none twice.
    private static func checked(preservedTables: [String]) throws(SeedDBError) -> [String] {
        for table in preservedTables {
            guard !table.isEmpty, table.utf8.count <= 128, !NameRules.hasControlCharacter(table), !table.lowercased().hasPrefix("sqlite_") else {
                throw SeedDBError(.invalidArgument, "invalid preserved table \(NameRules.quoted(table)): 1-128 characters, no control characters, not an sqlite_ table")
            }
        }
        guard Set(preservedTables).count == preservedTables.count else {
            throw SeedDBError(.invalidArgument, "invalid preserved tables: a table is listed twice")
        }
        return preservedTables
    }

    /// `merge`, with no table given two policies under names SQLite takes for one
    /// (`words` and `WORDS`): which would apply is not the writer's to guess.
    private static func checked(merge: MergePolicies) throws(SeedDBError) -> MergePolicies {
        var seen: [String: String] = [:]
        for table in merge.tables.keys.sorted() {
            if let earlier = seen.updateValue(table, forKey: MergeNames.folded(table)) {
                throw SeedDBError(.invalidArgument, "invalid merge tables: \(NameRules.quoted(earlier)) and \(NameRules.quoted(table)) name one table (SQLite's names ignore case); give it one policy")
            }
        }
        return merge
    }
}
