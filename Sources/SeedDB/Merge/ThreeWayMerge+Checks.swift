import GRDB
import SeedDBCore

extension ThreeWayMerge {
    /// Warns when the user edited a table the new seed dropped: those edits are not in the
    /// new copy (the old copy keeps them).
    ///
    /// - Returns: Whether the user had edited it.
    func warnIfEdited(droppedTable base: MergeCatalog.Table, user: MergeCatalog.Table, db: Database, schemas: MergeSchemas) throws -> Bool {
        guard let baseSchema = schemas.base else { return false }
        let shared = user.columns.filter { base.column($0.name) != nil }.map(\.name.quotedSQLIdentifier).joined(separator: ", ")
        let userTable = MergeSQL.qualified(schemas.user, user.name), baseTable = MergeSQL.qualified(baseSchema, base.name)
        let edited = shared.isEmpty ? true : try MergeSQL.differ(userTable, baseTable, columns: shared, db: db)
        if edited {
            logger.warning("merge: table \(NameRules.quoted(user.name)) is gone from the new seed; the user's edits to it are not in the new copy (the old copy keeps them)")
        }
        return edited
    }

    /// Rebuilds every FTS4/FTS5 table of the target whose external content table the merge
    /// changed, so full-text queries match the merged rows even where no trigger keeps the
    /// index.
    func rebuildFullTextIndexes(seed: MergeCatalog, changed: Set<String>, db: Database, target: String) throws {
        for table in seed.tables.values.sorted(by: { $0.name < $1.name }) where table.kind == .virtual {
            guard let sql = table.sql, let content = MergeSQL.fullTextContentTable(sql), !content.isEmpty,
                  changed.contains(MergeNames.folded(content)) else { continue }
            try db.execute(sql: "INSERT INTO \(MergeSQL.qualified(target, table.name)) (\(table.name.quotedSQLIdentifier)) VALUES ('rebuild')")
        }
    }

    /// Runs `PRAGMA foreign_key_check` on the target.
    ///
    /// - Throws: ``SeedDBError`` `invalidSeed` naming the first violating row's table and
    ///   primary key and the table it points at.
    func checkForeignKeys(db: Database, target: String) throws {
        let schema = target.quotedSQLIdentifier
        guard let violation = try Row.fetchOne(db, sql: "PRAGMA \(schema).foreign_key_check") else { return }
        let table: String = violation["table"]
        let parent: String = violation["parent"]
        let rowid: Int64? = violation["rowid"]
        let fkid: Int = violation["fkid"]
        let key = (try? violatingKey(db: db, target: target, table: table, rowid: rowid, fkid: fkid, parent: parent)) ?? rowid.map { "[rowid=\($0)]" } ?? "?"
        throw SeedDBError(.invalidSeed, "foreign key violation after the merge: table \(NameRules.quoted(table)), key \(key) points at a row of \(NameRules.quoted(parent)) that is not there; nothing was changed")
    }

    /// The primary key of the violating row, as `column=value, …`.
    private func violatingKey(db: Database, target: String, table: String, rowid: Int64?, fkid: Int, parent: String) throws -> String? {
        let schema = target.quotedSQLIdentifier
        let catalogKey = try Row.fetchAll(db, sql: "PRAGMA \(schema).table_info(\(table.quotedSQLIdentifier))")
            .filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
        let keyColumns = catalogKey.isEmpty ? ["rowid"] : catalogKey
        let select = keyColumns.map { "c.\($0.quotedSQLIdentifier)" }.joined(separator: ", ")
        let child = MergeSQL.qualified(target, table)
        let row: Row?
        if let rowid {
            row = try Row.fetchOne(db, sql: "SELECT \(select) FROM \(child) AS c WHERE c._rowid_ = ?", arguments: [rowid])
        } else {
            let references = try Row.fetchAll(db, sql: "PRAGMA \(schema).foreign_key_list(\(table.quotedSQLIdentifier))").filter { ($0["id"] as Int) == fkid }
            var parentColumns = references.map { $0["to"] as String? }
            if parentColumns.contains(where: { $0 == nil }) {
                let parentKey = try Row.fetchAll(db, sql: "PRAGMA \(schema).table_info(\(parent.quotedSQLIdentifier))")
                    .filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String? }
                parentColumns = parentKey
            }
            let pairs = zip(references.map { $0["from"] as String }, parentColumns.compactMap { $0 })
            let notNull = pairs.map { "c.\($0.0.quotedSQLIdentifier) IS NOT NULL" }.joined(separator: " AND ")
            let match = pairs.map { "p.\($0.1.quotedSQLIdentifier) = c.\($0.0.quotedSQLIdentifier)" }.joined(separator: " AND ")
            row = try Row.fetchOne(db, sql: "SELECT \(select) FROM \(child) AS c WHERE \(notNull) AND NOT EXISTS (SELECT 1 FROM \(MergeSQL.qualified(target, parent)) AS p WHERE \(match)) LIMIT 1")
        }
        guard let row else { return nil }
        return MergeConflict.keyText(keyColumns.indices.map { MergeField(keyColumns[$0], MergeValue(row[$0] as DatabaseValue)) })
    }
}
