import Crypto
import GRDB
import Logging
import SeedDBCore

/// The digest of one table's content, and the seed tables a carry replaced that the user
/// had changed.
///
/// A table's digest covers its columns (names and declared types, in order) and its rows
/// in the order a full scan reads them (row id order; primary-key order for a
/// `WITHOUT ROWID` table), each value with its storage class: two tables with the same
/// digest hold the same rows (text byte for byte, NUL bytes included:
/// ``SQLiteText``). A virtual table's rows live in its shadow tables (`search_data`,
/// `search_idx`, … of a full-text table `search`): its digest is theirs, in name order,
/// so a user's write to a full-text table counts, and no module is needed to read it.
/// Other tables (`sqlite_*`, shadow tables on their own) are not hashed.
enum TableDigest {
    /// The digest of each ordinary and virtual table of `schema`, by name.
    static func digests(in schema: String, db: Database) throws -> [String: SeedDBCore.SHA256Digest] {
        let catalog = try MergeCatalog.read(db, schema: schema)
        var digests: [String: SeedDBCore.SHA256Digest] = [:]
        for table in catalog.tables.values {
            if let digest = try digest(of: table, in: catalog, db: db) { digests[table.name] = digest }
        }
        return digests
    }

    /// The digest of `table` of `catalog`: an ordinary table's rows, a virtual table's
    /// shadow tables; `nil` for the other kinds.
    static func digest(of table: MergeCatalog.Table, in catalog: MergeCatalog, db: Database) throws -> SeedDBCore.SHA256Digest? {
        switch table.kind {
        case .ordinary:
            return try digest(of: table.name, in: catalog.schema, db: db)
        case .virtual:
            var hasher = SHA256()
            for shadow in shadowTables(of: table, in: catalog) {
                hasher.update(data: Array(shadow.utf8) + [0])
                hasher.update(data: Array(try digest(of: shadow, in: catalog.schema, db: db).hex.utf8))
            }
            return SeedDBCore.SHA256Digest(bytes: hasher.finalize())
        case .shadow, .system:
            return nil
        }
    }

    /// The shadow tables of virtual table `table`, in name order: those named
    /// `<table>_…`, each counted for the virtual table with the longest such name (a
    /// table `search_x`'s `search_x_data` is not `search`'s).
    static func shadowTables(of table: MergeCatalog.Table, in catalog: MergeCatalog) -> [String] {
        let virtual = catalog.tables.values.filter { $0.kind == .virtual }.map { MergeNames.folded($0.name) + "_" }
        let prefix = MergeNames.folded(table.name) + "_"
        return catalog.tables.values.filter { shadow in
            let name = MergeNames.folded(shadow.name)
            guard shadow.kind == .shadow, name.hasPrefix(prefix) else { return false }
            return !virtual.contains { $0.count > prefix.count && name.hasPrefix($0) }
        }.map(\.name).sorted()
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
        let text = try SQLiteText(db)
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(schema.quotedSQLIdentifier).\(table.quotedSQLIdentifier)")
        while let row = try rows.next() {
            buffer.append(0xFF)
            for index in 0..<row.count {
                switch (row[index] as DatabaseValue).storage {
                case .null: buffer.append(0)
                case .int64(let value): withUnsafeBytes(of: value.littleEndian) { append(1, $0) }
                case .double(let value): withUnsafeBytes(of: value.bitPattern.littleEndian) { append(2, $0) }
                case .string(let value):
                    if let bytes = text.exactBytes(in: row, at: index) { append(3, bytes) } else { append(3, value.utf8) }
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

    /// ``discarded(policies:preserved:_:workingCopy:in:schema:)`` of the copy at `old`,
    /// read as the main database of a connection of its own (a dry run's) with `access`,
    /// waiting at most `wait` for a lock: nothing is created beside it, and its text
    /// encoding is the connection's.
    static func discarded(
        policies: MergePolicies, preserved: [String], _ discards: CarryRequest.Discards, inCopyAt old: String, access: SQLiteFile.Access,
        workingCopy: String, wait: Duration
    ) throws(SeedDBError) -> [String] {
        try SQLiteFile.mapping("cannot compare the seed tables of", workingCopy) {
            let queue = try SQLiteFile.open(old, access: access, timeout: wait, label: "SeedDB.discarded")
            defer { try? queue.close() }
            return try queue.writeWithoutTransaction { db in
                try discarded(policies: policies, preserved: preserved, discards, workingCopy: workingCopy, in: db, schema: "main")
            }
        }
    }

    /// For a merge without a base given the table `digests` recorded with the old copy
    /// (schema `old` on `db`): the tables whose digest is still the recorded one, the ones
    /// the user left alone, by folded name, for ``ThreeWayMerge/unchangedTables``. Empty
    /// when `digests` is `nil` (the plan gives them only to a merge without a base).
    /// `workingCopy` names the old copy in an error.
    static func unchangedTables(_ digests: [String: SeedDBCore.SHA256Digest]?, in db: Database, workingCopy: String, logger: Logger) throws(SeedDBError) -> Set<String> {
        guard let digests else { return [] }
        let unchanged: [String]
        do {
            let catalog = try MergeCatalog.read(db, schema: "old")
            unchanged = try digests.compactMap { name, recorded in
                guard let table = catalog.table(name), try digest(of: table, in: catalog, db: db) == recorded else { return nil }
                return table.name
            }.sorted()
        } catch {
            throw SQLiteFile.mapped(error, "cannot compare the seed tables of", workingCopy)
        }
        if !unchanged.isEmpty { logger.debug("merge without a base: \(unchanged.joined(separator: ", ")) unchanged since the old copy's deploy; the new seed's version stands") }
        return Set(unchanged.map(MergeNames.folded))
    }

    /// The seed tables of the old copy (`schema` on `db`) whose changes a carry
    /// replaces (`policies` leave them `off`; the `preserved` ones are carried) and that the
    /// user changed: whose rows or columns differ from the merge base's, or from the
    /// recorded digests; a table the user dropped counts. In name order. `workingCopy`
    /// names the old copy in an error.
    static func discarded(
        policies: MergePolicies, preserved: [String], _ discards: CarryRequest.Discards, workingCopy: String, in db: Database, schema: String = "old"
    ) throws(SeedDBError) -> [String] {
        let preserved = Set(preserved.map(MergeNames.folded))
        func replaced(_ table: String) -> Bool {
            policies.policy(for: table) == .off && !preserved.contains(MergeNames.folded(table))
        }
        do {
            let user = try MergeCatalog.read(db, schema: schema)
            // A full-text index kept from a table that is not replaced follows that table's
            // merged or carried rows: its changes are not the user's to lose.
            func follows(_ name: String) -> Bool {
                user.table(name).map { user.followsKeptTable($0) { !replaced($0) } } ?? false
            }
            func userDigest(_ table: String) throws -> SeedDBCore.SHA256Digest? {
                guard let found = user.table(table) else { return nil }
                return try digest(of: found, in: user, db: db)
            }
            var changed: [String] = []
            switch discards {
            case .againstBase(let path):
                try db.execute(sql: "ATTACH DATABASE ? AS seeddb_compared", arguments: [SQLiteFile.uri(path, query: "immutable=1")])
                defer { try? db.execute(sql: "DETACH DATABASE seeddb_compared") }
                let base = try MergeCatalog.read(db, schema: "seeddb_compared")
                for table in base.tables.values where replaced(table.name) && !follows(table.name) {
                    guard let pristine = try digest(of: table, in: base, db: db) else { continue }
                    if try userDigest(table.name) != pristine { changed.append(table.name) }
                }
            case .againstDigests(let digests):
                for (table, recorded) in digests where replaced(table) && !follows(table) {
                    if try userDigest(table) != recorded { changed.append(table) }
                }
            }
            return changed.sorted()
        } catch {
            throw SQLiteFile.mapped(error, "cannot compare the seed tables of", workingCopy)
        }
    }
}
