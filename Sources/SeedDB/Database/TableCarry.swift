import GRDB
import Logging
import SeedDBCore

/// Carries the user's tables from an old working copy into a new one: the tables listed
/// in `preserve`, and every table the app created itself (in the old copy, not in the new
/// seed), whole with its indexes and triggers.
///
/// Runs on a connection to the new copy with the old copy attached as `old` (by the
/// caller), under the writer's lock the caller holds on the old copy (see ``WriterLock``),
/// in one transaction.
enum TableCarry {
    /// Carries the tables and returns the names of those carried (shadow tables of a
    /// carried virtual table left out).
    ///
    /// A preserved table present in both copies gets the old copy's rows, columns matched
    /// by name: a column the new seed adds gets its default, a column it dropped is
    /// dropped with a warning. A preserved table the new seed lacks is carried whole.
    ///
    /// - Throws: ``SeedDBError`` `invalidSeed` naming the table when a preserved table is
    ///   in neither copy (a typo), or when the rows do not fit the new schema; the new copy
    ///   is then unchanged.
    /// - Parameter seedTables: The tables the old copy's seed had, when recorded: a table
    ///   is the app's only if that seed lacked it (so a table a new seed drops goes). When
    ///   unknown, a table is the app's if the new seed lacks it.
    static func carry(_ preserve: [String], seedTables: [String]?, in db: Database, logger: Logger) throws(SeedDBError) -> [String] {
        var current = ""
        do {
            var carried: [String] = []
            try db.inTransaction {
                let oldTables = try tables(in: "old", db: db)
                let newTables = Set(try tables(in: "main", db: db).map(\.name))
                let oldNames = Set(oldTables.map(\.name))
                for table in preserve where !oldNames.contains(table) && !newTables.contains(table) {
                    throw SeedDBError(.invalidSeed, "cannot preserve table \(NameRules.quoted(table)): neither the working copy nor the new seed has it; nothing was replaced")
                }
                let seeded = Set(seedTables ?? [])
                // The app's tables, and the preserved tables the new seed lacks: carried whole.
                let created = oldTables.filter { table in
                    let apps = seedTables == nil ? !newTables.contains(table.name) : !seeded.contains(table.name)
                    return newTables.contains(table.name) ? apps && !preserve.contains(table.name) : apps || preserve.contains(table.name)
                }
                let virtual = created.filter(\.isVirtual)
                for table in virtual {
                    current = table.name
                    try db.execute(sql: table.sql)
                }
                let shadows = created.filter { table in virtual.contains { table.name.hasPrefix($0.name + "_") } }.map(\.name)
                for table in created where !table.isVirtual {
                    current = table.name
                    if try !exists(table.name, in: "main", db: db) { try db.execute(sql: table.sql) }
                    try copyRows(of: table.name, db: db, logger: logger)
                    if !shadows.contains(table.name) { carried.append(table.name) }
                }
                carried += virtual.map(\.name)
                for object in try dependents(of: Set(created.map(\.name)), db: db) {
                    try db.execute(sql: object)
                }
                for table in preserve where oldNames.contains(table) && newTables.contains(table) && !created.contains(where: { $0.name == table }) {
                    current = table
                    try copyRows(of: table, db: db, logger: logger)
                    carried.append(table)
                }
                return .commit
            }
            return carried
        } catch let error as SeedDBError {
            throw error
        } catch let error as DatabaseError where SQLiteFile.isBusy(error) {
            throw SeedDBError(.inUse, "cannot carry table \(NameRules.quoted(current)): the working copy is in use by another process", underlying: error)
        } catch let error as DatabaseError {
            throw SeedDBError(.invalidSeed, "cannot carry table \(NameRules.quoted(current)) into the new seed: \(error.message ?? "\(error.resultCode)"); nothing was replaced", underlying: error)
        } catch {
            throw SeedDBError(.ioFailure, "cannot carry table \(NameRules.quoted(current)) into the new seed: \(error)", underlying: error)
        }
    }

    /// A table as `sqlite_master` describes it.
    private struct Table {
        var name: String
        var sql: String
        var isVirtual: Bool { sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }
    }

    /// The names of the tables of `schema`, in creation order (`sqlite_*` left out).
    static func tableNames(in schema: String, db: Database) throws -> [String] {
        try tables(in: schema, db: db).map(\.name)
    }

    private static func tables(in schema: String, db: Database) throws -> [Table] {
        try Row.fetchAll(db, sql: "SELECT name, sql FROM \(schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
            .map { Table(name: $0["name"], sql: $0["sql"] ?? "") }
    }

    private static func exists(_ table: String, in schema: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) ?? false
    }

    /// The `CREATE INDEX`, `CREATE TRIGGER` and `CREATE VIEW` statements of the old copy
    /// that belong to `tables` (views: every view the new copy lacks).
    private static func dependents(of tables: Set<String>, db: Database) throws -> [String] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT o.type, o.name, o.tbl_name, o.sql FROM old.sqlite_master o
            WHERE o.type IN ('index', 'trigger', 'view') AND o.sql IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM main.sqlite_master n WHERE n.name = o.name)
            ORDER BY o.rowid
            """)
        return rows.filter { row in
            let type: String = row["type"]
            let table: String = row["tbl_name"]
            return type == "view" || tables.contains(table)
        }.map { $0["sql"] }
    }

    /// Replaces the rows of `main.<table>` with those of `old.<table>`, columns matched by
    /// name, row ids kept.
    private static func copyRows(of table: String, db: Database, logger: Logger) throws {
        let quoted = table.quotedSQLIdentifier
        let oldColumns = try columns(of: table, in: "old", db: db)
        let newColumns = try columns(of: table, in: "main", db: db)
        for dropped in oldColumns where !newColumns.contains(dropped) {
            logger.warning("table \(NameRules.quoted(table)): column \(NameRules.quoted(dropped)) is gone from the new seed; its values are dropped")
        }
        var shared = newColumns.filter(oldColumns.contains).map(\.quotedSQLIdentifier)
        if try hasRowID(table, db: db) { shared.insert("rowid", at: 0) }
        let list = shared.joined(separator: ", ")
        try db.execute(sql: "DELETE FROM main.\(quoted)")
        try db.execute(sql: "INSERT INTO main.\(quoted) (\(list)) SELECT \(list) FROM old.\(quoted)")
    }

    private static func columns(of table: String, in schema: String, db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, ?)", arguments: [table, schema])
    }

    /// Whether both copies' `table` are ordinary rowid tables (not `WITHOUT ROWID`) with
    /// no `INTEGER PRIMARY KEY` column naming the row id, so row ids are carried too.
    private static func hasRowID(_ table: String, db: Database) throws -> Bool {
        let rowidTables = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM pragma_table_list WHERE name = ? AND type = 'table' AND wr = 0 AND schema IN ('main', 'old')
            """, arguments: [table]) ?? 0
        let aliases = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM pragma_table_info(?, 'main') WHERE pk = 1 AND upper(type) = 'INTEGER'
              AND (SELECT count(*) FROM pragma_table_info(?, 'main') WHERE pk > 0) = 1
            """, arguments: [table, table]) ?? 0
        return rowidTables == 2 && aliases == 0
    }
}
