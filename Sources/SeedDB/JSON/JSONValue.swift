/// A JSON value, as SeedDB reads and writes its settings store and checks manifests.
///
/// SeedDB parses and writes JSON itself instead of through `JSONSerialization`: the
/// parser is strict where a manifest needs it (no duplicate keys, no trailing commas, a
/// line and column for every error) and reads only what the startup check needs; the
/// writer keeps what SeedDB does not own as it was read. A number keeps the text it was
/// written with, so an app's `1.50` is written back as `1.50`.
enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (`-12`, `1.5e3`).
    case number(String)
    /// A string, escapes decoded.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Key order is not kept: the writer sorts keys.
    case object([String: JSONValue])

    /// The JSON number `integer`.
    init(_ integer: Int64) {
        self = .number(String(integer))
    }

    /// Whether this is a number.
    var isNumber: Bool {
        if case .number = self { return true }
        return false
    }

    /// The text of a string value.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The members of an object value.
    var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array value.
    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value of `true` or `false`.
    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A number with no fraction, exact in 64 bits (`3`, `3.0`, `3e2`); `nil` for anything
    /// else, `true` and `false` included.
    var integer: Int64? { exactly(Int64.self) }

    /// A number with no fraction, exact in 64 bits unsigned; `nil` for anything else.
    var unsignedInteger: UInt64? { exactly(UInt64.self) }

    /// The number as an `Integer`, when it has no fraction and fits.
    private func exactly<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
        guard case .number(let text) = self else { return nil }
        if let exact = Integer(text) { return exact }
        return Double(text).flatMap { Integer(exactly: $0) }
    }
}
