/// The facts SeedDB needs from the 100-byte header of an SQLite database file.
///
/// See <https://www.sqlite.org/fileformat.html#the_database_header>.
public struct SQLiteHeader: Hashable, Sendable {
    /// The number of bytes the header occupies.
    public static let length = 100
    /// `"SQLite format 3\0"`, the first 16 bytes of every database.
    public static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// The database page size in bytes (512…65536).
    public var pageSize: Int
    /// Whether the header marks the database as WAL mode: its read version (byte 19) is 2,
    /// which is what SQLite decides by when it opens the file.
    public var isWAL: Bool
    /// The file size the header declares (page size × page count), when the header's
    /// page count is valid (its "version-valid-for" number matches the change counter).
    public var declaredSize: Int64?

    /// Parses a header.
    ///
    /// - Parameter bytes: At least the first 100 bytes of the file.
    /// - Returns: `nil` when the bytes are not an SQLite 3 header.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.length, Array(bytes[0..<16]) == Self.magic else { return nil }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        self.pageSize = pageSize
        isWAL = bytes[19] == 2
        func uint32(at offset: Int) -> UInt32 {
            UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        }
        let pageCount = uint32(at: 28)
        let countIsValid = pageCount > 0 && uint32(at: 24) == uint32(at: 92)
        declaredSize = countIsValid ? Int64(pageCount) * Int64(pageSize) : nil
    }
}
