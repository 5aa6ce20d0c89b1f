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
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(bytes[...], rules: .lenient, only: only.map { [SettingsStore.key, $0] } ?? [])
        } catch {
            problem = .notAnObject(error.message)
            return
        }
        guard var document = parsed.object else {
            problem = .notAnObject("not a JSON object")
            return
        }
        let owned = document.removeValue(forKey: SettingsStore.key)
        if only == nil { appValues = document }
        guard let owned else { return }
        guard let table = owned.object else {
            problem = .badSeedDBValue("not an object")
            return
        }
        var entries: [String: SettingsEntry] = [:]
        for (name, value) in table {
            do {
                entries[name] = try SettingsEntry(json: value)
            } catch {
                problem = .badSeedDBValue("entry \(NameRules.quoted(name)): \(error.description)")
                return
            }
        }
        self.entries = entries
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
