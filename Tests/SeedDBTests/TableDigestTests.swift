import Foundation
import GRDB
import PropertyBased
@testable import SeedDB
import Testing

/// A table's digest names the tables a replace with merging off replaced: two tables with
/// the same rows have the same digest, whatever the pages hold; any change of a row, a
/// value's storage class or a column changes it.
@Suite struct TableDigestTests {
    /// Rows as codes: each code `c` is a row `(id, a, b)` whose values are derived from it,
    /// of every storage class.
    static let rows = Gen.int(in: 0...999).array(of: 0...40)

    static func values(_ code: Int) -> [DatabaseValue] {
        let a: DatabaseValue = switch code % 5 {
        case 0: .null
        case 1: (Int64(code)).databaseValue
        case 2: (Double(code) / 7).databaseValue
        case 3: "text \(code)".databaseValue
        default: Data([UInt8(code % 256), 0, 1]).databaseValue
        }
        return [Int64(code).databaseValue, a, "b\(code % 3)".databaseValue]
    }

    /// A database with table `t` holding `codes`' rows (each code once), inserted in key
    /// order or reversed, then `VACUUM`ed or not.
    static func database(_ codes: [Int], reversed: Bool = false, vacuum: Bool = false) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT)")
            let unique = Array(Set(codes)).sorted()
            for code in reversed ? unique.reversed() : unique {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: StatementArguments(values(code)))
            }
        }
        if vacuum { try queue.writeWithoutTransaction { try $0.execute(sql: "VACUUM") } }
        return queue
    }

    static func digest(_ queue: DatabaseQueue) throws -> SeedDBCore.SHA256Digest {
        try queue.read { try TableDigest.digest(of: "t", in: "main", db: $0) }
    }

    @Test func theSameRowsHaveTheSameDigestWhateverTheInsertOrderOrLayout() async {
        await propertyCheck(count: 40, input: Self.rows) { codes in
            let one = try Self.digest(Self.database(codes))
            #expect(try one == Self.digest(Self.database(codes, reversed: true, vacuum: true)))
            #expect(try Self.database(codes).read { try TableDigest.digests(in: "main", db: $0) } == ["t": one])
        }
    }

    @Test func anyChangedRowChangesTheDigest() async {
        await propertyCheck(count: 40, input: Self.rows, Gen.int(in: 0...999)) { codes, extra in
            let base = try Self.database(codes)
            let before = try Self.digest(base)
            let codeSet = Set(codes)
            if codeSet.contains(extra) {
                // Deleted, or one value turned into another storage class ('1' for 1).
                let deleted = try Self.database(codes.filter { $0 != extra })
                #expect(try Self.digest(deleted) != before)
                try base.write { try $0.execute(sql: "UPDATE t SET b = CAST(b AS BLOB) WHERE id = ?", arguments: [extra]) }
            } else {
                try base.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: StatementArguments(Self.values(extra))) }
            }
            #expect(try Self.digest(base) != before)
        }
    }

    @Test func aColumnTheUserAddedChangesTheDigest() throws {
        let queue = try Self.database([1, 2, 3])
        let before = try Self.digest(queue)
        try queue.write { try $0.execute(sql: "ALTER TABLE t ADD COLUMN favorite INTEGER") }
        #expect(try Self.digest(queue) != before)
    }
}
