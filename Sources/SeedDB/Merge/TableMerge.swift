import Foundation
import GRDB
import Logging
import SeedDBCore

/// The row-by-row merge of one table into the staged copy.
///
/// 1. Columns the app added (in the working copy, neither in the base nor in the seed)
///    are added to the staged table with their declared type and default.
/// 2. The keys the user changed (inserted, deleted, or with a cell that differs from the
///    base) are found with one anti-join each way on the primary key, into a temporary
///    table: the rows the user did not touch keep the seed's version without being read.
///    With a ``MergeSecondReader``, a large table keyed by its row id is searched in two
///    halves of its keys at once, one on the reader's thread.
/// 3. For those keys the three sides are joined into a second temporary table, then read
///    back one row at a time in key order; ``RowMerge`` decides each, and the staged table
///    gets the delete, update or insert it calls for.
///
/// A column only some sides have is read as its value on a side that has it: a side
/// without a column the app added holds the column's default; a side without a column the
/// new seed added holds the seed's value (its default for a row the seed lacks); a user
/// copy without a seed column holds the base's value.
struct TableMerge {
    /// One column of the merged table.
    struct Column {
        var name: String
        var inBase: Bool
        var inUser: Bool
        /// Whether the new seed has it (not a column the app added).
        var inSeed: Bool
        /// The default as the app declares it (working copy), as an expression.
        var userDefault: String
        /// The default as the new seed declares it, as an expression.
        var seedDefault: String
    }

    /// One key's row on each side of the merge, as read from the joined table (`nil`
    /// where the side has no such row).
    struct Sides {
        var base: [MergeValue]?
        var user: [MergeValue]?
        var seed: [MergeValue]?

        /// The row on `side`.
        subscript(side: MergeSide) -> [MergeValue]? {
            switch side {
            case .base: base
            case .user: user
            case .seed: seed
            }
        }

        /// The row that holds the key: the user's, else the base's, else the seed's.
        var keyed: [MergeValue] { user ?? base ?? seed ?? [] }
    }

    /// The layout of the joined table (``rowsTable``): for each side, whether it has the
    /// key (`base_present`, …), then each side's values in the merged table's column
    /// order (`base_0`, `base_1`, …, `user_0`, …, `seed_0`, …).
    struct JoinedRow {
        /// The merged table's columns.
        var count: Int
        /// How the rows' text is read whole.
        var text: SQLiteText? = nil

        /// The columns of the joined table, by name.
        var names: [String] {
            MergeSide.allCases.map { "\($0.name)_present" } + MergeSide.allCases.flatMap { side in (0..<count).map { "\(side.name)_\($0)" } }
        }

        /// The name of `side`'s value of column `index`.
        func value(_ side: MergeSide, _ index: Int) -> String { "\(side.name)_\(index)" }

        /// Reads one row of the joined table (selected as `rowid, *`, a row a cursor is on),
        /// text whole when ``text`` says how.
        func sides(of row: Row) -> Sides {
            func side(_ side: MergeSide) -> [MergeValue]? {
                let presence = 1 + side.rawValue
                guard (row[presence] as Int64?) == 1 else { return nil }
                let first = 1 + MergeSide.allCases.count + side.rawValue * count
                return (0..<count).map { column in
                    guard let text else { return MergeValue(row[first + column] as DatabaseValue) }
                    return MergeValue(row, at: first + column, text: text)
                }
            }
            return Sides(base: side(.base), user: side(.user), seed: side(.seed))
        }
    }

    /// What merging the table gave.
    struct Outcome {
        var summary = MergeSummary()
        var conflicts: [MergeConflict] = []
        var wrote = false
        /// Whether the user had edited a column the new seed dropped (its values are not
        /// in the new copy).
        var droppedEditedColumns = false
    }

    let db: Database
    let schemas: MergeSchemas
    let name: String
    let policy: MergePolicy
    let base: MergeCatalog.Table?
    let user: MergeCatalog.Table
    var seed: MergeCatalog.Table
    let logger: Logger
    /// The second connection that searches half of a large table's keys, if any.
    var secondReader: MergeSecondReader?

    private static let keysTable = "seeddb_merge_keys"
    private static let rowsTable = "seeddb_merge_rows"

    mutating func run() throws -> Outcome {
        let seedColumns = Set(seed.columns.map { MergeNames.folded($0.name) })
        try addAppColumns()
        let droppedEditedColumns = try warnAboutDroppedColumns()
        let columns = seed.columns.map { column in
            Column(name: column.name, inBase: base?.column(column.name) != nil, inUser: user.column(column.name) != nil,
                   inSeed: seedColumns.contains(MergeNames.folded(column.name)),
                   userDefault: MergeSQL.defaultExpression(user.column(column.name) ?? column),
                   seedDefault: MergeSQL.defaultExpression(column))
        }
        let keyNames = seed.primaryKey
        // The key's columns are the seed's, so each is among the merged table's columns.
        let keyIndices = keyNames.compactMap { key in columns.firstIndex { MergeNames.folded($0.name) == MergeNames.folded(key) } }
        try db.execute(sql: "DROP TABLE IF EXISTS temp.\(Self.keysTable); DROP TABLE IF EXISTS temp.\(Self.rowsTable)")
        defer { try? db.execute(sql: "DROP TABLE IF EXISTS temp.\(Self.keysTable); DROP TABLE IF EXISTS temp.\(Self.rowsTable)") }
        try findUserChanges(columns: columns, keys: keyNames)
        try joinSides(columns: columns, keys: keyNames)
        var outcome = try apply(columns: columns, keyIndices: keyIndices)
        outcome.droppedEditedColumns = droppedEditedColumns
        return outcome
    }

    // MARK: Schema moves

    private mutating func addAppColumns() throws {
        let destination = MergeSQL.qualified(schemas.target, seed.name)
        for column in user.columns + user.generatedColumns where !seed.hasColumn(column.name) && base?.hasColumn(column.name) != true {
            do {
                guard try TableCarry.addColumn(column, of: user, to: destination, db: db, logger: logger) else { continue }
            } catch let error as DatabaseError {
                throw SeedDBError(SQLiteFile.isFileFailure(error) ? .ioFailure : .invalidSeed, "cannot add the app's column \(NameRules.quoted(column.name)) to table \(NameRules.quoted(name)) of the new seed: \(error.message ?? "\(error.resultCode)"); nothing was changed", underlying: error)
            }
            var added = column
            added.primaryKeyIndex = 0
            if column.generated { seed.generatedColumns.append(added) } else { seed.columns.append(added) }
        }
    }

    /// Warns of each column the new seed dropped that the user had edited, and of each
    /// seed column the app dropped from its copy (the base and the new seed have it): a
    /// merge cannot say "no such column", so the new seed's stands, with its values.
    ///
    /// - Returns: Whether there was one (the table is then named among those whose
    ///   changes were replaced).
    private func warnAboutDroppedColumns() throws -> Bool {
        guard let base, let baseSchema = schemas.base else { return false }
        var any = false
        for column in seed.columns where base.column(column.name) != nil && !user.hasColumn(column.name) {
            logger.warning("merge: column \(NameRules.quoted(column.name)) of table \(NameRules.quoted(name)) is gone from the user's copy; the new seed's column stands, with its values (the old copy is as the app left it)")
            any = true
        }
        let on = seed.primaryKey.map { "b.\($0.quotedSQLIdentifier) = u.\($0.quotedSQLIdentifier)" }.joined(separator: " AND ")
        let firstKey = seed.primaryKey[0].quotedSQLIdentifier
        for column in user.columns where seed.column(column.name) == nil {
            guard let baseColumn = base.column(column.name) else { continue }
            let u = "u.\(column.name.quotedSQLIdentifier)", b = "b.\(baseColumn.name.quotedSQLIdentifier)"
            let edited = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM \(MergeSQL.qualified(schemas.user, user.name)) AS u
                LEFT JOIN \(MergeSQL.qualified(baseSchema, base.name)) AS b ON \(on)
                WHERE (b.\(firstKey) IS NULL AND \(u) IS NOT NULL) OR (b.\(firstKey) IS NOT NULL AND NOT \(MergeSQL.same(u, b))))
                """) ?? false
            if edited {
                logger.warning("merge: column \(NameRules.quoted(column.name)) of table \(NameRules.quoted(name)) is gone from the new seed; the user's edits to it are not in the new copy (the old copy keeps them)")
                any = true
            }
        }
        return any
    }

    // MARK: Finding the user's changes

    private func findUserChanges(columns: [Column], keys: [String]) throws {
        let keyColumns = keys.indices.map { "k\($0)" }.joined(separator: ", ")
        try db.execute(sql: "CREATE TEMP TABLE \(Self.keysTable) (\(keyColumns))")
        let userTable = MergeSQL.qualified(schemas.user, user.name)
        let select = { (alias: String) in keys.map { "\(alias).\($0.quotedSQLIdentifier)" }.joined(separator: ", ") }
        let notNull = { (alias: String) in keys.map { "\(alias).\($0.quotedSQLIdentifier) IS NOT NULL" }.joined(separator: " AND ") }
        guard let base, let baseSchema = schemas.base else {
            try db.execute(sql: "INSERT INTO temp.\(Self.keysTable) SELECT \(select("u")) FROM \(userTable) AS u WHERE \(notNull("u"))")
            return
        }
        let baseTable = MergeSQL.qualified(baseSchema, base.name)
        let on = keys.map { "b.\($0.quotedSQLIdentifier) = u.\($0.quotedSQLIdentifier)" }.joined(separator: " AND ")
        let same = columns.filter(\.inUser).map { column in
            let u = "u.\(column.name.quotedSQLIdentifier)"
            guard column.inBase, let userColumn = user.column(column.name), let baseColumn = base.column(column.name) else {
                return MergeSQL.same(u, column.userDefault)
            }
            return MergeSQL.same(u, "b.\(column.name.quotedSQLIdentifier)",
                                 storageClassesMayDiffer: MergeSQL.storageClassesMayDiffer(userColumn, baseColumn))
        }
        let differs = same.isEmpty ? "0" : "NOT (\(same.joined(separator: " AND ")))"
        // Rows the user changed or added, then rows the user deleted: both a scan of one
        // side with a primary-key search in the other (an anti-join for the deletions,
        // which SQLite runs three times faster than the same `NOT EXISTS`). `range` limits
        // both scans' keys.
        let changed = { (range: (String) -> String) in """
            SELECT \(select("u")) FROM \(userTable) AS u LEFT JOIN \(baseTable) AS b ON \(on)
            WHERE \(notNull("u")) AND \(range("u")) AND (b.\(keys[0].quotedSQLIdentifier) IS NULL OR \(differs))
            UNION ALL
            SELECT \(select("b")) FROM \(baseTable) AS b LEFT JOIN \(userTable) AS u ON \(on)
            WHERE \(notNull("b")) AND \(range("b")) AND u.\(keys[0].quotedSQLIdentifier) IS NULL
            """ }
        guard let secondReader, let split = try splitPoint(base: base, baseTable: baseTable, userTable: userTable, minimumSpan: secondReader.minimumSpan) else {
            try db.execute(sql: "INSERT INTO temp.\(Self.keysTable) " + changed { _ in "1" })
            return
        }
        // The upper half on the second reader's thread, the lower half here.
        let key = keys[0].quotedSQLIdentifier
        let upper = secondReader.startFetching(changed { "\($0).\(key) > ?1" }, arguments: [split])
        defer { _ = try? upper.wait() }
        try db.execute(sql: "INSERT INTO temp.\(Self.keysTable) " + changed { "\($0).\(key) <= ?1" }, arguments: [split])
        let insert = try db.makeStatement(sql: "INSERT INTO temp.\(Self.keysTable) VALUES (?)")
        for found in try upper.wait() { try insert.execute(arguments: [found]) }
    }

    /// The key that splits the table's keys in two halves of their span, when the table is
    /// keyed by its row id on both sides (every key is then an integer, and `min` and `max`
    /// are two searches) and the span is at least `minimumSpan`; `nil` otherwise.
    private func splitPoint(base: MergeCatalog.Table, baseTable: String, userTable: String, minimumSpan: UInt64) throws -> Int64? {
        guard user.hasRowidColumn, base.hasRowidColumn, let key = user.primaryKey.first,
              MergeNames.folded(key) == MergeNames.folded(base.primaryKey[0]),
              let baseSchema = schemas.base,
              try !keyHasItsOwnIndex(schema: schemas.user, table: user.name),
              try !keyHasItsOwnIndex(schema: baseSchema, table: base.name)
        else { return nil }
        // One `min` or `max` per query: SQLite answers each alone with one search.
        let bound = { (function: String, table: String) in "(SELECT \(function)(\(key.quotedSQLIdentifier)) FROM \(table))" }
        let bounds = try Row.fetchOne(db, sql: "SELECT " + [bound("min", userTable), bound("min", baseTable), bound("max", userTable), bound("max", baseTable)].joined(separator: ", "))
        guard let bounds else { return nil }
        let lows = [bounds[0] as Int64?, bounds[1] as Int64?].compactMap { $0 }
        let highs = [bounds[2] as Int64?, bounds[3] as Int64?].compactMap { $0 }
        guard let low = lows.min(), let high = highs.max() else { return nil }
        let span = UInt64(bitPattern: high &- low)
        guard span >= minimumSpan else { return nil }
        return low &+ Int64(bitPattern: span / 2)
    }

    private func joinSides(columns: [Column], keys: [String]) throws {
        let names = JoinedRow(count: columns.count).names
        try db.execute(sql: "CREATE TEMP TABLE \(Self.rowsTable) (\(names.joined(separator: ", ")))")
        let firstKey = keys[0].quotedSQLIdentifier
        let join = { (alias: String) in keys.indices.map { "\(alias).\(keys[$0].quotedSQLIdentifier) = k.k\($0)" }.joined(separator: " AND ") }
        let basePresent = base == nil ? "0" : "b.\(firstKey) IS NOT NULL"
        let seedOwned = { (column: Column) in
            "CASE WHEN s.\(firstKey) IS NOT NULL THEN s.\(column.name.quotedSQLIdentifier) ELSE \(column.seedDefault) END"
        }
        var expressions = [basePresent, "u.\(firstKey) IS NOT NULL", "s.\(firstKey) IS NOT NULL"]
        for column in columns {
            let quoted = column.name.quotedSQLIdentifier
            if base == nil { expressions.append("NULL") }
            else if column.inBase { expressions.append("b.\(quoted)") }
            else if column.inUser { expressions.append(column.userDefault) }
            else { expressions.append(seedOwned(column)) }
        }
        for column in columns {
            let quoted = column.name.quotedSQLIdentifier
            if column.inUser { expressions.append("u.\(quoted)") }
            else if column.inBase { expressions.append("CASE WHEN \(basePresent) THEN b.\(quoted) ELSE \(column.seedDefault) END") }
            else { expressions.append(seedOwned(column)) }
        }
        for column in columns { expressions.append("s.\(column.name.quotedSQLIdentifier)") }
        var from = "temp.\(Self.keysTable) AS k"
        if let base, let baseSchema = schemas.base {
            from += " LEFT JOIN \(MergeSQL.qualified(baseSchema, base.name)) AS b ON \(join("b"))"
        }
        from += " LEFT JOIN \(MergeSQL.qualified(schemas.user, user.name)) AS u ON \(join("u"))"
        from += " LEFT JOIN \(MergeSQL.qualified(schemas.target, seed.name)) AS s ON \(join("s"))"
        let order = keys.indices.map { "k.k\($0)" }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO temp.\(Self.rowsTable) SELECT \(expressions.joined(separator: ", ")) FROM \(from) ORDER BY \(order)")
    }

    /// Whether the primary key of `table` in `schema` has an index of its own: then its
    /// column is not the row id (`INTEGER PRIMARY KEY DESC`, SQLite's documented quirk) and
    /// may hold any value.
    private func keyHasItsOwnIndex(schema: String, table: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?, ?) WHERE origin = 'pk')", arguments: [table, schema]) ?? true
    }

    // MARK: Applying the decisions

    private func apply(columns: [Column], keyIndices: [Int]) throws -> Outcome {
        var outcome = Outcome()
        let joined = JoinedRow(count: columns.count, text: try SQLiteText(db))
        let appColumns = Set(columns.indices.filter { !columns[$0].inSeed })
        let target = MergeSQL.qualified(schemas.target, seed.name)
        // The writes copy values from the temporary table inside SQLite, byte for byte (text
        // is never decoded into Swift and back on its way to the merged copy).
        let rows = "temp.\(Self.rowsTable)"
        let value = { (side: MergeSide, index: Int) in "(SELECT \(joined.value(side, index)) FROM \(rows) WHERE rowid = ?1)" }
        let whereKey = keyIndices.map { "\(columns[$0].name.quotedSQLIdentifier) = \(value(.seed, $0))" }.joined(separator: " AND ")
        let insertSQL = "INSERT INTO \(target) (\(columns.map(\.name.quotedSQLIdentifier).joined(separator: ", "))) "
            + "SELECT \(columns.indices.map { joined.value(.user, $0) }.joined(separator: ", ")) FROM \(rows) WHERE rowid = ?1"
        // Statements are prepared once per table and shape, and not left in the connection's
        // cache, where they would outlive the caller's attached schemas.
        var statements: [String: Statement] = [:]
        func statement(_ sql: String) throws -> Statement {
            if let statement = statements[sql] { return statement }
            let statement = try db.makeStatement(sql: sql)
            statements[sql] = statement
            return statement
        }
        let cursor = try Row.fetchCursor(db, sql: "SELECT rowid, * FROM \(rows) ORDER BY rowid")
        while let row = try cursor.next() {
            let rowid: Int64 = row[0]
            let sides = joined.sides(of: row)
            let decision = base == nil
                ? RowMerge.resolveWithoutBase(user: sides.user, seed: sides.seed, policy: policy, appColumns: appColumns)
                : RowMerge.resolve(base: sides.base, user: sides.user, seed: sides.seed, policy: policy)
            outcome.summary.add(decision)
            let key = keyIndices.map { MergeField(columns[$0].name, sides.keyed[$0]) }
            for conflict in decision.conflicts {
                outcome.conflicts.append(describe(conflict, key: key, columns: columns, sides: sides))
            }
            do {
                switch decision.row {
                case .seed:
                    break
                case .absent:
                    guard sides.seed != nil else { break }
                    try statement("DELETE FROM \(target) WHERE \(whereKey)").execute(arguments: [rowid])
                    outcome.wrote = true
                case .cells(let sources):
                    if let seedRow = sides.seed, let userRow = sides.user {
                        let changed = sources.indices.filter { sources[$0] == .user && userRow[$0] != seedRow[$0] }
                        guard !changed.isEmpty else { break }
                        let set = changed.map { "\(columns[$0].name.quotedSQLIdentifier) = \(value(.user, $0))" }.joined(separator: ", ")
                        try statement("UPDATE \(target) SET \(set) WHERE \(whereKey)").execute(arguments: [rowid])
                    } else {
                        try statement(insertSQL).execute(arguments: [rowid])
                    }
                    outcome.wrote = true
                }
            } catch let error as DatabaseError {
                // A row the new seed's constraints refuse; or the disk's failure.
                throw SeedDBError(SQLiteFile.isFileFailure(error) ? .ioFailure : .invalidSeed, "cannot merge table \(NameRules.quoted(name)), key \(MergeConflict.keyText(key)): \(error.message ?? "\(error.resultCode)"); nothing was changed", underlying: error)
            }
        }
        return outcome
    }

    /// The conflict as `seeddb conflicts` shows it: each side with only the columns it has
    /// (no base side at all in a merge without one).
    private func describe(_ conflict: RowMergeOutcome.Conflict, key: [MergeField], columns: [Column], sides: Sides) -> MergeConflict {
        /// Whether `side` has `column` (no side of a merge without a base is the base).
        func has(_ side: MergeSide, _ column: Column) -> Bool {
            switch side {
            case .base: base != nil && column.inBase
            case .user: column.inUser
            case .seed: column.inSeed
            }
        }
        func shown(_ side: MergeSide) -> MergeConflict.Side {
            if let index = conflict.column {
                guard has(side, columns[index]) else { return .noColumn }
                return sides[side].map { .value($0[index]) } ?? .absent
            }
            guard side != .base || base != nil else { return .noColumn }
            return sides[side].map { values in
                .row(columns.indices.filter { has(side, columns[$0]) }.map { MergeField(columns[$0].name, values[$0]) })
            } ?? .absent
        }
        return MergeConflict(table: name, key: key, column: conflict.column.map { columns[$0].name },
                             base: shown(.base), user: shown(.user), seed: shown(.seed), kept: conflict.kept)
    }
}
