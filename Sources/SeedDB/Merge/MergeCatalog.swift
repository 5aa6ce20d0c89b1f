import GRDB
import SeedDBCore

/// The schema of one database (one schema of a connection) as a merge needs it: its
/// tables with their columns and primary keys, and its indexes, triggers and views.
struct MergeCatalog {
    /// One column, from `PRAGMA table_xinfo`.
    struct Column {
        var name: String
        var type: String
        var notNull: Bool
        /// The default's SQL text as declared (`0`, `'x'`, `CURRENT_TIMESTAMP`), or `nil`.
        var defaultSQL: String?
        /// Position in the primary key, from 1; 0 when not part of it.
        var primaryKeyIndex: Int
        /// A generated column (never written).
        var generated: Bool
    }

    /// One table.
    struct Table {
        var name: String
        var kind: MergeTableFacts.Kind
        var sql: String?
        /// Writable columns, in declaration order (generated columns left out).
        var columns: [Column]
        /// Generated columns, in declaration order.
        var generatedColumns: [Column] = []
        /// The declared primary key's columns, in key order; empty when none is declared.
        var primaryKey: [String]
        var withoutRowid: Bool

        func column(_ name: String) -> Column? {
            let folded = MergeNames.folded(name)
            return columns.first { MergeNames.folded($0.name) == folded }
        }

        /// Whether the table has a column named `name`, generated or not.
        func hasColumn(_ name: String) -> Bool {
            let folded = MergeNames.folded(name)
            return column(name) != nil || generatedColumns.contains { MergeNames.folded($0.name) == folded }
        }

        /// The text declaring column `name` in the table's `CREATE TABLE` statement, as the
        /// app wrote it (`note TEXT COLLATE NOCASE CHECK (length(note) < 10)`); `nil` when it
        /// is not found there.
        func declaration(ofColumn name: String) -> String? {
            guard let sql else { return nil }
            let folded = MergeNames.folded(name)
            let constraints: Set<String> = ["constraint", "primary", "unique", "check", "foreign"]
            return MergeSQL.tableDefinitions(sql).first { definition in
                // A name in single quotes (SQLite takes one there) is a string to the tokens.
                if definition.hasPrefix("'"), let close = definition.dropFirst().firstIndex(of: "'") {
                    return MergeNames.folded(String(definition[definition.index(after: definition.startIndex)..<close])) == folded
                }
                guard let first = MergeSQL.tokens(definition).first else { return false }
                return first.text == folded && (first.quoted || !constraints.contains(first.text))
            }
        }

        /// Whether a column names the row id: a single-column `INTEGER PRIMARY KEY` of a
        /// rowid table.
        var hasRowidColumn: Bool {
            guard !withoutRowid, primaryKey.count == 1, let key = column(primaryKey[0]) else { return false }
            return MergeNames.folded(key.type) == "integer"
        }
    }

    /// An index, trigger or view.
    struct Object {
        var type: String
        var name: String
        var table: String
        var sql: String
    }

    var schema: String
    /// Tables by folded name.
    var tables: [String: Table]
    var objects: [Object]

    func table(_ name: String) -> Table? { tables[MergeNames.folded(name)] }

    /// Whether `table` is a full-text index that follows tables `kept` says are kept (merged
    /// or carried): FTS4/FTS5 over the external content of one (rebuilt after the merge),
    /// or a virtual table a trigger of this catalog on one writes to. Its rows are then
    /// derived from theirs, not the user's to lose: a merge does not report it as unmerged,
    /// and a replace does not name it among the tables whose changes it replaced.
    func followsKeptTable(_ table: Table, kept: (String) -> Bool) -> Bool {
        guard table.kind == .virtual, let sql = table.sql else { return false }
        if let content = MergeSQL.fullTextContentTable(sql), kept(content) { return true }
        let name = MergeNames.folded(table.name)
        return objects.contains { object in
            object.type == "trigger" && kept(object.table) && MergeSQL.tablesWritten(byTrigger: object.sql).contains(name)
        }
    }

    /// The names of the tables of `schema` on `db`, in creation order (`sqlite_*` left
    /// out): what a deploy records as its seed's tables.
    static func tableNames(in schema: String, db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM \(schema.quotedSQLIdentifier).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
    }

    /// Reads the catalog of `schema` on `db`.
    static func read(_ db: Database, schema: String) throws -> MergeCatalog {
        let quotedSchema = schema.quotedSQLIdentifier
        var tables: [String: Table] = [:]
        for row in try Row.fetchAll(db, sql: "PRAGMA \(quotedSchema).table_list") {
            let rowSchema: String = row["schema"]
            let name: String = row["name"]
            let type: String = row["type"]
            guard MergeNames.folded(rowSchema) == MergeNames.folded(schema), type != "view" else { continue }
            let folded = MergeNames.folded(name)
            if folded == "sqlite_schema" || folded == "sqlite_master" || folded == "sqlite_temp_master" || folded == "sqlite_temp_schema" { continue }
            let kind: MergeTableFacts.Kind
            if folded.hasPrefix("sqlite_") {
                kind = .system
            } else {
                switch type {
                case "virtual": kind = .virtual
                case "shadow": kind = .shadow
                default: kind = .ordinary
                }
            }
            var columns: [Column] = []
            if kind != .virtual {
                for info in try Row.fetchAll(db, sql: "PRAGMA \(quotedSchema).table_xinfo(\(name.quotedSQLIdentifier))") {
                    let hidden: Int = info["hidden"]
                    columns.append(Column(
                        name: info["name"], type: info["type"] ?? "", notNull: info["notnull"],
                        defaultSQL: info["dflt_value"], primaryKeyIndex: info["pk"], generated: hidden != 0))
                }
            }
            let primaryKey = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }.map(\.name)
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM \(quotedSchema).sqlite_master WHERE type = 'table' AND name = ?", arguments: [name])
            let withoutRowid: Bool = row["wr"]
            tables[folded] = Table(name: name, kind: kind, sql: sql, columns: columns.filter { !$0.generated },
                                   generatedColumns: columns.filter(\.generated), primaryKey: primaryKey, withoutRowid: withoutRowid)
        }
        let objects = try Row.fetchAll(db, sql: """
            SELECT type, name, tbl_name, sql FROM \(quotedSchema).sqlite_master
            WHERE type IN ('index', 'trigger', 'view') AND sql IS NOT NULL ORDER BY CASE type WHEN 'index' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, name
            """).map { Object(type: $0["type"], name: $0["name"], table: $0["tbl_name"], sql: $0["sql"]) }
        return MergeCatalog(schema: schema, tables: tables, objects: objects)
    }
}
