/// Validation rules for app identifiers and working-copy names, and a safe way to show
/// untrusted text in a message.
///
/// Both end up as one path component under a directory SeedDB owns, so neither may
/// contain a separator, start with a dot (hidden files, `.` and `..`), or hold control
/// characters. App identifiers keep a strict character set; working-copy names are any
/// plain file name that does not collide with SeedDB's own files.
package enum NameRules {
    /// Characters allowed in an app identifier: `[A-Za-z0-9._-]`.
    static func isIdentifierCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Validates a name that becomes one path component: 1–`maximumLength` characters of
    /// `[A-Za-z0-9._-]`, not starting with `.`.
    ///
    /// - Parameter what: How messages name it (`"app id"`, `"name"`).
    static func validatePathComponent(_ text: String, what: String, maximumLength: Int) throws(SeedDBError) {
        try requireOneComponent(text, what: what, maximumLength: maximumLength, unit: "characters")
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy(isIdentifierCharacter) else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): only letters, digits, '.', '_' and '-' are allowed")
        }
        guard bytes[0] != UInt8(ascii: ".") else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): it must not start with '.'")
        }
    }

    /// The rules every name that becomes one path component shares: not empty, at most
    /// `maximumLength` bytes (`unit` says how messages count them), no `/`.
    private static func requireOneComponent(_ text: String, what: String, maximumLength: Int, unit: String) throws(SeedDBError) {
        guard !text.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid \(what): it is empty")
        }
        guard text.utf8.count <= maximumLength else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): longer than \(maximumLength) \(unit)")
        }
        guard !text.utf8.contains(UInt8(ascii: "/")) else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): it must be a plain file name, not a path")
        }
    }

    /// Endings of the files SeedDB and SQLite keep beside a working copy (`-wal`, the lock,
    /// the previous generation, …): a working copy with such a name would collide with
    /// another's sidecar.
    package static let reservedSuffixes = ["-wal", "-shm", "-journal", ".lock", ".previous", ".base", ".xor.zst", ".conflicts.json", ".tmp"]

    /// Validates a working-copy file name: any plain file name (spaces and Unicode
    /// included) of 1–`maximumLength` bytes that is not `.` or `..`, does not start with
    /// `.` (hidden files, SeedDB's temporary files), holds no `/`, NUL or other control
    /// character, does not end with one of ``reservedSuffixes``, with `.v` and digits
    /// (a generation file, `levels.sqlite.v7`) or with `.adopted-` and a stamp (an adopted
    /// copy, `levels.sqlite.adopted-20261126T071500Z`), does not contain
    /// `.seeddb-` (temporary files) and is not the settings file's name (`settings.json`
    /// and its sidecars, which share the directory in system mode).
    static func validateFileName(_ text: String, maximumLength: Int) throws(SeedDBError) {
        try requireOneComponent(text, what: "name", maximumLength: maximumLength, unit: "bytes")
        let bytes = Array(text.utf8)
        guard !hasControlCharacter(text) else {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): it holds a control character")
        }
        guard bytes[0] != UInt8(ascii: ".") else {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): it must not start with '.'")
        }
        if let suffix = reservedSuffixes.first(where: { text.hasSuffix($0) }) {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): names ending in \"\(suffix)\" are reserved for the files SeedDB and SQLite keep beside a working copy")
        }
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot + 2 < bytes.count, bytes[dot + 1] == UInt8(ascii: "v"),
           bytes[(dot + 2)...].allSatisfy(\.isASCIIDigit) {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): names ending in \".v\" and digits are reserved for SeedDB's generation files")
        }
        let adoptedMarker = Array(".adopted-".utf8)
        if let marker = bytes.indices.last(where: { bytes[$0...].starts(with: adoptedMarker) }),
           SeedPaths.isAdoptedCopyStamp(bytes[(marker + adoptedMarker.count)...]) {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): names ending in \".adopted-\" and a UTC stamp are reserved for the adopted copies SeedDB keeps")
        }
        // A search of the bytes, which are what the file system names the file by:
        // `String.contains` compares whole `Character`s, so a combining mark after the `-`
        // hid the marker from it (and it built a table of `Character`s on every startup).
        let temporaryMarker = Array(".seeddb-".utf8)
        guard !bytes.indices.contains(where: { bytes[$0...].starts(with: temporaryMarker) }) else {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): \".seeddb-\" is reserved for SeedDB's temporary files")
        }
        guard text != "settings.json", !text.hasPrefix("settings.json.") else {
            throw SeedDBError(.invalidArgument, "invalid name \(quoted(text)): reserved for the settings file")
        }
    }

    /// Whether `text` holds a control character (including NUL, newline and DEL).
    package static func hasControlCharacter(_ text: String) -> Bool {
        // Each is one byte in UTF-8, where every byte of a longer scalar is 0x80 or more.
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// A path for a line: as it is, or, when it holds a control character (a newline
    /// would split the line), ``quoted(_:limit:)``.
    package static func shown(path: String) -> String {
        hasControlCharacter(path) ? quoted(path, limit: 300) : path
    }

    /// `text` in quotes with every scalar that is not printable ASCII (and `"` and `\`)
    /// written as its code (`"e\u{301}.sqlite"` against `"\u{E9}.sqlite"`): two names
    /// that only look alike, told apart in a message.
    package static func escaped(_ text: String, limit: Int = 80) -> String {
        var shown = "\""
        for scalar in text.unicodeScalars.prefix(limit) {
            let plain = scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\"
            shown += plain ? String(scalar) : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
        return shown + "\"" + (text.unicodeScalars.count > limit ? "…" : "")
    }

    /// A printable, shortened rendering of untrusted text for messages: a JSON string
    /// literal (`\t`, `\n`, `\r`, `\"`, `\\`, and `\u001b` for any other control
    /// character), with `…` when cut at `limit` characters.
    package static func quoted(_ text: String, limit: Int = 40) -> String {
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: text.unicodeScalars.prefix(limit))
        return MergeJSON.string(String(kept)) + (text.unicodeScalars.count > limit ? "…" : "")
    }
}
