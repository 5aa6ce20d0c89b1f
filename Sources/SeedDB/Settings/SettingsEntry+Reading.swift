import SeedDBCore

// An entry is decoded straight from the settings file's bytes, with no `JSONValue`
// between: the startup check reads one entry, and building the values of its members
// and looking each one up again cost more than the rest of the check in user space.
//
// Each object is read into a struct of its members first, then checked as a whole, so
// a member's order in the file changes nothing. A member's type is a double optional:
// `nil` when the key is absent, `.some(nil)` when its value has the wrong type (for a
// digest, also when it is a string but not one).

extension SettingsEntry {
    /// Reads an entry's object from `parser`, to the end of its value.
    ///
    /// - Returns: The entry, or the ``ShapeError`` that names the field missing or
    ///   mistyped. A shape error does not stop the reading: the caller goes on through the
    ///   rest of the text, and a syntax error anywhere in it wins.
    /// - Throws: ``SeedDBError`` `invalidManifest` for text that is not JSON.
    static func read(_ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Result<SettingsEntry, ShapeError> {
        // An entry was a value kept whole: every object in it, known or not, refuses a key
        // that only looks like an earlier one.
        let refused = parser.refusesLookalikeKeys
        parser.refusesLookalikeKeys = true
        defer { parser.refusesLookalikeKeys = refused }
        // Read in place: the members of an entry are a large value, not to be copied.
        var members = EntryMembers()
        guard try members.readObject(&parser, depth: depth) else { return .failure(ShapeError(field: "entry")) }
        do {
            return .success(try SettingsEntry(members))
        } catch {
            return .failure(error)
        }
    }

    /// Checks the members read and makes the entry of them.
    private init(_ members: EntryMembers) throws(ShapeError) {
        record = try members.record.record(at: "")
        if let value = members.record.base {
            guard let digest = value else { throw ShapeError(field: "base") }
            base = digest
        }
        if let value = members.previous {
            guard let previous = value, var record = try previous.record(at: "previous.") else { throw ShapeError(field: "previous") }
            record.signature = try previous.signature(at: "previous.")
            self.previous = record
        }
        if let value = members.maintainedAt {
            guard let maintained = value else { throw ShapeError(field: "maintainedAt") }
            maintainedAt = maintained
        }
        if let value = members.checked {
            guard let checked = value, let digest = checked.sha256 ?? nil,
                  let level = checked.integrity?.flatMap(IntegrityLevel.init(rawValue:))
            else { throw ShapeError(field: "checked") }
            if let tables = checked.tables, tables == nil { throw ShapeError(field: "checked.tables") }
            self.checked = ValidationMemo(sha256: digest, integrity: level, tables: checked.tables ?? nil)
            self.checked?.tableDigests = try Self.tableDigests(checked.tableDigests, at: "checked.")
        }
        if let value = members.source {
            // An entry written before the change time was part of the identity lacks
            // `changed`: a cache miss, not a damaged entry.
            guard let source = value, [source.device, source.inode, source.size, source.modified].allSatisfy({ ($0 ?? nil) != nil }),
                  let digest = source.sha256 ?? nil
            else { throw ShapeError(field: "source") }
            if source.changed != nil {
                guard let identity = source.identity else { throw ShapeError(field: "source.changed") }
                self.source = SourceDigest(identity: identity, sha256: digest)
            }
        }
        if let value = members.location {
            guard let location = value.flatMap(SeedLocation.init(rawValue:)) else { throw ShapeError(field: "location") }
            self.location = location
        }
        if let value = members.generation {
            guard let generation = value else { throw ShapeError(field: "generation") }
            self.generation = generation
        }
        if let value = members.heldFrom {
            guard let held = value.flatMap({ try? SeedVersion($0) }) else { throw ShapeError(field: "heldFrom") }
            heldFrom = held
        }
        if let value = members.interrupted {
            guard let run = value else { throw ShapeError(field: "interrupted") }
            interrupted = try InterruptedRun(run)
        }
        if let value = members.seedLink {
            guard let path = value, path.hasPrefix("/"), members.readOnly == true else { throw ShapeError(field: "seedLink") }
            seedLink = path
        } else if members.readOnly != nil {
            throw ShapeError(field: "readOnly")
        }
        if let value = members.pristine {
            guard let identity = value?.identity else { throw ShapeError(field: "pristine") }
            pristine = identity
        }
        // Only with the digest it vouches for (one left without it, by a hand that removed
        // `"base"`, vouches for nothing and is dropped at the next write).
        if let value = members.baseFile, base != nil {
            guard let identity = value?.identity else { throw ShapeError(field: "baseFile") }
            baseIdentity = identity
        }
        signature = try members.record.signature(at: "")
    }

    /// The `tableDigests` member read (`{"table": "hex"}`), `nil` when absent.
    fileprivate static func tableDigests(_ member: [String: SHA256Digest]??, at prefix: String) throws(ShapeError) -> [String: SHA256Digest]? {
        guard let member else { return nil }
        guard let digests = member else { throw ShapeError(field: prefix + "tableDigests") }
        return digests
    }
}

extension SettingsEntry.InterruptedRun {
    /// Checks the members of `"interrupted"` and makes the run of them.
    fileprivate init(_ run: InterruptedMembers) throws(SettingsEntry.ShapeError) {
        typealias ShapeError = SettingsEntry.ShapeError
        guard let version = run.version?.flatMap({ try? SeedVersion($0) }), let isRollback = run.rollback ?? nil
        else { throw ShapeError(field: "interrupted") }
        var replacing: DeployRecord?
        if let value = run.replacing {
            guard let old = value, let record = try old.record(at: "interrupted.replacing.") else { throw ShapeError(field: "interrupted.replacing") }
            replacing = record
        }
        var base: SHA256Digest?
        if let value = run.base {
            guard let digest = value else { throw ShapeError(field: "interrupted.base") }
            base = digest
        }
        if let generation = run.generation, generation == nil { throw ShapeError(field: "interrupted.generation") }
        if let seedTables = run.seedTables, seedTables == nil { throw ShapeError(field: "interrupted.seedTables") }
        var snapshot: SHA256Digest?
        if let value = run.snapshot {
            guard let digest = value else { throw ShapeError(field: "interrupted.snapshot") }
            snapshot = digest
        }
        if let old = run.replacingGeneration, old == nil { throw ShapeError(field: "interrupted.replacingGeneration") }
        if let adopting = run.adopting, adopting == nil { throw ShapeError(field: "interrupted.adopting") }
        if let reseed = run.reseed, reseed == nil || (reseed == true && isRollback) { throw ShapeError(field: "interrupted.reseed") }
        var replacingFile: FileIdentity?
        if let value = run.replacingFile {
            guard let identity = value?.identity else { throw ShapeError(field: "interrupted.replacingFile") }
            replacingFile = identity
        }
        if let release = run.release, release == nil { throw ShapeError(field: "interrupted.release") }
        // A link straight to a seed names an absolute path, and a run makes a link or a generation, not both.
        if let seedLink = run.seedLink, seedLink?.hasPrefix("/") != true || (run.generation ?? nil) != nil {
            throw ShapeError(field: "interrupted.seedLink")
        }
        self.init(
            version: version, generation: run.generation ?? nil, replacing: replacing, base: base, seedTables: run.seedTables ?? nil,
            isRollback: isRollback, snapshot: snapshot, replacingGeneration: run.replacingGeneration ?? nil,
            adopting: (run.adopting ?? nil) ?? false, replacingFile: replacingFile, release: run.release ?? nil,
            tableDigests: try SettingsEntry.tableDigests(run.tableDigests, at: "interrupted."), seedLink: run.seedLink ?? nil)
        isReseed = (run.reseed ?? nil) ?? false
        if let value = run.carry {
            guard let outcome = value?.outcome else { throw ShapeError(field: "interrupted.carry") }
            carry = outcome
        }
        if let unsigned = run.unsigned, unsigned != true || run.signature != nil { throw ShapeError(field: "interrupted.unsigned") }
        if let signature = try SignatureMembers.signature(run.signature, at: "interrupted.") {
            runSignature = .signed(signature)
        } else if run.unsigned != nil {
            runSignature = .unsigned
        }
    }
}

/// An object's members as read: a key it knows is read into its member, any other is
/// read and left out.
private protocol ObjectMembers {
    init()
    /// Reads the value of `key` into its member; `false`, nothing read, for a key it does
    /// not know.
    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool
}

/// A member's key as the members' `switch` matches it: by its length, then its bytes,
/// where a `switch` over `String`s compares it with each case in turn as Unicode text
/// (an entry's keys met some 120 cases before their own, most of the cost of matching
/// them). A key that is not ASCII is compared as text, as before: it can be equal to a
/// case with other bytes (U+212A, the Kelvin sign, is `K`).
private struct MemberKey {
    /// The key as read.
    let text: String
    /// Whether it is all ASCII.
    let isASCII: Bool
    /// Its length in UTF-8 bytes.
    let length: Int

    init(_ key: JSONValue.Key) {
        (text, isASCII, length) = (key.text, key.isASCII, key.text.utf8.count)
    }

    /// Whether `key` is the case `pattern`. (Inlined into each case: called, it costs
    /// more than the comparison of `String`s it replaces.)
    @inline(__always)
    static func ~= (pattern: StaticString, key: MemberKey) -> Bool {
        guard key.isASCII else { return pattern.description == key.text }
        guard pattern.utf8CodeUnitCount == key.length else { return false }
        var text = key.text
        return text.withUTF8 { bytes in pattern.withUTF8Buffer { bytes.hasBytes($0) } }
    }
}

extension ObjectMembers {
    /// Reads the object `parser` is at into these members; `false`, the value read and
    /// left out, when it is not an object.
    mutating func readObject(_ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        try parser.readMembers(depth: depth) { (parser, key, depth) throws(SeedDBError) in
            if try !read(MemberKey(key), &parser, depth: depth) { try parser.skipValue(depth: depth) }
        }
    }

    /// The members of the object `parser` reads; `nil` when the value is not an object.
    static func read(_ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Self? {
        var members = Self()
        return try members.readObject(&parser, depth: depth) ? members : nil
    }
}

/// The members of an entry's object as read.
private struct EntryMembers: ObjectMembers {
    /// The record's members, the entry's `base` and `signature` among them.
    var record = RecordMembers()
    var previous: RecordMembers??
    var maintainedAt: String??
    var checked: CheckedMembers??
    var source: IdentityMembers??
    var location: String??
    var generation: String??
    var heldFrom: String??
    var interrupted: InterruptedMembers??
    var seedLink: String??
    var readOnly: Bool??
    var pristine: IdentityMembers??
    var baseFile: IdentityMembers??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "previous": previous = try RecordMembers.read(&parser, depth: depth)
        case "maintainedAt": maintainedAt = try parser.readString(depth: depth)
        case "checked": checked = try CheckedMembers.read(&parser, depth: depth)
        case "source": source = try IdentityMembers.read(&parser, depth: depth)
        case "location": location = try parser.readString(depth: depth)
        case "generation": generation = try parser.readString(depth: depth)
        case "heldFrom": heldFrom = try parser.readString(depth: depth)
        case "interrupted": interrupted = try InterruptedMembers.read(&parser, depth: depth)
        case "seedLink": seedLink = try parser.readString(depth: depth)
        case "readOnly": readOnly = try parser.readBool(depth: depth)
        case "pristine": pristine = try IdentityMembers.read(&parser, depth: depth)
        case "baseFile": baseFile = try IdentityMembers.read(&parser, depth: depth)
        default: return try record.read(key, &parser, depth: depth)
        }
        return true
    }
}

/// The members of a record's object (an entry's own, `previous`, `interrupted.replacing`)
/// as read.
private struct RecordMembers: ObjectMembers {
    var version: String??
    var sha256: SHA256Digest??
    var size: Int64??
    var deployedAt: String??
    var base: SHA256Digest??
    var seedTables: [String]??
    var tableDigests: [String: SHA256Digest]??
    var signature: SignatureMembers??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "version": version = try parser.readString(depth: depth)
        case "sha256": sha256 = try parser.readDigest(depth: depth)
        case "size": size = try parser.readInteger(depth: depth)
        case "deployedAt": deployedAt = try parser.readString(depth: depth)
        case "base": base = try parser.readDigest(depth: depth)
        case "seedTables": seedTables = try parser.readStrings(depth: depth)
        case "tableDigests": tableDigests = try readTableDigests(&parser, depth: depth)
        case "signature": signature = try SignatureMembers.read(&parser, depth: depth)
        default: return false
        }
        return true
    }

    /// The record: `nil` when none of its four keys (`version`, `sha256`, `size`,
    /// `deployedAt`) is there. Outside an entry's own members (a non-empty `prefix`),
    /// `base` is the record's.
    func record(at prefix: String) throws(SettingsEntry.ShapeError) -> DeployRecord? {
        typealias ShapeError = SettingsEntry.ShapeError
        guard version != nil || sha256 != nil || size != nil || deployedAt != nil else { return nil }
        guard let version = version?.flatMap({ try? SeedVersion($0) }) else { throw ShapeError(field: prefix + "version") }
        // Absent for a read-only seed's link whose digest was not known (and for that
        // record as a run under way replaces it); present, it must be a digest.
        var digest: SHA256Digest?
        if let value = sha256 {
            guard let valid = value else { throw ShapeError(field: prefix + "sha256") }
            digest = valid
        }
        guard let size = size ?? nil, size >= 0 else { throw ShapeError(field: prefix + "size") }
        guard let deployedAt = deployedAt ?? nil else { throw ShapeError(field: prefix + "deployedAt") }
        var recordBase: SHA256Digest?
        if !prefix.isEmpty, let value = base {
            guard let valid = value else { throw ShapeError(field: prefix + "base") }
            recordBase = valid
        }
        if let names = seedTables, names == nil { throw ShapeError(field: prefix + "seedTables") }
        var record = DeployRecord(
            version: version, sha256: digest, size: size, deployedAt: deployedAt, base: recordBase, seedTables: seedTables ?? nil)
        record.tableDigests = try SettingsEntry.tableDigests(tableDigests, at: prefix)
        return record
    }

    /// `"signature": {"keyId": "<hex>", "serial": N, "publicKey": "<base64>"}`, if there.
    func signature(at prefix: String) throws(SettingsEntry.ShapeError) -> SeedSignature? {
        try SignatureMembers.signature(signature, at: prefix)
    }
}

extension SignatureMembers {
    /// The signature `member` holds, `nil` when absent. A public key must be a minisign
    /// key with that key id.
    static func signature(_ member: SignatureMembers??, at prefix: String) throws(SettingsEntry.ShapeError) -> SeedSignature? {
        guard let value = member else { return nil }
        guard let fields = value, let keyID = fields.keyID ?? nil, let serial = fields.serial ?? nil
        else { throw SettingsEntry.ShapeError(field: prefix + "signature") }
        var signature = SeedSignature(keyID: keyID, serial: serial)
        if let value = fields.publicKey {
            guard let text = value, (try? MinisignPublicKey(text: text))?.keyID.description == keyID
            else { throw SettingsEntry.ShapeError(field: prefix + "signature.publicKey") }
            signature.publicKey = text
        }
        return signature
    }
}

/// The members of `"signature"` as read.
private struct SignatureMembers: ObjectMembers {
    var keyID: String??
    var serial: UInt64??
    var publicKey: String??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "keyId": keyID = try parser.readString(depth: depth)
        case "serial": serial = try parser.readUnsignedInteger(depth: depth)
        case "publicKey": publicKey = try parser.readString(depth: depth)
        default: return false
        }
        return true
    }
}

/// The members of a file's identity (`source`, `pristine`, `baseFile`) as read, with the
/// digest `source` adds.
private struct IdentityMembers: ObjectMembers {
    var device: Int64??
    var inode: Int64??
    var size: Int64??
    var modified: Int64??
    var changed: Int64??
    var sha256: SHA256Digest??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "device": device = try parser.readInteger(depth: depth)
        case "inode": inode = try parser.readInteger(depth: depth)
        case "size": size = try parser.readInteger(depth: depth)
        case "modified": modified = try parser.readInteger(depth: depth)
        case "changed": changed = try parser.readInteger(depth: depth)
        case "sha256": sha256 = try parser.readDigest(depth: depth)
        default: return false
        }
        return true
    }

    /// The identity, `nil` when a part is missing or not an integer.
    var identity: FileIdentity? {
        guard let device = device ?? nil, let inode = inode ?? nil, let size = size ?? nil,
              let modified = modified ?? nil, let changed = changed ?? nil else { return nil }
        return FileIdentity(
            device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
            modifiedNanoseconds: modified, changedNanoseconds: changed)
    }
}

/// The members of `"checked"` as read.
private struct CheckedMembers: ObjectMembers {
    var sha256: SHA256Digest??
    var integrity: String??
    var tables: [String]??
    var tableDigests: [String: SHA256Digest]??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "sha256": sha256 = try parser.readDigest(depth: depth)
        case "integrity": integrity = try parser.readString(depth: depth)
        case "tables": tables = try parser.readStrings(depth: depth)
        case "tableDigests": tableDigests = try readTableDigests(&parser, depth: depth)
        default: return false
        }
        return true
    }
}

/// The members of `"interrupted"` as read.
private struct InterruptedMembers: ObjectMembers {
    var version: String??
    var rollback: Bool??
    var replacing: RecordMembers??
    var base: SHA256Digest??
    var generation: String??
    var seedTables: [String]??
    var snapshot: SHA256Digest??
    var replacingGeneration: String??
    var adopting: Bool??
    var reseed: Bool??
    var signature: SignatureMembers??
    var unsigned: Bool??
    var replacingFile: IdentityMembers??
    var release: [SettingsEntry.ReleaseSeed]??
    var tableDigests: [String: SHA256Digest]??
    var seedLink: String??
    var carry: CarryMembers??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "version": version = try parser.readString(depth: depth)
        case "carry": carry = try CarryMembers.read(&parser, depth: depth)
        case "seedLink": seedLink = try parser.readString(depth: depth)
        case "rollback": rollback = try parser.readBool(depth: depth)
        case "replacing": replacing = try RecordMembers.read(&parser, depth: depth)
        case "base": base = try parser.readDigest(depth: depth)
        case "generation": generation = try parser.readString(depth: depth)
        case "seedTables": seedTables = try parser.readStrings(depth: depth)
        case "snapshot": snapshot = try parser.readDigest(depth: depth)
        case "replacingGeneration": replacingGeneration = try parser.readString(depth: depth)
        case "adopting": adopting = try parser.readBool(depth: depth)
        case "reseed": reseed = try parser.readBool(depth: depth)
        case "signature": signature = try SignatureMembers.read(&parser, depth: depth)
        case "unsigned": unsigned = try parser.readBool(depth: depth)
        case "replacingFile": replacingFile = try IdentityMembers.read(&parser, depth: depth)
        case "release": release = try readRelease(&parser, depth: depth)
        case "tableDigests": tableDigests = try readTableDigests(&parser, depth: depth)
        default: return false
        }
        return true
    }
}

/// The members of an interrupted run's `"carry"` as read.
private struct CarryMembers: ObjectMembers {
    var carried: [String]??
    var merge: MergeMembers??
    var discarded: [String]??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "carried": carried = try parser.readStrings(depth: depth)
        case "merge": merge = try MergeMembers.read(&parser, depth: depth)
        case "discarded": discarded = try parser.readStrings(depth: depth)
        default: return false
        }
        return true
    }

    /// The outcome, `nil` when a member is missing or not of its kind.
    var outcome: SettingsEntry.CarryOutcome? {
        guard let carried = carried ?? nil else { return nil }
        var merge: MergeSummary?
        if let value = self.merge {
            guard let summary = value?.summary else { return nil }
            merge = summary
        }
        if let discarded, discarded == nil { return nil }
        return SettingsEntry.CarryOutcome(carried: carried, merge: merge, discarded: discarded ?? nil)
    }
}

/// The members of a carry's `"merge"` as read.
private struct MergeMembers: ObjectMembers {
    var inserted: Int64??
    var updated: Int64??
    var deleted: Int64??
    var conflicts: Int64??
    var withoutBase: Bool??

    mutating func read(_ key: MemberKey, _ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> Bool {
        switch key {
        case "inserted": inserted = try parser.readInteger(depth: depth)
        case "updated": updated = try parser.readInteger(depth: depth)
        case "deleted": deleted = try parser.readInteger(depth: depth)
        case "conflicts": conflicts = try parser.readInteger(depth: depth)
        case "withoutBase": withoutBase = try parser.readBool(depth: depth)
        default: return false
        }
        return true
    }

    /// The summary, `nil` when a count is missing, negative or not an integer.
    var summary: MergeSummary? {
        func count(_ member: Int64??) -> Int? { (member ?? nil).flatMap { $0 >= 0 ? Int(exactly: $0) : nil } }
        guard let inserted = count(inserted), let updated = count(updated), let deleted = count(deleted),
              let conflicts = count(conflicts) else { return nil }
        if let withoutBase, withoutBase == nil { return nil }
        var summary = MergeSummary(inserted: inserted, updated: updated, deleted: deleted, conflicts: conflicts)
        summary.withoutBase = (withoutBase ?? nil) ?? false
        return summary
    }
}

/// A `tableDigests` object (`{"table": "hex"}`); `nil`, read to its end, when it is not an
/// object or a value (the last of a table written twice) is not a digest.
private func readTableDigests(_ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> [String: SHA256Digest]? {
    var read: [String: SHA256Digest?] = [:]
    let isObject = try parser.readMembers(depth: depth) { (parser, key, depth) throws(SeedDBError) in
        try parser.keep(try parser.readDigest(depth: depth), forKey: key, in: &read)
    }
    var digests: [String: SHA256Digest] = [:]
    for (table, digest) in read {
        guard let digest else { return nil }
        digests[table] = digest
    }
    return isObject ? digests : nil
}

/// A release marker's seeds (`[{"name", "version"}]`); `nil`, read to its end, when it is
/// not an array or a seed lacks either.
private func readRelease(_ parser: inout JSONValue.Parser, depth: Int) throws(SeedDBError) -> [SettingsEntry.ReleaseSeed]? {
    var seeds: [SettingsEntry.ReleaseSeed] = []
    var allSeeds = true
    let isArray = try parser.readElements(depth: depth) { (parser, depth) throws(SeedDBError) in
        var name: String??, version: String??
        let isObject = try parser.readMembers(depth: depth) { (parser, key, depth) throws(SeedDBError) in
            switch key.text {
            case "name": name = try parser.readString(depth: depth)
            case "version": version = try parser.readString(depth: depth)
            default: try parser.skipValue(depth: depth)
            }
        }
        if isObject, let name = name ?? nil, let version = (version ?? nil).flatMap({ try? SeedVersion($0) }) {
            seeds.append(SettingsEntry.ReleaseSeed(name: name, version: version))
        } else {
            allSeeds = false
        }
    }
    return isArray && allSeeds ? seeds : nil
}
