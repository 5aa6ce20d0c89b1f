/// One SQLite cell, by storage class: what a merge compares and reports.
///
/// Equality is exact and follows the storage class, as SQLite's `IS` does under the
/// `BINARY` collation plus a `typeof` check: `1`, `1.0` and `"1"` are three different
/// values; text compares byte for byte (no Unicode normalization); reals compare
/// numerically (`0.0` equals `-0.0`, as in SQLite).
public enum MergeValue: Sendable, CustomStringConvertible {
    /// SQL `NULL`.
    case null
    /// An `INTEGER` value.
    case integer(Int64)
    /// A `REAL` value.
    case real(Double)
    /// A `TEXT` value.
    case text(String)
    /// A `BLOB` value.
    case blob([UInt8])

    /// The value as a JSON value: integers and reals as numbers (a real always carries a
    /// fraction or an exponent, so `1.0` stays distinct from `1`), text as a string,
    /// `NULL` as `null`, a blob as `{"hex": "…"}` (lower-case hex digits).
    ///
    /// Infinite reals are written `1e999` / `-1e999`, which JSON readers take as
    /// infinity; SQLite stores no NaN.
    public var json: String {
        switch self {
        case .null:
            return "null"
        case .integer(let value):
            return String(value)
        case .real(let value):
            guard value.isFinite else { return value.isNaN ? "null" : (value < 0 ? "-1e999" : "1e999") }
            let text = "\(value)"
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
        case .text(let value):
            return MergeJSON.string(value)
        case .blob(let bytes):
            return "{\"hex\":\"\(MergeJSON.hex(bytes))\"}"
        }
    }

    /// A short SQL-literal-like rendering for messages: `NULL`, `3`, `2.5`, `'text'`, `x'0a'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return "\(value)"
        case .text(let value): return "'" + value.replacingAll("'", with: "''") + "'"
        case .blob(let bytes): return "x'\(MergeJSON.hex(bytes))'"
        }
    }
}

extension MergeValue: Hashable {
    /// Exact equality by storage class; see ``MergeValue``.
    public static func == (lhs: MergeValue, rhs: MergeValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2)
            hasher.combine(value == 0 ? 0.0 : value)
        case .text(let value):
            hasher.combine(3)
            for byte in value.utf8 { hasher.combine(byte) }
        case .blob(let bytes):
            hasher.combine(4)
            hasher.combine(bytes)
        }
    }
}
