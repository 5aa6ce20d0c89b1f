import SeedDBCore
import Testing

@Suite struct SQLiteHeaderTests {
    static func header(pageSize: UInt16 = 4096, wal: Bool = false, pages: UInt32 = 3, valid: Bool = true) -> [UInt8] {
        var bytes = SQLiteHeader.magic + [UInt8](repeating: 0, count: 84)
        bytes[16] = UInt8(pageSize >> 8)
        bytes[17] = UInt8(pageSize & 0xFF)
        bytes[18] = wal ? 2 : 1
        bytes[19] = wal ? 2 : 1
        bytes[27] = 7                       // change counter
        bytes[95] = valid ? 7 : 8           // version-valid-for
        bytes[28...31] = [UInt8(pages >> 24), UInt8(pages >> 16 & 0xFF), UInt8(pages >> 8 & 0xFF), UInt8(pages & 0xFF)]
        return bytes
    }

    @Test func parsesPageSizeModeAndDeclaredSize() throws {
        let header = try #require(SQLiteHeader(Self.header(pageSize: 1024, wal: true, pages: 5)))
        #expect(header.pageSize == 1024)
        #expect(header.isWAL)
        #expect(header.declaredSize == Int64(5 * 1024))
        #expect(try #require(SQLiteHeader(Self.header(pageSize: 1))).pageSize == 65536)
    }

    /// SQLite opens a database in WAL mode when its read version (byte 19) is 2, whatever
    /// its write version (byte 18) says.
    @Test func theReadVersionDecidesWALMode() throws {
        for (write, read, wal) in [(UInt8(1), UInt8(2), true), (2, 1, false), (2, 2, true), (1, 1, false)] {
            var bytes = Self.header()
            (bytes[18], bytes[19]) = (write, read)
            #expect(try #require(SQLiteHeader(bytes)).isWAL == wal, "write \(write), read \(read)")
        }
    }

    @Test func staleCountDeclaresNoSize() throws {
        #expect(try #require(SQLiteHeader(Self.header(valid: false))).declaredSize == nil)
    }

    @Test func rejectsWhatIsNotAHeader() {
        #expect(SQLiteHeader([]) == nil)
        #expect(SQLiteHeader(Array(Self.header().prefix(99))) == nil)
        #expect(SQLiteHeader([UInt8](repeating: 0x41, count: 100)) == nil)
        #expect(SQLiteHeader(Self.header(pageSize: 1000)) == nil)
        #expect(SQLiteHeader(Self.header(pageSize: 256)) == nil)
    }
}
