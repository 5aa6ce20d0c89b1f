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
    /// follows the NUL, which GRDB's `String` leaves out.
    init(_ row: Row, at index: Int, text: SQLiteText) {
        let value = row[index] as DatabaseValue
        if case .string = value.storage, let bytes = text.exactBytes(in: row, at: index) {
            self = .text(String(decoding: bytes, as: UTF8.self))
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
}
