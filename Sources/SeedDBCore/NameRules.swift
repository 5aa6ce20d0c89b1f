/// Validation rules shared by app identifiers and working-copy names, and a safe way
/// to show untrusted text in a message.
///
/// Both end up as one path component under a directory SeedDB owns, so neither may
/// contain a separator, start with a dot (hidden files, `.` and `..`), or hold control
/// characters.
public enum NameRules {
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
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid \(what): it is empty")
        }
        guard bytes.count <= maximumLength else {
            throw SeedDBError(.invalidArgument, "invalid \(what): longer than \(maximumLength) characters")
        }
        guard !bytes.contains(UInt8(ascii: "/")) else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): it must be a plain file name, not a path")
        }
        guard bytes.allSatisfy(isIdentifierCharacter) else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): only letters, digits, '.', '_' and '-' are allowed")
        }
        guard bytes[0] != UInt8(ascii: ".") else {
            throw SeedDBError(.invalidArgument, "invalid \(what) \(quoted(text)): it must not start with '.'")
        }
    }

    /// Whether `text` holds a control character (including NUL, newline and DEL).
    public static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A printable, shortened rendering of untrusted text for error messages.
    public static func quoted(_ text: String, limit: Int = 40) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            escaped += scalar.value < 0x20 || scalar.value == 0x7F
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return "\"\(escaped)\"" + (text.unicodeScalars.count > limit ? "…" : "")
    }
}
