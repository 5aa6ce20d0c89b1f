import SeedDBCore

/// One reading of the settings store.
public struct SettingsSnapshot: Sendable {
    /// Why the file cannot be used as it is.
    public enum Problem: Sendable, CustomStringConvertible, Hashable {
        /// Empty, not JSON, or JSON that is not an object.
        case notAnObject(String)
        /// A JSON object whose `"seeddb"` value does not have SeedDB's shape.
        case badSeedDBValue(String)

        /// The one warning that reports this problem in the settings file at `path` to
        /// someone who only looks (`status`, `--dry-run`): nothing is repaired then.
        public func warning(in path: String) -> String {
            "\(description) in \(path); a deploy would set it aside"
        }

        public var description: String {
            switch self {
            case .notAnObject(let reason): return "settings file is corrupt (\(reason))"
            case .badSeedDBValue(let reason): return "settings key \"seeddb\" is malformed (\(reason))"
            }
        }
    }

    /// SeedDB's entries, keyed by working-copy name. `String` keys take `é` and `e` +
    /// U+0301 for one name: look a working copy's entry up with ``entry(of:)``, which
    /// tells them apart.
    public internal(set) var entries: [String: SettingsEntry] = [:]
    /// What is wrong with the file, if anything.
    public internal(set) var problem: Problem?
    /// Whether there was a settings file to read.
    public internal(set) var fileExists = false
    /// The app's own top-level keys, kept as they are.
    var appValues: [String: JSONValue] = [:]

    /// An empty store.
    init() {}

    /// Parses the bytes of a settings file, read as leniently as `JSONSerialization` read
    /// them (a byte-order mark, trailing commas, the last of two equal keys).
    ///
    /// - Parameter only: Decode just this entry (the startup check needs one); its
    ///   siblings and the app's keys are then checked as JSON and left out.
    /// The settings file's bytes with SeedDB's entries replaced by `entries` and the
    /// app's keys as they are: what an update writes.
    func bytes(with entries: [String: SettingsEntry]) -> [UInt8] {
        var document = appValues
        document[SettingsStore.key] = .object(entries.mapValues(\.json))
        return JSONValue.object(document).prettyPrinted + [0x0A]
    }

    init(parsing bytes: [UInt8], only: String? = nil) {
        fileExists = true
        guard !bytes.isEmpty else {
            problem = .notAnObject("empty file")
            return
        }
        // SeedDB's entries, as the last `"seeddb"` key holds them (a key repeated counts once,
        // the last time, as `JSONSerialization` read it).
        var owned: (entries: [String: SettingsEntry], problem: Problem?)?
        var appValues: [String: JSONValue] = [:]
        do {
            let isObject = try JSONValue.reading(bytes[...], rules: .lenient) { (parser) throws(SeedDBError) in
                try parser.readMembers(depth: 0) { (parser, key, depth) throws(SeedDBError) in
                    if key.text == SettingsStore.key {
                        owned = try Self.readEntries(&parser, depth: depth, only: only)
                    } else if only == nil {
                        try parser.keep(try parser.value(depth: depth, keeping: .path([])), forKey: key, in: &appValues)
                    } else {
                        try parser.skipValue(depth: depth)
                    }
                }
            }
            guard isObject else {
                problem = .notAnObject("not a JSON object")
                return
            }
        } catch {
            problem = .notAnObject(error.message)
            return
        }
        self.appValues = appValues
        if let owned { (entries, problem) = owned }
    }

    /// Reads the value of the `"seeddb"` key: its entries (with `only`, that entry alone;
    /// the others are checked as JSON and left out), or no entries and why the value is
    /// not SeedDB's.
    private static func readEntries(
        _ parser: inout JSONValue.Parser, depth: Int, only: String?
    ) throws(SeedDBError) -> (entries: [String: SettingsEntry], problem: Problem?) {
        // A name written twice counts the last time, its earlier value, good or not,
        // forgotten; `names` refuses one that only looks like an earlier one.
        var names: [String: Void] = [:]
        var entries: [String: SettingsEntry] = [:]
        var failures: [String: SettingsEntry.ShapeError] = [:]
        let isObject = try parser.readMembers(depth: depth) { (parser, name, depth) throws(SeedDBError) in
            // `==` on `String`s: a name that only looks like `only` is read too, for
            // ``entry(of:)`` to refuse.
            guard only.map({ $0 == name.text }) ?? true else { return try parser.skipValue(depth: depth) }
            let read = try SettingsEntry.read(&parser, depth: depth)
            try parser.keep((), forKey: name, in: &names)
            do throws(SettingsEntry.ShapeError) {
                entries[name.text] = try read.get()
                failures[name.text] = nil
            } catch {
                entries[name.text] = nil
                failures[name.text] = error
            }
        }
        guard isObject else { return ([:], .badSeedDBValue("not an object")) }
        if let (name, error) = failures.first { return ([:], .badSeedDBValue("entry \(NameRules.quoted(name)): \(error.description)")) }
        return (entries, nil)
    }

    /// The entry of working copy `name`, if the store holds one.
    ///
    /// - Throws: ``SeedDBError`` `conflictingSeed` when the entry is recorded under a name
    ///   that only looks like `name`: the same text in another Unicode normalization (`é`,
    ///   and `e` followed by U+0301). Swift's dictionaries take the two for one key and
    ///   the file system does not, so the two working copies would share one record.
    public func entry(of name: SeedName) throws(SeedDBError) -> SettingsEntry? {
        if let recorded = entries.lookalikeKey(of: name.rawValue) { throw Self.lookalikeError(written: name.rawValue, recorded: recorded) }
        return entries[name.rawValue]
    }

    /// The refusal of working-copy name `written`, which looks like the recorded name
    /// `recorded` but has other bytes. Both are shown with their non-ASCII characters
    /// escaped, since they look the same.
    static func lookalikeError(written: String, recorded: String) -> SeedDBError {
        SeedDBError(.conflictingSeed, "working copy \(NameRules.escaped(written)) looks like the recorded \(NameRules.escaped(recorded)) but is written with other characters (another Unicode normalization); one settings entry cannot keep the two apart, so nothing was changed: use the recorded name, or another name")
    }

    /// The deploy records, keyed by working-copy name (as ``entries``).
    public var records: [String: DeployRecord] {
        entries.compactMapValues(\.record)
    }
}
