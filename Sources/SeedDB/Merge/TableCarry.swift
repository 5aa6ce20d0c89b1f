import Foundation
import GRDB
import Logging
import SeedDBCore

/// Copies the user's tables whole from the old working copy into the new one: the one way
/// SeedDB carries a table. The merge uses it for the tables it decides to carry
/// (``MergeTableAction/carry``); the deploy's `carry` step for the preserved tables and,
/// when nothing merges, the tables the app created.
///
/// What a carry keeps, for every caller:
/// - **Row ids.** A rowid table keeps the user's row ids: through its `INTEGER PRIMARY KEY`
///   column when the target's table has one, else through the first of `rowid`, `_rowid_`
///   and `oid` that no column of either table shadows. `WITHOUT ROWID` tables are matched
///   by their columns only.
/// - **Counters.** An `AUTOINCREMENT` table's `sqlite_sequence` entry becomes the larger
///   of the user's and the target's, so an id the user's copy handed out (even of a row
///   since deleted) is never handed out again.
/// - **Columns**, matched by name: a column the target's table adds gets its default; a
///   column only the user's table has is added to the target when the table is the app's
///   (``ExtraColumns/added``), dropped with a warning when it is the seed's
///   (``ExtraColumns/dropped``).
/// - **Virtual tables** are created from the user's definition and filled through the
///   module (an FTS4/FTS5 index over external content is rebuilt from it; a contentless
///   one, which cannot be read back, is left empty with a warning), so their shadow tables
///   are the module's own.
///
/// Every failure is one ``SeedDBError``: `inUse` when the old copy is locked, `ioFailure`
/// when the disk fails (``SQLiteFile/isFileFailure(_:)``), else `invalidSeed`, worded
/// `cannot carry table "…" into the new seed: …; nothing was changed`.
/// The caller's savepoint or transaction undoes what was written.
struct TableCarry {
    /// What becomes of a column the user's table has and the target's table lacks.
    enum ExtraColumns {
        /// Added to the target's table with its declared type and default, keeping the
        /// user's values: the table is the app's.
        case added
        /// Dropped, with a warning: the table is the seed's (a preserved table), and the
        /// new seed's schema stands.
        case dropped
    }

    /// Which of the user's indexes, triggers and views on tables not carried whole are the
    /// app's (those of a table carried whole always go with it).
    enum AppObjects {
        /// Those neither the base (the previous seed) nor the new seed has.
        case notIn(base: MergeCatalog)
        /// With no base to tell the app's from the old seed's: every view the new seed lacks.
        case viewsTheSeedLacks
        /// None beyond those: a merge already decided the others.
        case onlyThoseOfCarriedTables
    }

    /// The connection, with both schemas attached.
    let db: Database
    /// The user's schema (read only) and its catalog.
    let user: MergeCatalog
    /// The schema written into.
    let target: String
    /// Where warnings go.
    let logger: Logger

    /// Carries `table` of the user's copy into the target: creates it there when
    /// `existing` is `nil`, else replaces the rows of the target's table.
    ///
    /// - Returns: How many rows were carried.
    @discardableResult
    func carry(_ table: MergeCatalog.Table, into existing: MergeCatalog.Table?, extraColumns: ExtraColumns) throws(SeedDBError) -> Int {
        do {
            guard let sql = table.sql else { return 0 }
            if existing == nil { try db.execute(sql: MergeSQL.create(sql, in: target)) }
            if table.kind == .virtual { return try fillVirtual(table, definedByTheUser: existing == nil) }
            let destination = existing ?? table
            let columns = try sharedColumns(table, destination: destination, extraColumns: extraColumns)
            let list = ((rowidName(table, destination: destination).map { [$0] } ?? []) + columns).joined(separator: ", ")
            let into = MergeSQL.qualified(target, table.name)
            if existing != nil { try db.execute(sql: "DELETE FROM \(into)") }
            try db.execute(sql: "INSERT INTO \(into) (\(list)) SELECT \(list) FROM \(MergeSQL.qualified(user.schema, table.name))")
            let carried = db.changesCount
            if destination.sql?.range(of: "autoincrement", options: .caseInsensitive) != nil {
                try MergeSQL.raiseSequence(of: table.name, toThatOf: user.schema, in: target, db: db)
            }
            return carried
        } catch {
            throw failure(error, table: table.name)
        }
    }

    /// Creates the user's indexes, triggers and views the new seed lacks: those of the
    /// tables carried whole, and those `appObjects` names. One that no longer fits the new
    /// schema is left out with a warning (an index or a view holds nothing the user wrote).
    func carryObjects(ofTablesCarriedWhole carried: Set<String>, seed: MergeCatalog, appObjects: AppObjects) throws {
        let seedNames = Set(seed.objects.map { MergeNames.folded($0.name) })
        for object in user.objects where !seedNames.contains(MergeNames.folded(object.name)) {
            let isTheApps: Bool
            switch appObjects {
            case .notIn(let base): isTheApps = base.objects.allSatisfy { MergeNames.folded($0.name) != MergeNames.folded(object.name) }
            case .viewsTheSeedLacks: isTheApps = object.type == "view"
            case .onlyThoseOfCarriedTables: isTheApps = false
            }
            guard carried.contains(MergeNames.folded(object.table)) || isTheApps else { continue }
            if object.type == "index", user.table(object.table)?.kind == .virtual { continue }
            do {
                try db.inSavepoint {
                    try db.execute(sql: MergeSQL.create(object.sql, in: target))
                    return .commit
                }
            } catch let error as DatabaseError {
                logger.warning("the app's \(object.type) \(NameRules.quoted(object.name)) does not fit the new seed and was left out: \(error.message ?? "\(error.resultCode)")")
            }
        }
    }

    /// The columns written, quoted: the user's columns the destination has (after adding
    /// the missing ones to an app's table that already existed in the target).
    private func sharedColumns(_ table: MergeCatalog.Table, destination: MergeCatalog.Table, extraColumns: ExtraColumns) throws -> [String] {
        var shared: [String] = []
        // The app's generated columns the destination lacks: added, never written.
        if extraColumns == .added {
            for column in table.generatedColumns where !destination.hasColumn(column.name) {
                try Self.addColumn(column, of: table, to: MergeSQL.qualified(target, table.name), db: db, logger: logger)
            }
        }
        for column in table.columns {
            if destination.column(column.name) != nil {
                shared.append(column.name.quotedSQLIdentifier)
                continue
            }
            switch extraColumns {
            case .added:
                try Self.addColumn(column, of: table, to: MergeSQL.qualified(target, table.name), db: db, logger: logger)
                shared.append(column.name.quotedSQLIdentifier)
            case .dropped:
                logger.warning("table \(NameRules.quoted(table.name)): column \(NameRules.quoted(column.name)) is gone from the new seed; its values are dropped")
            }
        }
        return shared
    }

    /// Adds the app's column `column` of `table` to `destination` (the new seed's table)
    /// as the app declared it, its collation, checks and references with it. When SQLite
    /// refuses that declaration in `ALTER TABLE … ADD COLUMN` (a `REFERENCES` column with a
    /// default, say), the column is added with its type, `NOT NULL` and default alone, and a
    /// warning says what was left out. A generated column goes only whole; one SQLite cannot
    /// add (`STORED`) is left out with a warning.
    /// - Returns: Whether the column was added.
    /// - Throws: The database's error when the reduced declaration is refused too.
    @discardableResult
    static func addColumn(_ column: MergeCatalog.Column, of table: MergeCatalog.Table, to destination: String, db: Database, logger: Logger) throws -> Bool {
        let named = "table \(NameRules.quoted(table.name)): the app's column \(NameRules.quoted(column.name))"
        guard !column.generated || table.declaration(ofColumn: column.name) != nil else {
            // Its expression is only in its declaration: a plain column would stay empty.
            logger.warning("\(named) cannot be added to the new seed's table (its declaration was not found); it is not in the new copy, the old copy keeps it")
            return false
        }
        do {
            try db.execute(sql: MergeSQL.addColumn(column, of: table, to: destination))
            return true
        } catch let error as DatabaseError where table.declaration(ofColumn: column.name) != nil {
            let why = error.message ?? "\(error.resultCode)"
            if column.generated {
                logger.warning("\(named) cannot be added to the new seed's table (\(why)); it is not in the new copy, the old copy keeps it")
                return false
            }
            try db.execute(sql: MergeSQL.addColumn(column, of: table, to: destination, whole: false))
            logger.warning("\(named) is added with its type, NOT NULL and default alone: SQLite refused its declaration in ALTER TABLE (\(why))")
            return true
        }
    }

    /// The name through which the user's row ids are carried (see the type's rule), or
    /// `nil` when the columns carry them (an `INTEGER PRIMARY KEY`) or there are none.
    private func rowidName(_ table: MergeCatalog.Table, destination: MergeCatalog.Table) -> String? {
        guard !table.withoutRowid, !destination.withoutRowid, !destination.hasRowidColumn else { return nil }
        return ["rowid", "_rowid_", "oid"].first { table.column($0) == nil && destination.column($0) == nil }
    }

    /// Fills a virtual table just created (or emptied) in the target: an FTS4/FTS5 index
    /// over external content is rebuilt from that content, a contentless one cannot be
    /// read back and stays empty (with a warning), any other gets the user's rows through
    /// the module, row ids kept.
    private func fillVirtual(_ table: MergeCatalog.Table, definedByTheUser: Bool) throws -> Int {
        let destination = MergeSQL.qualified(target, table.name)
        switch MergeSQL.fullTextContentTable(table.sql ?? "") {
        case "":
            logger.warning("the app's contentless full-text table \(NameRules.quoted(table.name)) cannot be read back; it is empty in the new seed until the app fills it again")
            if !definedByTheUser { try db.execute(sql: "DELETE FROM \(destination)") }
            return 0
        case .some:
            try db.execute(sql: "INSERT INTO \(destination) (\(table.name.quotedSQLIdentifier)) VALUES ('rebuild')")
            return 0
        case nil:
            break
        }
        let visible = "SELECT name FROM pragma_table_xinfo(?, ?) WHERE hidden = 0"
        var columns = try String.fetchAll(db, sql: visible, arguments: [table.name, user.schema])
        if !definedByTheUser {
            let targetColumns = Set(try String.fetchAll(db, sql: visible, arguments: [table.name, target]).map(MergeNames.folded))
            columns = columns.filter { targetColumns.contains(MergeNames.folded($0)) }
            try db.execute(sql: "DELETE FROM \(destination)")
        }
        let list = (["rowid"] + columns.map(\.quotedSQLIdentifier)).joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(destination) (\(list)) SELECT \(list) FROM \(MergeSQL.qualified(user.schema, table.name))")
        return db.changesCount
    }

    /// The one error of a carry: the old copy in use, the disk's failure, or rows that do
    /// not fit.
    private func failure(_ error: any Error, table: String) -> SeedDBError {
        switch error {
        case let error as SeedDBError:
            return error
        case let error as DatabaseError where SQLiteFile.isBusy(error):
            return SeedDBError(.inUse, "cannot carry table \(NameRules.quoted(table)) into the new seed: the working copy is in use by another process; nothing was changed", underlying: SQLiteFile.inItsOwnWords(error))
        case let error as DatabaseError:
            return SeedDBError(SQLiteFile.isFileFailure(error) ? .ioFailure : .invalidSeed, "cannot carry table \(NameRules.quoted(table)) into the new seed: \(error.message ?? "\(error.resultCode)"); nothing was changed", underlying: error)
        default:
            return SeedDBError(.ioFailure, "cannot carry table \(NameRules.quoted(table)) into the new seed: \(error); nothing was changed", underlying: error)
        }
    }
}

extension TableCarry {
    /// How the `carry` step tells the app's tables from the seed's.
    enum AppTables {
        /// A merge ran first and carried these (its ``MergeResult/carriedTables``); the
        /// tables it merged are its own too. Only the preserved tables are left.
        case carriedByTheMerge([String])
        /// The tables the old copy's seed lacked (its tables, recorded with its deploy):
        /// a table a new seed drops then goes, and a table the app made stays.
        case notInTheOldSeed([String])
        /// The old copy's seed is unknown (an adopted copy, an older record): the tables
        /// the new seed lacks.
        case notInTheNewSeed
    }

    /// The `carry` step's carry, from schema `old` into `main` on `db`, in one savepoint:
    /// the tables `appTables` names, whole, with their indexes, triggers and views; and
    /// the preserved tables, whose rows replace the new seed's (a preserved table the new
    /// seed lacks is carried whole).
    ///
    /// - Returns: The tables carried, the merge's first, in name order within each part
    ///   (ordinary tables before virtual ones; shadow tables left out).
    /// - Throws: ``SeedDBError`` `invalidSeed` naming the table when a preserved table is
    ///   in neither copy (a typo), or as ``carry(_:into:extraColumns:)``; `main` is then
    ///   as it was.
    static func carryUserTables(preserving preserved: [String], appTables: AppTables, in db: Database, logger: Logger) throws(SeedDBError) -> [String] {
        do {
            let user = try MergeCatalog.read(db, schema: "old")
            let seed = try MergeCatalog.read(db, schema: "main")
            let tables = Array(Set(seed.tables.values.map(\.name) + user.tables.values.map(\.name))).sorted()
            try ConfiguredTables.check(ConfiguredTables.names(preserved: preserved, merge: MergePolicies()), among: tables, missingFrom: "the working copy or the new seed")
            let isPreserved = Set(preserved.map(MergeNames.folded))
            let carry = TableCarry(db: db, user: user, target: "main", logger: logger)
            var carried: [String] = []
            var whole: Set<String> = []
            try db.inSavepoint {
                let tables = user.tables.values.filter { $0.kind == .ordinary || $0.kind == .virtual }
                    .sorted { ($0.kind == .virtual ? 1 : 0, $0.name) < ($1.kind == .virtual ? 1 : 0, $1.name) }
                for table in tables {
                    let folded = MergeNames.folded(table.name)
                    let existing = seed.table(table.name)
                    let isTheApps: Bool
                    switch appTables {
                    case .carriedByTheMerge(let merged):
                        if merged.contains(where: { MergeNames.folded($0) == folded }) { continue }
                        isTheApps = false
                    case .notInTheOldSeed(let seedTables):
                        isTheApps = !seedTables.contains { MergeNames.folded($0) == folded }
                    case .notInTheNewSeed:
                        isTheApps = existing == nil
                    }
                    guard isTheApps || isPreserved.contains(folded) else { continue }
                    try carry.carry(table, into: existing, extraColumns: isTheApps ? .added : .dropped)
                    if existing == nil { whole.insert(folded) }
                    carried.append(table.name)
                }
                let objects: AppObjects
                if case .carriedByTheMerge = appTables { objects = .onlyThoseOfCarriedTables } else { objects = .viewsTheSeedLacks }
                try carry.carryObjects(ofTablesCarriedWhole: whole, seed: seed, appObjects: objects)
                return .commit
            }
            if case .carriedByTheMerge(let merged) = appTables { return merged + carried }
            return carried
        } catch {
            throw SQLiteFile.mapped(error, "cannot carry tables from", "the working copy")
        }
    }
}
