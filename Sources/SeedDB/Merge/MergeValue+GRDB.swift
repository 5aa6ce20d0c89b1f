import GRDB
import SeedDBCore

extension MergeValue {
    /// The value of a GRDB `DatabaseValue`, by storage class.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }

    /// The value in column `index` of `row`, a row a cursor is on, with text read whole
    /// (``SQLiteText/exactBytes(in:at:)``): a text with a NUL byte in it keeps what
    /// follows the NUL, which GRDB's `String` leaves out, and two texts that are not valid
    /// UTF-8 stay apart (``SQLiteText/string(exactly:)``).
    init(_ row: Row, at index: Int, text: SQLiteText) {
        let value = row[index] as DatabaseValue
        if case .string = value.storage, let bytes = text.exactBytes(in: row, at: index) {
            self = .text(SQLiteText.string(exactly: bytes))
        } else {
            self.init(value)
        }
    }
}

/// How the text of a connection's databases is encoded, for reading a text value whole.
///
/// GRDB makes a column's text a `String` from a C string, which ends at the first NUL
/// byte: `'b'` and `'b' || char(0)` read the same, though SQLite stores, compares and
/// copies the two as different values. A merge that compared such texts in Swift took a
/// user's edit after a NUL for no edit. In a UTF-8 database (SQLite's default, and every
/// database SeedDB packs) the bytes of a text are its UTF-8 encoding, read whole from the
/// row; in a UTF-16 one GRDB's `String` is kept (the attached databases of one connection
/// always share the main database's encoding).
struct SQLiteText {
    /// Whether the connection's text is UTF-8.
    let isUTF8: Bool

    /// The encoding of the databases on `db`.
    init(_ db: Database) throws {
        isUTF8 = try String.fetchOne(db, sql: "PRAGMA encoding") == "UTF-8"
    }

    /// The UTF-8 bytes of the text in column `index` of `row` (a row a cursor is on),
    /// NUL bytes included; `nil` in a UTF-16 database, or when the row holds no text
    /// there.
    func exactBytes(in row: Row, at index: Int) -> [UInt8]? {
        guard isUTF8 else { return nil }
        return try? row.withUnsafeData(atIndex: index) { $0.map { [UInt8]($0) } }
    }

    /// `bytes` as a `String` that no other bytes give: valid UTF-8 as it is, and each byte
    /// of a sequence that is not valid as a scalar of Unicode's plane 16 private use area,
    /// U+10FF00 plus the byte. Swift's repair would make every invalid sequence U+FFFD,
    /// and two different texts one.
    static func string(exactly bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<(position + length)] { scalars.append(Unicode.Scalar(0x10FF00 + UInt32(byte))!) }
                position += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }
}
