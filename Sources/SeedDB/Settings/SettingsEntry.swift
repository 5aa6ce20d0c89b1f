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
    /// and an upgrade has nothing of the user's to merge. For a read-only seed's link
    /// (``seedLink``), whose content file is the seed file: that file's identity as the
    /// run that recorded the link saw it, so another file renamed into the seed's path at
    /// the recorded version is looked at (`nil`: not looked at, and looked at next).
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
        /// The generation file a swap installs (`nil` for a live replace, and for a
        /// read-only deploy, whose marker has ``seedLink``).
        public var generation: String?
        /// The record of what the run replaces, to become the previous generation's.
        public var replacing: DeployRecord?
        /// The digest of the merge base the run puts in place, if any.
        public var base: SHA256Digest?
        /// The tables of the content the run installs, before anything is carried into it.
        public var seedTables: [String]?
        /// Whether the run is a rollback.
        public var isRollback: Bool
        /// Whether the run is a reseed (`"reseed": true`), so a run that finishes it says
        /// `reseeded`; absent in markers written before it was.
        public var isReseed = false
        /// The signature the run records (`"signature"`, or `"unsigned": true`), so the run
        /// that finishes it records that one, not its own: a killed run's newer serial
        /// pins, and an older release met next is refused as a downgrade.
        public var runSignature: RunSignature = .unknown
        /// For a live replace: the digest of the snapshot of the old content it makes the
        /// previous generation, written down before the snapshot takes that name, so the
        /// next run knows the previous generation holds ``replacing``'s content.
        public var snapshot: SHA256Digest? = nil
        /// The generation file the working copy's link named when the run started: the
        /// old content a swap (or a switch to a read-only link) keeps as the previous
        /// generation.
        public var replacingGeneration: String? = nil
        /// Whether the old content is a database SeedDB adopted (no record matched it).
        public var adopting = false
        /// The identity of the regular file at the working-copy path the run replaces (an
        /// install made before generations, or an adopted database): while that very file
        /// is still there, the run never switched, and its ``generation`` was never linked.
        public var replacingFile: FileIdentity? = nil
        /// When the run is one seed of a release (a manifest's seeds deployed as one, see
        /// `Deployer.deploy(release:force:)`): every seed the release installs, this one
        /// included, with the version it installs. Each seed's marker names them all, and
        /// the release clears them all in one settings write; a run that finds one knows
        /// the release is unfinished. `nil` for a run of one seed.
        public var release: [ReleaseSeed]? = nil
        /// The digests of the seed tables the run records (``DeployRecord/tableDigests``).
        public var tableDigests: [String: SHA256Digest]? = nil
        /// For a read-only deploy (``Seed/readOnly``): the seed file the run links the
        /// working copy to, so every run recognises that link as SeedDB's and finishes the
        /// run once the link is in place, or undoes it before. `nil` for a copy.
        public var seedLink: String? = nil
        /// What the run's carry did (`"carry"`), written down once it is done and before
        /// the switch, so the run that finishes it reports it as the killed run would have;
        /// `nil` before that, and for a run whose carry had nothing to report.
        public var carry: CarryOutcome? = nil

        /// Whether the run replaced the working copy's content in place (a live replace or
        /// a live rollback): it installs no generation file and links no seed, so whether
        /// its commit happened is not known from the names on disk.
        public var isLive: Bool { generation == nil && seedLink == nil }
    }

    /// What an interrupted run's carry did, as its report says it
    /// (``DeployReport/carried``, ``DeployReport/merge``, ``DeployReport/discarded``).
    public struct CarryOutcome: Sendable, Hashable {
        /// The tables carried from the old working copy.
        public var carried: [String]
        /// What the merge did; `nil` when nothing merged.
        public var merge: MergeSummary?
        /// The seed tables whose changes the carry replaced; `nil` when it replaced none
        /// (or could not tell).
        public var discarded: [String]?

        /// Creates an outcome.
        public init(carried: [String], merge: MergeSummary?, discarded: [String]?) {
            self.carried = carried
            self.merge = merge
            self.discarded = discarded
        }

        /// Whether there is nothing to report (no marker update is made for it): nothing
        /// carried, no merge, no table replaced that the user had changed.
        var isEmpty: Bool { carried.isEmpty && merge == nil && discarded?.isEmpty != false }
    }

    /// The signature an ``InterruptedRun`` records once finished.
    public enum RunSignature: Sendable, Hashable {
        /// Not written down (a marker written before markers carried it): the finishing
        /// run records its own.
        case unknown
        /// The run's manifest was not signed.
        case unsigned
        /// The run's manifest was signed so.
        case signed(SeedSignature)
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
            if interrupted.isReseed { run["reseed"] = .bool(true) }
            switch interrupted.runSignature {
            case .unknown: break
            case .unsigned: run["unsigned"] = .bool(true)
            case .signed(let signature): run["signature"] = Self.jsonValue(of: signature)
            }
            if let file = interrupted.replacingFile { run["replacingFile"] = .object(Self.members(of: file)) }
            if let seedLink = interrupted.seedLink { run["seedLink"] = .string(seedLink) }
            if let seedTables = interrupted.seedTables { run["seedTables"] = .array(seedTables.map(JSONValue.string)) }
            if let digests = interrupted.tableDigests { run["tableDigests"] = Self.jsonValue(of: digests) }
            if let carry = interrupted.carry { run["carry"] = Self.jsonValue(of: carry) }
            if let release = interrupted.release {
                run["release"] = .array(release.map { .object(["name": .string($0.name), "version": .string($0.version.rawValue)]) })
            }
            object["interrupted"] = .object(run)
        }
        if let signature { object["signature"] = Self.jsonValue(of: signature) }
        return .object(object)
    }

    /// A killed run's carry as its marker writes it: `{"carried": [...], "merge":
    /// {"inserted", "updated", "deleted", "conflicts", "withoutBase"}, "discarded": [...]}`.
    private static func jsonValue(of carry: CarryOutcome) -> JSONValue {
        var members: [String: JSONValue] = ["carried": .array(carry.carried.map(JSONValue.string))]
        if let merge = carry.merge {
            var counts: [String: JSONValue] = [
                "inserted": JSONValue(Int64(merge.inserted)), "updated": JSONValue(Int64(merge.updated)),
                "deleted": JSONValue(Int64(merge.deleted)), "conflicts": JSONValue(Int64(merge.conflicts)),
            ]
            if merge.withoutBase { counts["withoutBase"] = .bool(true) }
            members["merge"] = .object(counts)
        }
        if let discarded = carry.discarded { members["discarded"] = .array(discarded.map(JSONValue.string)) }
        return .object(members)
    }

    /// A file's identity as the entry writes it (`source`, `pristine`, `baseFile`).
    private static func members(of identity: FileIdentity) -> [String: JSONValue] {
        ["device": JSONValue(Int64(bitPattern: identity.device)), "inode": JSONValue(Int64(bitPattern: identity.inode)),
         "size": JSONValue(identity.size), "modified": JSONValue(identity.modifiedNanoseconds),
         "changed": JSONValue(identity.changedNanoseconds)]
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
}
