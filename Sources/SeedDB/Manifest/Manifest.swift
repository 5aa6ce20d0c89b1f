import Foundation
import SeedDBCore

/// A JSON file that describes an app's seeds, for install hooks and the CLI.
///
/// ```json
/// {"app": "com.example.levels",
///  "seeds": [{"source": "levels.sqlite", "name": "levels.sqlite", "version": "2",
///             "location": "data", "sha256": "…"}]}
/// ```
///
/// `source` is relative to the manifest's folder (or absolute); `source` and `version`
/// are required, the rest optional. `"preserve": ["progress"]` names tables whose rows
/// survive a replace or reseed; `"merge"` and `"mergeTables": {"levels": "seed-wins"}` say
/// how the user's edits are merged into each new seed (without `"merge"`, `user-wins` for
/// the `data` location and `off` for `cache`: ``MergePolicies/standard(for:)``);
/// `"readOnly": true` deploys the
/// seed as a link to its file, with no copy (``Seed/readOnly``). Unknown keys are errors, so a
/// typo never silently turns into a default.
///
/// A signed manifest (a minisign signature beside it, `seeds.json.minisig`) also has
/// `"serial": N`, a non-negative integer the publisher raises with each release, and may
/// have `"expires": "2027-01-01T00:00:00Z"` (ISO-8601); see ``SignedManifest``.
public struct Manifest: Sendable, Hashable {
    /// The most seeds one manifest may list.
    public static let maximumSeeds = 1000

    /// The app the seeds belong to.
    public var app: AppIdentifier
    /// The seeds, in manifest order, with sources resolved to paths.
    public var seeds: [Seed]
    /// The release number a signed manifest carries (`"serial"`); `nil` when absent.
    public var serial: UInt64?
    /// When a signed manifest stops being deployable (`"expires"`, ISO-8601, as written);
    /// `nil` when absent.
    public var expires: String?

    /// Loads and validates the manifest at `path`.
    ///
    /// The file is strict JSON (RFC 8259, UTF-8; a byte-order mark is skipped): trailing
    /// commas and duplicate keys are refused, and a syntax error names its line and
    /// column. A symbolic link is followed (as `/etc/alternatives` and dotfile managers
    /// make them); relative `source`s resolve against the folder of the file it points to.
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` (the file cannot be read) or
    ///   `invalidManifest`, naming the key at fault.
    public static func load(_ path: String) throws(SeedDBError) -> Manifest {
        try load(path, allowingNoSeeds: false).manifest
    }

    /// Loads the manifest at `path` and returns it with its decoded JSON object.
    ///
    /// - Parameter allowingNoSeeds: Accept `"seeds": []` (a manifest `pack` is about to
    ///   add the first seed to).
    static func load(_ path: String, allowingNoSeeds: Bool) throws(SeedDBError) -> (manifest: Manifest, document: [String: JSONValue]) {
        let target = FileSystem.resolvingLinks(path)
        let read: [UInt8]?
        do {
            read = try ManifestMemo.shared.read(target)
        } catch {
            // Still a link once resolved: it leads nowhere (a missing target, a loop).
            if (try? FileSystem.fileType(at: target)) == .symbolicLink {
                throw SeedDBError(.seedUnavailable, "manifest not found: \(path) is a symbolic link to a missing file or a loop", underlying: error)
            }
            throw SeedDBError(.seedUnavailable, error.message, underlying: error)
        }
        guard let bytes = read else {
            throw SeedDBError(.seedUnavailable, "manifest not found: \(path)")
        }
        do {
            let document = try Self.document(bytes)
            var manifest = try Manifest(document, folder: FileSystem.directory(of: target), allowingNoSeeds: allowingNoSeeds)
            for index in manifest.seeds.indices { manifest.seeds[index].manifest = path }
            return (manifest, document)
        } catch {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path): \(error.message)")
        }
    }

    /// Parses manifest bytes; relative sources resolve against `folder`.
    init(parsing bytes: [UInt8], folder: String) throws(SeedDBError) {
        try self.init(Self.document(bytes), folder: folder, allowingNoSeeds: false)
    }

    /// The JSON object in `bytes`, read under the strict rules (see ``load(_:)``).
    static func document(_ bytes: [UInt8]) throws(SeedDBError) -> [String: JSONValue] {
        guard let document = try JSONValue.parse(bytes[...], rules: .strict).object else {
            throw Self.error("the top level is not a JSON object")
        }
        return document
    }

    private init(_ document: [String: JSONValue], folder: String, allowingNoSeeds: Bool) throws(SeedDBError) {
        var reader = try ObjectReader(.object(document), at: "")
        app = try reader.field("app") { (value: String) throws(SeedDBError) in try AppIdentifier(value) }
        let entries = try reader.require("seeds", \.array)
        // A boolean is a number of the wrong kind here, as it was when Foundation read it.
        if let number = try reader.optional("serial", { (value) -> JSONValue? in value.bool != nil || value.isNumber ? value : nil }) {
            guard let serial = number.unsignedInteger else { throw Self.error("\"serial\" must be a non-negative integer") }
            self.serial = serial
        }
        expires = try reader.optionalField("expires") { (text) throws(SeedDBError) in
            guard Self.date(iso8601: text) != nil else {
                throw SeedDBError(.invalidManifest, "\(NameRules.quoted(text)) is not an ISO-8601 date (2027-01-01 or 2027-01-01T00:00:00Z)")
            }
            return text
        }
        try reader.finish()
        guard !entries.isEmpty || allowingNoSeeds else { throw Self.error("\"seeds\" is empty") }
        guard entries.count <= Self.maximumSeeds else { throw Self.error("\"seeds\" lists more than \(Self.maximumSeeds) seeds") }
        var seeds: [Seed] = []
        var names: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let seed = try Self.seed(entry, at: "seeds[\(index)]", app: app, folder: folder)
            if let first = names[seed.name.rawValue] {
                let clash = names.lookalikeKey(of: seed.name.rawValue).map { earlier in
                    "\(NameRules.escaped(earlier)) and \(NameRules.escaped(seed.name.rawValue)) look alike (another Unicode normalization), and one settings entry cannot keep them apart"
                } ?? "their files would collide"
                throw Self.error("seeds[\(first)] and seeds[\(index)] both name their working copy \"\(seed.name)\": \(clash)")
            }
            names[seed.name.rawValue] = index
            seeds.append(seed)
        }
        self.seeds = seeds
    }

    private static func seed(_ entry: JSONValue, at location: String, app: AppIdentifier, folder: String) throws(SeedDBError) -> Seed {
        var reader = try ObjectReader(entry, at: location)
        let source = try reader.require("source", \.string)
        let version = try reader.field("version") { (value: String) throws(SeedDBError) in try SeedVersion(value) }
        let name = try reader.optionalField("name") { (value: String) throws(SeedDBError) in try SeedName(value) }
        let seedLocation = try reader.optionalField("location") { (value: String) throws(SeedDBError) -> SeedLocation in
            guard let parsed = SeedLocation(rawValue: value) else {
                throw SeedDBError(.invalidManifest, "must be \"data\" or \"cache\"")
            }
            return parsed
        }
        let sha256 = try reader.optionalField("sha256") { (value: String) throws(SeedDBError) in try SHA256Digest(hex: value) }
        let preserveGiven = try reader.optional("preserve", \.array)
        let preserve = preserveGiven ?? []
        let tables = try preserve.enumerated().map { (index, table) throws(SeedDBError) -> String in
            guard let table = table.string else { throw error("\(location).preserve[\(index)] is not a string") }
            return table
        }
        let merge = try reader.optionalField("merge", Self.mergePolicy)
        var mergeTables: [String: MergePolicy] = [:]
        let mergeTablesGiven = try reader.optional("mergeTables", \.object)
        for (table, value) in mergeTablesGiven ?? [:] {
            guard let text = value.string else { throw error("\(location).mergeTables.\(table) is not a string") }
            do {
                mergeTables[table] = try Self.mergePolicy(text)
            } catch {
                throw Self.error("\(location).mergeTables.\(table): \(error.message)")
            }
        }
        let readOnly = try reader.optional("readOnly", \.bool) ?? false
        try reader.finish()
        // Even empty: a read-only seed has no rows of the user's to preserve or merge.
        if readOnly, let key = [("preserve", preserveGiven != nil), ("mergeTables", mergeTablesGiven != nil)].first(where: \.1)?.0 {
            throw error("\(location).\(key): a read-only seed is a link to the seed file, not a copy: it has no rows of the user's to preserve or merge; drop \"\(key)\", or deploy a copy")
        }
        guard !source.isEmpty else { throw error("\(location).source: it is empty") }
        let path = source.hasPrefix("/") ? source : folder + "/" + source
        do {
            let seedLocation = seedLocation ?? .data
            // No `merge` key and no `mergeTables`: the location's standard policies (none
            // for a read-only seed, which refuses any).
            let policies = merge == nil && mergeTables.isEmpty ? nil
                : MergePolicies(default: merge ?? MergePolicies.standard(for: seedLocation).default, tables: mergeTables)
            return try Seed(app: app, source: path, version: version, location: seedLocation, name: name, expectedSHA256: sha256, preservedTables: tables,
                            merge: policies, readOnly: readOnly)
        } catch {
            throw Self.error("\(location): \(error.message)")
        }
    }

    /// An ISO-8601 date-time (with `Z` or an offset, fractional seconds allowed) or a date
    /// alone (midnight UTC).
    static func date(iso8601 text: String) -> Date? {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    fileprivate static func error(_ message: String) -> SeedDBError {
        SeedDBError(.invalidManifest, message)
    }
}

/// Reads a JSON object's fields by name, remembering which were read so that
/// ``finish()`` can reject the rest as unknown keys.
extension Manifest {
    /// A merge policy named in a manifest (the caller names where).
    static func mergePolicy(_ text: String) throws(SeedDBError) -> MergePolicy {
        guard let policy = MergePolicy(rawValue: text) else {
            throw SeedDBError(.invalidManifest, "\(NameRules.quoted(text)) is not a merge policy (off, seed-wins, user-wins or fail)")
        }
        return policy
    }
}

private struct ObjectReader {
    private let object: [String: JSONValue]
    private let location: String
    private var read: Set<String> = []

    init(_ value: JSONValue, at location: String) throws(SeedDBError) {
        guard let object = value.object else {
            throw Manifest.error(location.isEmpty ? "the top level is not a JSON object" : "\(location) is not a JSON object")
        }
        self.object = object
        self.location = location
    }

    private func path(_ key: String) -> String {
        location.isEmpty ? "\"\(key)\"" : "\(location).\(key)"
    }

    /// The value of `key` as `extract` reads it.
    /// - Throws: ``SeedDBError`` `invalidManifest` when it is missing or of the wrong type.
    mutating func require<Value>(_ key: String, _ extract: (JSONValue) -> Value?) throws(SeedDBError) -> Value {
        guard let value = try optional(key, extract) else {
            // A misspelt key is the mistake to name, not the key it should have been.
            if let misspelt = unknownKeys.first(where: { Spelling.closest(to: $0, among: [key]) != nil }) {
                throw unknown(misspelt, suggesting: key)
            }
            throw Manifest.error("missing key \(path(key))")
        }
        return value
    }

    /// The keys present that nothing has read (yet), in order.
    private var unknownKeys: [String] {
        object.keys.sorted().filter { !read.contains($0) }
    }

    /// `unknown key seeds[0].versoin; did you mean "version"?` (at the top level, the key
    /// in quotes: `unknown key "serail"; did you mean "serial"?`).
    private func unknown(_ key: String, suggesting suggestion: String?) -> SeedDBError {
        let hint = suggestion.map { "; did you mean \(NameRules.quoted($0))?" } ?? ""
        return Manifest.error("unknown key \(path(key))\(hint)")
    }

    /// The value of `key` as `extract` reads it, `nil` when absent.
    /// - Throws: ``SeedDBError`` `invalidManifest` when `extract` cannot read it.
    mutating func optional<Value>(_ key: String, _ extract: (JSONValue) -> Value?) throws(SeedDBError) -> Value? {
        read.insert(key)
        guard let raw = object[key] else { return nil }
        guard let value = extract(raw) else {
            throw Manifest.error("\(path(key)) has the wrong type")
        }
        return value
    }

    mutating func field<Value>(_ key: String, _ parse: (String) throws(SeedDBError) -> Value) throws(SeedDBError) -> Value {
        let text = try require(key, \.string)
        return try parsed(key, text, parse)
    }

    mutating func optionalField<Value>(_ key: String, _ parse: (String) throws(SeedDBError) -> Value) throws(SeedDBError) -> Value? {
        guard let text = try optional(key, \.string) else { return nil }
        return try parsed(key, text, parse)
    }

    private func parsed<Value>(_ key: String, _ text: String, _ parse: (String) throws(SeedDBError) -> Value) throws(SeedDBError) -> Value {
        do {
            return try parse(text)
        } catch {
            throw Manifest.error("\(path(key)): \(error.message)")
        }
    }

    /// Refuses a key nothing read, suggesting the known key it may be a misspelling of.
    func finish() throws(SeedDBError) {
        if let key = unknownKeys.first {
            throw unknown(key, suggesting: Spelling.closest(to: key, among: read.sorted()))
        }
    }
}
