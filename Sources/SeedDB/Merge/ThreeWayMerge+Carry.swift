import Foundation
import GRDB
import SeedDBCore

extension ThreeWayMerge {
    /// Copies the user's table whole into the target: creates it when the new seed lacks
    /// it, else replaces the rows of the seed's (empty) table, adding the app's columns.
    /// Rowids are kept, and so is the table's `sqlite_sequence` entry.
    ///
    /// - Returns: How many rows were carried.
    @discardableResult
    func carry(_ table: MergeCatalog.Table, into existing: MergeCatalog.Table?, db: Database, schemas: MergeSchemas) throws -> Int {
        let source = MergeSQL.qualified(schemas.user, table.name)
        let destination = MergeSQL.qualified(schemas.target, table.name)
        do {
            if table.kind == .virtual {
                return try carryVirtual(table, db: db, schemas: schemas)
            }
            var targetColumns: [MergeCatalog.Column]
            if let existing {
                targetColumns = existing.columns
                for column in table.columns where existing.column(column.name) == nil {
                    try db.execute(sql: MergeSQL.addColumn(column, to: destination))
                    targetColumns.append(column)
                }
                try db.execute(sql: "DELETE FROM \(destination)")
            } else {
                guard let sql = table.sql else { return 0 }
                try db.execute(sql: MergeSQL.create(sql, in: schemas.target))
                targetColumns = table.columns
            }
            var names = table.columns.filter { column in targetColumns.contains { MergeNames.folded($0.name) == MergeNames.folded(column.name) } }
                .map(\.name.quotedSQLIdentifier)
            if let rowid = rowidAlias(table) { names.insert(rowid, at: 0) }
            let list = names.joined(separator: ", ")
            try db.execute(sql: "INSERT INTO \(destination) (\(list)) SELECT \(list) FROM \(source)")
            let carried = db.changesCount
            if table.sql?.range(of: "autoincrement", options: .caseInsensitive) != nil,
               try MergeSQL.hasSequence(schemas.user, db: db), try MergeSQL.hasSequence(schemas.target, db: db) {
                let sequence = "\(schemas.target.quotedSQLIdentifier).sqlite_sequence"
                try db.execute(sql: "DELETE FROM \(sequence) WHERE name = ?", arguments: [table.name])
                try db.execute(sql: "INSERT INTO \(sequence) (name, seq) SELECT name, seq FROM \(schemas.user.quotedSQLIdentifier).sqlite_sequence WHERE name = ?", arguments: [table.name])
            }
            return carried
        } catch let error as DatabaseError {
            throw SeedDBError(.invalidSeed, "cannot carry the app's table \(NameRules.quoted(table.name)) into the new seed: \(error.message ?? "\(error.resultCode)"); nothing was changed", underlying: error)
        }
    }

    /// The name that reaches a rowid table's rowid, when the table has one that no
    /// `INTEGER PRIMARY KEY` column already carries and no column shadows every alias.
    private func rowidAlias(_ table: MergeCatalog.Table) -> String? {
        guard !table.withoutRowid else { return nil }
        if table.primaryKey.count == 1, let key = table.column(table.primaryKey[0]), MergeNames.folded(key.type) == "integer" { return nil }
        return ["rowid", "_rowid_", "oid"].first { table.column($0) == nil }
    }

    /// Creates the app's virtual table in the target and fills it: an index over external
    /// content is rebuilt, any other gets the user's rows; a failure is a warning (the table
    /// then stays empty).
    private func carryVirtual(_ table: MergeCatalog.Table, db: Database, schemas: MergeSchemas) throws -> Int {
        guard let sql = table.sql else { return 0 }
        var carried = 0
        try db.execute(sql: MergeSQL.create(sql, in: schemas.target))
        do {
            try db.inSavepoint {
                let destination = MergeSQL.qualified(schemas.target, table.name)
                if let content = MergeSQL.fullTextContentTable(sql), !content.isEmpty {
                    try db.execute(sql: "INSERT INTO \(destination) (\(table.name.quotedSQLIdentifier)) VALUES ('rebuild')")
                } else {
                    let columns = try Row.fetchAll(db, sql: "PRAGMA \(schemas.user.quotedSQLIdentifier).table_xinfo(\(table.name.quotedSQLIdentifier))")
                        .filter { ($0["hidden"] as Int) == 0 }.map { ($0["name"] as String).quotedSQLIdentifier }
                    let list = (["rowid"] + columns).joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO \(destination) (\(list)) SELECT \(list) FROM \(MergeSQL.qualified(schemas.user, table.name))")
                    carried = db.changesCount
                }
                return .commit
            }
        } catch let error as DatabaseError {
            logger.warning("merge: the app's virtual table \(NameRules.quoted(table.name)) was created empty in the new seed: \(error.message ?? "\(error.resultCode)")")
        }
        return carried
    }

    /// Creates the app's own indexes, triggers and views: those of tables carried whole,
    /// and, with a base, those neither the base nor the new seed has (an index the app put
    /// on a seed table, say). One that no longer fits the new schema is a warning.
    func carryObjects(user: MergeCatalog, base: MergeCatalog?, seed: MergeCatalog, carried: Set<String>, db: Database, schemas: MergeSchemas) throws {
        let seedNames = Set(seed.objects.map { MergeNames.folded($0.name) })
        let baseNames = Set(base?.objects.map { MergeNames.folded($0.name) } ?? [])
        for object in user.objects where !seedNames.contains(MergeNames.folded(object.name)) {
            let ofCarriedTable = carried.contains(MergeNames.folded(object.table))
            guard ofCarriedTable || (base != nil && !baseNames.contains(MergeNames.folded(object.name))) else { continue }
            if object.type == "index", user.table(object.table)?.kind == .virtual { continue }
            do {
                try db.inSavepoint {
                    try db.execute(sql: MergeSQL.create(object.sql, in: schemas.target))
                    return .commit
                }
            } catch let error as DatabaseError {
                logger.warning("merge: the app's \(object.type) \(NameRules.quoted(object.name)) does not fit the new seed and was left out: \(error.message ?? "\(error.resultCode)")")
            }
        }
    }

    /// Warns when the user edited a table the new seed dropped: those edits are lost.
    func warnIfEdited(droppedTable base: MergeCatalog.Table, user: MergeCatalog.Table, db: Database, schemas: MergeSchemas) throws {
        guard let baseSchema = schemas.base else { return }
        let shared = user.columns.filter { base.column($0.name) != nil }.map(\.name.quotedSQLIdentifier).joined(separator: ", ")
        let userTable = MergeSQL.qualified(schemas.user, user.name), baseTable = MergeSQL.qualified(baseSchema, base.name)
        let edited = shared.isEmpty ? true : try MergeSQL.differ(userTable, baseTable, columns: shared, db: db)
        if edited {
            logger.warning("merge: table \(NameRules.quoted(user.name)) is gone from the new seed; the user's edits to it are dropped")
        }
    }
}
