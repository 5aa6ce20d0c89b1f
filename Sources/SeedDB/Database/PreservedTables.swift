import GRDB
import Logging
import SeedDBCore

/// Carries the user's own tables from an old working copy into a new one.
enum PreservedTables {
    /// Copies the rows of `tables` from `oldCopy` into the database at `newCopy`, in one
    /// transaction, matching columns by name: a column the new schema adds gets its
    /// default, a column it dropped is dropped with a warning. A table the old copy does
    /// not have is skipped.
    ///
    /// The old copy is read through SQLite (read-only), so committed rows still in its
    /// `-wal` are carried too.
    ///
    /// - Throws: ``SeedDBError`` `invalidSeed` naming the table and the cause when the
    ///   rows do not fit (a constraint the new schema adds, a table it lacks); the new
    ///   copy is then left unchanged and must not be swapped in.
    static func carry(_ tables: [String], from oldCopy: String, into newCopy: String, logger: Logger) throws(SeedDBError) {
        guard !tables.isEmpty else { return }
        var current = ""
        do {
            let queue = try DatabaseQueue(path: newCopy)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [SQLiteFile.uri(oldCopy, query: "mode=ro")])
                defer { try? db.execute(sql: "DETACH DATABASE old") }
                try db.inTransaction {
                    for table in tables {
                        current = table
                        try carry(table, db: db, logger: logger)
                    }
                    return .commit
                }
            }
        } catch let error as SeedDBError {
            throw error
        } catch let error as DatabaseError {
            throw SeedDBError(.invalidSeed, "cannot carry table \(NameRules.quoted(current)) into the new seed: \(error.message ?? "\(error.resultCode)"); nothing was replaced", underlying: error)
        } catch {
            throw SeedDBError.io(error, "cannot carry preserved tables into", newCopy)
        }
    }

    private static func carry(_ table: String, db: Database, logger: Logger) throws {
        let quoted = table.quotedDatabaseIdentifier
        let oldColumns = try columns(of: quoted, in: "old", db: db)
        guard !oldColumns.isEmpty else { return }
        let newColumns = try columns(of: quoted, in: "main", db: db)
        guard !newColumns.isEmpty else {
            throw SeedDBError(.invalidSeed, "cannot carry table \(NameRules.quoted(table)) into the new seed: the new seed has no such table; nothing was replaced")
        }
        for dropped in oldColumns where !newColumns.contains(dropped) {
            logger.warning("preserved table \(NameRules.quoted(table)): column \(NameRules.quoted(dropped)) is gone from the new seed; its values are dropped")
        }
        let shared = newColumns.filter(oldColumns.contains).map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        try db.execute(sql: "DELETE FROM main.\(quoted)")
        try db.execute(sql: "INSERT INTO main.\(quoted) (\(shared)) SELECT \(shared) FROM old.\(quoted)")
    }

    private static func columns(of table: String, in schema: String, db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "PRAGMA \(schema).table_info(\(table))").map { $0["name"] }
    }
}
