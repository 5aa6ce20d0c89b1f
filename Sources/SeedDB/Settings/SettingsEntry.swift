import SeedDBCore

/// SeedDB's entry for one working copy in the settings store.
///
/// ```json
/// {"version": "2", "sha256": "…", "size": 8192, "deployedAt": "…",
///  "location": "data", "generation": "levels.sqlite.v2", "seedTables": ["levels"],
///  "heldFrom": "3", "readOnly": true, "seedLink": "/usr/share/levels/levels.sqlite",
///  "previous": {"version": "1", "sha256": "…", "size": 8192, "deployedAt": "…"},
///  "maintainedAt": "…", "checked": {"sha256": "…", "integrity": "quick"},
///  "source": {"device": 2049, "inode": 1234, "size": 8192, "modified": 1763769104123456789,
///             "changed": 1763769104123456789, "sha256": "…"}}
/// ```
public struct SettingsEntry: Sendable, Hashable {
    /// The deployed version, its digest and size; `nil` while a deploy is under way or
    /// after a deploy was withdrawn.
    public var record: DeployRecord?
    /// The generation kept beside the working copy for `rollback`, if any.
    public var previous: DeployRecord?
    /// When `maintain` last ran, ISO-8601 UTC.
    public var maintainedAt: String?
    /// The last seed content that passed validation, so an unchanged seed is not re-checked.
    public var checked: ValidationMemo?
    /// The seed file's identity and digest, so an unchanged seed is never hashed again
    /// (whatever its version scheme). An entry written before the change time was part of
    /// the identity has none here: a cache miss, not a damaged entry.
    public var source: SourceDigest?
    /// The SHA-256 of `<name>.base`, the pristine seed kept as the next merge's common
    /// ancestor. Kept apart from ``record``, which a deploy withdraws while it runs: a run
    /// killed midway still finds the base it can merge with.
    public var base: SHA256Digest?
    /// The identity of `<name>.base` when the run that made it (or found it by its digest)
    /// recorded ``base``: while the file keeps exactly this identity (device, inode, size,
    /// modification and change time: a write, a `chmod`, a new name or a rename each move
    /// one), it still holds that digest and a merge does not hash it again. `nil` where the
    /// run did not look at the base's content, and in entries written before it was
    /// recorded: the base is then hashed before a merge uses it.
    public var baseIdentity: FileIdentity?
    /// Where the working copy lives; `nil` in entries written before locations were
    /// recorded (read as the location whose working copy exists).
    public var location: SeedLocation?
    /// The generation file the working copy's link pointed at when this was recorded.
    public var generation: String?
    /// The identity of the working copy's content file as the last deploy left it, when
    /// that content was the seed's own (nothing carried or merged into it): while the file
    /// keeps this identity and has no `-wal` or `-journal` beside it, nobody wrote to it,
    /// and an upgrade has nothing of the user's to merge.
    public var pristine: FileIdentity?
    /// What a run under way (or killed) is doing: written by its `withdraw` step, cleared
    /// by its `record` step.
    public var interrupted: InterruptedRun?
    /// The version a rollback restored from: `deploy` leaves the working copy alone while
    /// the app ships it. Cleared by any other deploy.
    public var heldFrom: SeedVersion?
    /// For a read-only deploy: the seed file the working copy links to (an absolute
    /// path), written as `"readOnly": true, "seedLink": "<path>"`; `nil` when the working
    /// copy is a copy. Recognized as SeedDB's own link, never "blocked".
    public var seedLink: String?

    /// What a run records before it touches the working copy, so a run killed at any
    /// point can be finished or undone by the next one.
    public struct InterruptedRun: Sendable, Hashable {
        /// The version the run installs.
        public var version: SeedVersion
        /// The generation file a swap installs (`nil` for a live replace).
        public var generation: String?
        /// The record of what the run replaces, to become the previous generation's.
        public var replacing: DeployRecord?
        /// The digest of the merge base the run puts in place, if any.
        public var base: SHA256Digest?
        /// The tables of the content the run installs, before anything is carried into it.
        public var seedTables: [String]?
        /// Whether the run is a rollback.
        public var isRollback: Bool
        /// For a live replace: the digest of the snapshot of the old content it makes the
        /// previous generation, written down before the snapshot takes that name, so the
        /// next run knows the previous generation holds ``replacing``'s content.
        public var snapshot: SHA256Digest? = nil
        /// The generation file the working copy's link named when the run started: the
        /// old content a swap keeps as the previous generation.
        public var replacingGeneration: String? = nil
        /// Whether the old content is a database SeedDB adopted (no record matched it).
        public var adopting = false
        /// When the run is one seed of a release (a manifest's seeds deployed as one, see
        /// `Deployer.deploy(release:force:)`): every seed the release installs, this one
        /// included, with the version it installs. Each seed's marker names them all, and
        /// the release clears them all in one settings write; a run that finds one knows
        /// the release is unfinished. `nil` for a run of one seed.
        public var release: [ReleaseSeed]? = nil
        /// The digests of the seed tables the run records (``DeployRecord/tableDigests``).
        public var tableDigests: [String: SHA256Digest]? = nil
    }

    /// One seed of a release, as an ``InterruptedRun`` names it: `{"name", "version"}`.
    public struct ReleaseSeed: Sendable, Hashable {
        /// The seed's working-copy name.
        public var name: String
        /// The version the release installs.
        public var version: SeedVersion

        /// Creates a release seed.
        public init(name: String, version: SeedVersion) {
            self.name = name
            self.version = version
        }
    }
    /// The key id and serial of the signed manifest the recorded version came from; `nil`
    /// when it was not verified. Kept when a deploy withdraws ``record``, so a killed run
    /// does not forget the serial a later deploy must not go below.
    public var signature: SeedSignature?

    /// Why an entry cannot be decoded: a field is missing or has the wrong type.
    struct ShapeError: Error, CustomStringConvertible {
        /// The field at fault.
        var field: String
        var description: String { "\"\(field)\" is missing or has the wrong type" }
    }

    /// Creates an entry.
    public init(record: DeployRecord? = nil) {
        self.record = record
    }

    /// Decodes an entry from its JSON object.
    /// - Throws: ``ShapeError`` naming the field that is missing or mistyped.
    init(json: JSONValue) throws(ShapeError) {
        guard let object = json.object else {
            throw ShapeError(field: "entry")
        }
        record = try Self.record(in: object, at: "")
        if let value = object["base"] {
            guard let digest = Self.digest(value) else { throw Self.bad("base") }
            base = digest
            record?.base = nil
        }
        if let previous = object["previous"] {
            guard let previous = previous.object, var record = try Self.record(in: previous, at: "previous.") else {
                throw Self.bad("previous")
            }
            record.signature = try Self.signature(in: previous, at: "previous.")
            self.previous = record
        }
        if let maintained = object["maintainedAt"] {
            guard let maintained = maintained.string else { throw Self.bad("maintainedAt") }
            maintainedAt = maintained
        }
        if let checked = object["checked"] {
            guard let checked = checked.object, let digest = checked["sha256"].flatMap(Self.digest),
                  let level = checked["integrity"]?.string.flatMap(IntegrityLevel.init(rawValue:))
            else { throw Self.bad("checked") }
            let tables = checked["tables"]?.strings
            if checked["tables"] != nil && tables == nil { throw Self.bad("checked.tables") }
            self.checked = ValidationMemo(sha256: digest, integrity: level, tables: tables)
            self.checked?.tableDigests = try Self.tableDigests(in: checked, at: "checked.")
        }
        if let source = object["source"] {
            // An entry written before the change time was part of the identity lacks
            // `changed`: a cache miss, not a damaged entry.
            guard let source = source.object, ["device", "inode", "size", "modified"].allSatisfy({ source[$0]?.integer != nil }),
                  let digest = source["sha256"].flatMap(Self.digest)
            else { throw Self.bad("source") }
            if let changed = source["changed"] {
                guard changed.integer != nil, let identity = Self.identity(in: source) else { throw Self.bad("source.changed") }
                self.source = SourceDigest(identity: identity, sha256: digest)
            }
        }
        if let location = object["location"] {
            guard let location = location.string.flatMap(SeedLocation.init(rawValue:)) else { throw Self.bad("location") }
            self.location = location
        }
        if let generation = object["generation"] {
            guard let generation = generation.string else { throw Self.bad("generation") }
            self.generation = generation
        }
        if let held = object["heldFrom"] {
            guard let held = held.string.flatMap({ try? SeedVersion($0) }) else { throw Self.bad("heldFrom") }
            heldFrom = held
        }
        if let value = object["interrupted"] {
            guard let run = value.object,
                  let version = run["version"]?.string.flatMap({ try? SeedVersion($0) }),
                  let isRollback = run["rollback"]?.bool
            else { throw Self.bad("interrupted") }
            var replacing: DeployRecord?
            if let old = run["replacing"] {
                guard let old = old.object, let record = try Self.record(in: old, at: "interrupted.replacing.") else { throw Self.bad("interrupted.replacing") }
                replacing = record
            }
            var base: SHA256Digest?
            if let value = run["base"] {
                guard let digest = Self.digest(value) else { throw Self.bad("interrupted.base") }
                base = digest
            }
            let generation = run["generation"]?.string
            if run["generation"] != nil && generation == nil { throw Self.bad("interrupted.generation") }
            let seedTables = run["seedTables"]?.strings
            if run["seedTables"] != nil && seedTables == nil { throw Self.bad("interrupted.seedTables") }
            var snapshot: SHA256Digest?
            if let value = run["snapshot"] {
                guard let digest = Self.digest(value) else { throw Self.bad("interrupted.snapshot") }
                snapshot = digest
            }
            let replacingGeneration = run["replacingGeneration"]?.string
            if run["replacingGeneration"] != nil && replacingGeneration == nil { throw Self.bad("interrupted.replacingGeneration") }
            let adopting = run["adopting"]?.bool
            if run["adopting"] != nil && adopting == nil { throw Self.bad("interrupted.adopting") }
            var release: [ReleaseSeed]?
            if let value = run["release"] {
                guard let seeds = value.array else { throw Self.bad("interrupted.release") }
                release = try seeds.map { (seed) throws(ShapeError) in
                    guard let seed = seed.object, let name = seed["name"]?.string,
                          let version = seed["version"]?.string.flatMap({ try? SeedVersion($0) })
                    else { throw Self.bad("interrupted.release") }
                    return ReleaseSeed(name: name, version: version)
                }
            }
            interrupted = InterruptedRun(
                version: version, generation: generation, replacing: replacing, base: base, seedTables: seedTables,
                isRollback: isRollback, snapshot: snapshot, replacingGeneration: replacingGeneration, adopting: adopting ?? false,
                release: release, tableDigests: try Self.tableDigests(in: run, at: "interrupted."))
        }
        if let link = object["seedLink"] {
            guard let path = link.string, path.hasPrefix("/"), object["readOnly"]?.bool == true else { throw Self.bad("seedLink") }
            seedLink = path
        } else if object["readOnly"] != nil {
            throw Self.bad("readOnly")
        }
        if let value = object["pristine"] {
            guard let identity = value.object.flatMap(Self.identity(in:)) else { throw Self.bad("pristine") }
            pristine = identity
        }
        // Only with the digest it vouches for (one left without it, by a hand that removed
        // `"base"`, vouches for nothing and is dropped at the next write).
        if let value = object["baseFile"], base != nil {
            guard let identity = value.object.flatMap(Self.identity(in:)) else { throw Self.bad("baseFile") }
            baseIdentity = identity
        }
        signature = try Self.signature(in: object, at: "")
    }

    /// The entry as a JSON object.
    var json: JSONValue {
        var object = record.map(Self.members(of:)) ?? [:]
        if let previous { object["previous"] = .object(Self.members(of: previous)) }
        if let maintainedAt { object["maintainedAt"] = .string(maintainedAt) }
        if let checked {
            var memo: [String: JSONValue] = ["sha256": .string(checked.sha256.hex), "integrity": .string(checked.integrity.rawValue)]
            if let tables = checked.tables { memo["tables"] = .array(tables.map(JSONValue.string)) }
            if let digests = checked.tableDigests { memo["tableDigests"] = Self.jsonValue(of: digests) }
            object["checked"] = .object(memo)
        }
        if let source {
            object["source"] = .object(Self.members(of: source.identity).merging(["sha256": .string(source.sha256.hex)]) { $1 })
        }
        if let pristine { object["pristine"] = .object(Self.members(of: pristine)) }
        if let base { object["base"] = .string(base.hex) }
        if let baseIdentity, base != nil { object["baseFile"] = .object(Self.members(of: baseIdentity)) }
        if let location { object["location"] = .string(location.rawValue) }
        if let generation { object["generation"] = .string(generation) }
        if let heldFrom { object["heldFrom"] = .string(heldFrom.rawValue) }
        if let seedLink {
            object["readOnly"] = .bool(true)
            object["seedLink"] = .string(seedLink)
        }
        if let interrupted {
            var run: [String: JSONValue] = ["version": .string(interrupted.version.rawValue), "rollback": .bool(interrupted.isRollback)]
            if let generation = interrupted.generation { run["generation"] = .string(generation) }
            if let replacing = interrupted.replacing { run["replacing"] = .object(Self.members(of: replacing)) }
            if let base = interrupted.base { run["base"] = .string(base.hex) }
            if let snapshot = interrupted.snapshot { run["snapshot"] = .string(snapshot.hex) }
            if let old = interrupted.replacingGeneration { run["replacingGeneration"] = .string(old) }
            if interrupted.adopting { run["adopting"] = .bool(true) }
            if let seedTables = interrupted.seedTables { run["seedTables"] = .array(seedTables.map(JSONValue.string)) }
            if let digests = interrupted.tableDigests { run["tableDigests"] = Self.jsonValue(of: digests) }
            if let release = interrupted.release {
                run["release"] = .array(release.map { .object(["name": .string($0.name), "version": .string($0.version.rawValue)]) })
            }
            object["interrupted"] = .object(run)
        }
        if let signature { object["signature"] = Self.jsonValue(of: signature) }
        return .object(object)
    }

    /// A file's identity as the entry writes it (`source`, `pristine`, `baseFile`).
    private static func members(of identity: FileIdentity) -> [String: JSONValue] {
        ["device": JSONValue(Int64(bitPattern: identity.device)), "inode": JSONValue(Int64(bitPattern: identity.inode)),
         "size": JSONValue(identity.size), "modified": JSONValue(identity.modifiedNanoseconds),
         "changed": JSONValue(identity.changedNanoseconds)]
    }

    /// The identity ``members(of:)`` wrote, `nil` when a part is missing or not an integer.
    private static func identity(in object: [String: JSONValue]) -> FileIdentity? {
        guard let device = object["device"]?.integer, let inode = object["inode"]?.integer, let size = object["size"]?.integer,
              let modified = object["modified"]?.integer, let changed = object["changed"]?.integer else { return nil }
        return FileIdentity(
            device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
            modifiedNanoseconds: modified, changedNanoseconds: changed)
    }

    private static let recordKeys = ["version", "sha256", "size", "deployedAt"]

    /// Decodes the four record keys of `object`: all absent is `nil`, all valid is a record.
    private static func record(in object: [String: JSONValue], at prefix: String) throws(ShapeError) -> DeployRecord? {
        guard recordKeys.contains(where: { object[$0] != nil }) else { return nil }
        guard let version = object["version"]?.string.flatMap({ try? SeedVersion($0) }) else { throw bad(prefix + "version") }
        // Absent for a read-only seed's link whose digest was not known (and for that
        // record as a run under way replaces it); present, it must be a digest.
        let sha256 = object["sha256"].flatMap(digest)
        if sha256 == nil && object["sha256"] != nil { throw bad(prefix + "sha256") }
        guard let size = object["size"]?.integer, size >= 0 else { throw bad(prefix + "size") }
        guard let deployedAt = object["deployedAt"]?.string else { throw bad(prefix + "deployedAt") }
        var base: SHA256Digest?
        if !prefix.isEmpty, let value = object["base"] {
            guard let digest = digest(value) else { throw bad(prefix + "base") }
            base = digest
        }
        var seedTables: [String]?
        if let value = object["seedTables"] {
            guard let names = value.strings else { throw bad(prefix + "seedTables") }
            seedTables = names
        }
        var record = DeployRecord(version: version, sha256: sha256, size: size, deployedAt: deployedAt, base: base, seedTables: seedTables)
        record.tableDigests = try tableDigests(in: object, at: prefix)
        return record
    }

    /// The `tableDigests` object of `object` (`{"table": "hex"}`), `nil` when absent.
    private static func tableDigests(in object: [String: JSONValue], at prefix: String) throws(ShapeError) -> [String: SHA256Digest]? {
        guard let value = object["tableDigests"] else { return nil }
        guard let members = value.object else { throw bad(prefix + "tableDigests") }
        var digests: [String: SHA256Digest] = [:]
        for (table, hex) in members {
            guard let digest = digest(hex) else { throw bad(prefix + "tableDigests") }
            digests[table] = digest
        }
        return digests
    }

    /// Table digests as the entry writes them.
    private static func jsonValue(of digests: [String: SHA256Digest]) -> JSONValue {
        .object(digests.mapValues { .string($0.hex) })
    }

    private static func members(of record: DeployRecord) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "version": .string(record.version.rawValue),
            "size": JSONValue(record.size), "deployedAt": .string(record.deployedAt),
        ]
        if let sha256 = record.sha256 { object["sha256"] = .string(sha256.hex) }
        if let base = record.base { object["base"] = .string(base.hex) }
        if let seedTables = record.seedTables { object["seedTables"] = .array(seedTables.map(JSONValue.string)) }
        if let digests = record.tableDigests { object["tableDigests"] = jsonValue(of: digests) }
        if let signature = record.signature { object["signature"] = jsonValue(of: signature) }
        return object
    }

    /// A SHA-256 digest written as hex.
    private static func digest(_ value: JSONValue) -> SHA256Digest? {
        value.string.flatMap { try? SHA256Digest(hex: $0) }
    }

    private static func bad(_ field: String) -> ShapeError {
        ShapeError(field: field)
    }
}

