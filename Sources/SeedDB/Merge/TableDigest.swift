import Crypto
import GRDB
import SeedDBCore

/// The digest of one table's content, and the seed tables a carry replaced that the user
/// had changed.
///
/// A table's digest covers its columns (names and declared types, in order) and its rows
/// in the order a full scan reads them (row id order; primary-key order for a
/// `WITHOUT ROWID` table), each value with its storage class: two tables with the same
/// digest hold the same rows. Only ordinary tables are hashed: a virtual table's rows live
/// in its shadow tables, which are hashed as the ordinary tables they are.
enum TableDigest {
    /// The digest of each ordinary table of `schema`, by name.
    static func digests(in schema: String, db: Database) throws -> [String: SeedDBCore.SHA256Digest] {
        var digests: [String: SeedDBCore.SHA256Digest] = [:]
        for table in try MergeCatalog.read(db, schema: schema).tables.values where table.kind == .ordinary {
            digests[table.name] = try digest(of: table.name, in: schema, db: db)
        }
        return digests
    }

    /// The digest of `table` in `schema`.
    static func digest(of table: String, in schema: String, db: Database) throws -> SeedDBCore.SHA256Digest {
        var hasher = SHA256()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func append(_ tag: UInt8, _ bytes: some Collection<UInt8>) {
            buffer.append(tag)
            withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: bytes)
        }
        for column in try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?, ?)", arguments: [table, schema]) {
            append(0xC0, Array((column["name"] as String).utf8))
            append(0xC1, Array((column["type"] as String).utf8))
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(schema.quotedSQLIdentifier).\(table.quotedSQLIdentifier)")
        while let row = try rows.next() {
            buffer.append(0xFF)
            for index in 0..<row.count {
                switch (row[index] as DatabaseValue).storage {
                case .null: buffer.append(0)
                case .int64(let value): withUnsafeBytes(of: value.littleEndian) { append(1, $0) }
                case .double(let value): withUnsafeBytes(of: value.bitPattern.littleEndian) { append(2, $0) }
                case .string(let value): append(3, value.utf8)
                case .blob(let value): append(4, value)
                }
            }
            if buffer.count >= 1 << 16 {
                hasher.update(data: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        hasher.update(data: buffer)
        return SeedDBCore.SHA256Digest(bytes: hasher.finalize())
    }

    /// The seed tables of the old copy (schema `old` on `db`) whose changes `carry`
    /// replaces (its merge leaves them `off`; the preserved ones are carried) and that the
    /// user changed: whose rows or columns differ from the merge base's, or from the
    /// recorded digests; a table the user dropped counts. In name order.
    static func discarded(by carry: CarryRequest, _ discards: CarryRequest.Discards, in db: Database) throws(SeedDBError) -> [String] {
        let preserved = Set(carry.preservedTables.map(MergeNames.folded))
        func replaced(_ table: String) -> Bool {
            carry.merge.policy(for: table) == .off && !preserved.contains(MergeNames.folded(table))
        }
        do {
            let user = try MergeCatalog.read(db, schema: "old")
            func userDigest(_ table: String) throws -> SeedDBCore.SHA256Digest? {
                guard let found = user.table(table), found.kind == .ordinary else { return nil }
                return try digest(of: found.name, in: "old", db: db)
            }
            var changed: [String] = []
            switch discards {
            case .againstBase(let path):
                try db.execute(sql: "ATTACH DATABASE ? AS seeddb_compared", arguments: [SQLiteFile.uri(path, query: "immutable=1")])
                defer { try? db.execute(sql: "DETACH DATABASE seeddb_compared") }
                for table in try MergeCatalog.read(db, schema: "seeddb_compared").tables.values where table.kind == .ordinary && replaced(table.name) {
                    if try userDigest(table.name) != digest(of: table.name, in: "seeddb_compared", db: db) { changed.append(table.name) }
                }
            case .againstDigests(let digests):
                for (table, recorded) in digests where replaced(table) {
                    if try userDigest(table) != recorded { changed.append(table) }
                }
            }
            return changed.sorted()
        } catch {
            throw SQLiteFile.mapped(error, "cannot compare the seed tables of", carry.workingCopy)
        }
    }
}
