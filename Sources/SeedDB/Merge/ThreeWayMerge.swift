import Foundation
import GRDB
import Logging
import SeedDBCore

/// Merges the user's edits into a new seed: the previous seed (the base) is the common
/// ancestor, the working copy is the user's branch, the new seed is the publisher's.
///
/// The merge writes into the staged copy of the new seed, table by table, through set-based
/// SQL across attached schemas: rows are matched by declared primary key (composite keys
/// and `WITHOUT ROWID` tables included), columns by name. Only the rows the user changed
/// are read into memory, one at a time, so a merge streams whatever the table's size.
///
/// What is merged, table by table (``MergeTablePlan`` decides):
/// - a table the three databases share, with the same declared primary key: row by row,
///   by ``RowMerge`` under the table's policy;
/// - a table the app created (in the working copy only): carried whole, with its indexes
///   and triggers; so are the app's own indexes, triggers and views on seed tables;
/// - a column the app added to a seed table: added to the merged copy with its declared
///   type and default, keeping the user's values; a column the new seed added takes the
///   seed's values (its default for rows the user inserted); a column the new seed dropped
///   drops the user's edits to it, with a warning;
/// - tables with no primary key, virtual tables and their shadow tables, `sqlite_*`
///   tables: not merged, the new seed's version stands, with one warning naming them
///   (none for a table whose policy is `off`).
///
/// The new seed's triggers that write to full-text indexes fire as the merge writes (an
/// FTS index kept by triggers follows the merged rows); those that write to a table the
/// merge writes itself do not (it brings that table's rows). An FTS4/FTS5 table whose
/// external content table the merge changed is rebuilt. After the merge,
/// `PRAGMA foreign_key_check` runs on the merged copy. The header's `user_version` is
/// merged as one more cell (docs/merge.md).
///
/// A merge is deterministic: the same three inputs give the same rows in the same order.
public struct ThreeWayMerge: Sendable {
    /// The policy of each table.
    public var policies: MergePolicies
    /// Where warnings go (tables not merged, dropped columns). Never bootstrapped here.
    public var logger: Logger
    /// A second connection to the base and the working copy, which searches half of each
    /// large table's keys on its own thread (``MergeSecondReader``); `nil` for one
    /// connection. Only for files nobody writes during the merge.
    var secondReader: MergeSecondReader?
    /// The seed tables of the content merged into, when some of its tables are the app's
    /// (a rollback's restored generation): the user's version of each other table is
    /// carried whole. `nil`: every table of it is the seed's.
    var targetSeedTables: [String]?
    /// The user's tables proven unchanged since the copy's deploy (by the table digests
    /// recorded then), by folded name: the new seed's version of each stands, or its
    /// absence (``MergeTableFacts/userLeftAlone``). For a merge without a base.
    var unchangedTables: Set<String> = []

    /// Creates a merge.
    ///
    /// - Parameters:
    ///   - policies: The seed's merge policies.
    ///   - logger: Where warnings go.
    public init(policies: MergePolicies, logger: Logger) {
        self.policies = policies
        self.logger = logger
    }

    /// Merges by path: opens `staged`, attaches `base` and `user` read-only, merges, and
    /// closes.
    ///
    /// - Parameters:
    ///   - base: The pristine previous seed, or `nil` when there is none: then the seed's
    ///     rows stand, and only the tables the app created are carried (the caller warns
    ///     about the missing base); under a `fail` policy the merge is refused instead.
    ///   - user: The user's working copy, read through SQLite (committed rows in its `-wal`
    ///     count).
    ///   - staged: A writable copy of the new seed; it becomes the merged copy.
    /// - Returns: The counts, the conflicts and what happened to each table.
    /// - Throws: ``SeedDBError`` `invalidSeed` for a conflict under `fail`, a foreign-key
    ///   violation or rows that do not fit the new schema (the staged copy is then left as
    ///   it was, and must not be installed); other codes for files that cannot be opened.
    public func merge(base: String?, user: String, into staged: String) throws(SeedDBError) -> MergeResult {
        do {
            let queue = try SQLiteFile.open(staged, access: .readWrite, label: "SeedDB.merge")
            defer { try? queue.close() }
            return try queue.writeWithoutTransaction { db in
                if let base {
                    try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [SQLiteFile.uri(base, query: "mode=ro")])
                }
                defer { if base != nil { try? db.execute(sql: "DETACH DATABASE base") } }
                try db.execute(sql: "ATTACH DATABASE ? AS user", arguments: [SQLiteFile.uri(user, query: "mode=ro")])
                defer { try? db.execute(sql: "DETACH DATABASE user") }
                return try merge(in: db, base: base == nil ? nil : "base", user: "user", into: "main")
            }
        } catch {
            throw SQLiteFile.mapped(error, "cannot merge into", staged)
        }
    }

    /// Merges on a connection the caller holds, where the three databases are schemas
    /// already attached (`ATTACH` cannot run inside a transaction).
    ///
    /// The merge runs in a savepoint, so it joins the caller's transaction when there is one
    /// (a write transaction held on the working copy, say) and is undone whole when it
    /// throws. Foreign-key enforcement is switched off for the merge when the connection is
    /// outside a transaction; inside one, enforcement is deferred to the commit (an
    /// `ON DELETE CASCADE` action still fires at once, so prefer a connection without
    /// enforcement).
    ///
    /// - Parameters:
    ///   - db: The connection.
    ///   - base: The schema holding the previous seed, or `nil` for no base.
    ///   - user: The schema holding the working copy; only read.
    ///   - target: The schema holding the staged new seed; written.
    /// - Returns: The counts, the conflicts and what happened to each table.
    /// - Throws: ``SeedDBError``, as ``merge(base:user:into:)``; the savepoint is rolled back.
    public func merge(in db: Database, base: String?, user: String, into target: String) throws(SeedDBError) -> MergeResult {
        do {
            return try run(db, base: base, user: user, target: target)
        } catch {
            throw SQLiteFile.mapped(error, "cannot merge into schema", target)
        }
    }

    private func run(_ db: Database, base: String?, user: String, target: String) throws -> MergeResult {
        let schemas = MergeSchemas(base: base, user: user, target: target)
        let baseCatalog = try base.map { try MergeCatalog.read(db, schema: $0) }
        let userCatalog = try MergeCatalog.read(db, schema: user)
        let seedCatalog = try MergeCatalog.read(db, schema: target)

        let actions = try plan(db, base: baseCatalog, user: userCatalog, seed: seedCatalog, schemas: schemas)

        var result = MergeResult()
        result.summary.withoutBase = base == nil
        let merged = Set(actions.filter { if case .merge = $0.action { true } else { false } }.map { MergeNames.folded($0.name) })
        result.unmergedTables = try actions.filter { $0.action == .seedStands(warn: true) }.map(\.name)
            .filter { name in
                guard let table = seedCatalog.table(name) else { return true }
                return !seedCatalog.followsKeptTable(table) { merged.contains(MergeNames.folded($0)) }
            }
            .filter { try userChangedUnmergedTable($0, db: db, user: userCatalog, base: baseCatalog) }
        if !result.unmergedTables.isEmpty {
            let list = result.unmergedTables.map { NameRules.quoted($0) }.joined(separator: ", ")
            logger.warning("merge: not merged, the new seed's version stands (no primary key or not the same one in every copy, virtual or sqlite_* table, or dropped from the user's copy): \(list); set their merge policy to \"off\" to silence this")
        }
        // Rows whose key holds a NULL match no row: the new seed's stand, and the table is
        // named with those whose changes were replaced.
        let nullKeyed = try actions.filter { if case .merge = $0.action { true } else { false } }.map(\.name)
            .filter { try userChangedNullKeyedRows($0, db: db, user: userCatalog, base: baseCatalog) }
        if !nullKeyed.isEmpty {
            let list = nullKeyed.map { NameRules.quoted($0) }.joined(separator: ", ")
            logger.warning("merge: the user's rows whose primary key holds a NULL cannot be merged, the new seed's version stands: \(list); the old copy keeps them")
            result.unmergedTables = (result.unmergedTables + nullKeyed).sorted()
        }

        let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        let restoreForeignKeys = foreignKeys && !db.isInsideTransaction
        if foreignKeys {
            try db.execute(sql: restoreForeignKeys ? "PRAGMA foreign_keys = OFF" : "PRAGMA defer_foreign_keys = ON")
        }
        defer { if restoreForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }

        let carry = TableCarry(db: db, user: userCatalog, target: target, logger: logger)
        // The new seed's triggers that write to a table the merge writes itself (a log kept
        // by a trigger): dropped while it writes, then made again. The merge brings that
        // table's rows, which such a trigger would write a second time. Those that write to
        // a full-text index fire, so the index follows the merged rows.
        let written = merged.union(actions.filter { $0.action == .carry }.map { MergeNames.folded($0.name) })
        let silenced = seedCatalog.objects.filter { object in
            object.type == "trigger" && !MergeSQL.tablesWritten(byTrigger: object.sql).isDisjoint(with: written)
        }
        try db.inSavepoint {
            for trigger in silenced { try db.execute(sql: "DROP TRIGGER \(MergeSQL.qualified(target, trigger.name))") }
            var changedTables: Set<String> = []
            // The tables whose user's edits the new seed has no place for (the table, or a
            // column, is gone from it): named with those whose changes were replaced.
            var droppedEdits: [String] = []
            defer { result.unmergedTables = Set(result.unmergedTables + droppedEdits).sorted() }
            // Virtual tables last: an index over external content is rebuilt from it.
            let ordered = actions.filter { userCatalog.tables[MergeNames.folded($0.name)]?.kind != .virtual }
                + actions.filter { userCatalog.tables[MergeNames.folded($0.name)]?.kind == .virtual }
            for (name, action) in ordered {
                let folded = MergeNames.folded(name)
                switch action {
                case .merge(let withBase):
                    var table = TableMerge(db: db, schemas: schemas, name: name, policy: policies.policy(for: name),
                                           base: withBase ? baseCatalog?.tables[folded] : nil,
                                           user: userCatalog.tables[folded]!, seed: seedCatalog.tables[folded]!, logger: logger,
                                           secondReader: secondReader)
                    let merged = try table.run()
                    result.summary = result.summary + merged.summary
                    result.conflicts += merged.conflicts
                    result.mergedTables.append(name)
                    if merged.wrote { changedTables.insert(folded) }
                    if merged.droppedEditedColumns { droppedEdits.append(name) }
                case .carry:
                    guard let table = userCatalog.tables[folded] else { continue }
                    result.carriedRows += try carry.carry(table, into: seedCatalog.tables[folded], extraColumns: .added)
                    result.carriedTables.append(name)
                    changedTables.insert(folded)
                case .dropped:
                    // Without a base, only a table the user left alone is dropped: nothing to say.
                    guard let dropped = baseCatalog?.tables[folded], let user = userCatalog.tables[folded] else { continue }
                    if try warnIfEdited(droppedTable: dropped, user: user, db: db, schemas: schemas) { droppedEdits.append(name) }
                case .seedStands:
                    break
                }
            }
            for trigger in silenced { try db.execute(sql: MergeSQL.create(trigger.sql, in: target)) }
            try mergeSequences(of: merged, db: db, schemas: schemas)
            try mergeUserVersion(db: db, schemas: schemas)
            result.carriedTables.sort { MergeNames.folded($0) < MergeNames.folded($1) }
            try carry.carryObjects(ofTablesCarriedWhole: Set(result.carriedTables.map(MergeNames.folded)), seed: seedCatalog,
                                   appObjects: baseCatalog.map { .notIn(base: $0) } ?? .viewsTheSeedLacks)
            try rebuildFullTextIndexes(seed: seedCatalog, changed: changedTables, db: db, target: target)
            if result.conflicts.contains(where: { $0.kept == .none }) {
                let failure = MergeFailure(conflicts: result.conflicts, summary: result.summary)
                let count = failure.conflicts.count
                throw SeedDBError(.mergeRefused, "merge refused under policy \"fail\": \(count) conflict\(count == 1 ? "" : "s") (the first: \(failure.conflicts[0].location)); nothing was changed", underlying: failure, remedy: .conflicts)
            }
            try checkForeignKeys(db: db, target: target)
            return .commit
        }
        return result
    }

    /// Decides what happens to each table, in name order (``MergeTablePlan`` decides; this
    /// gathers the facts from the three schemas).
    private func plan(_ db: Database, base baseCatalog: MergeCatalog?, user userCatalog: MergeCatalog, seed seedCatalog: MergeCatalog,
                      schemas: MergeSchemas) throws -> [(name: String, action: MergeTableAction)] {
        var actions: [(name: String, action: MergeTableAction)] = []
        let targetSeedNames = targetSeedTables.map { Set($0.map(MergeNames.folded)) }
        let names = Set(userCatalog.tables.keys).union(seedCatalog.tables.keys).union(baseCatalog.map { Array($0.tables.keys) } ?? [])
        for folded in names.sorted() {
            let baseTable = baseCatalog?.tables[folded]
            let userTable = userCatalog.tables[folded]
            let seedTable = seedCatalog.tables[folded]
            let name = seedTable?.name ?? userTable?.name ?? baseTable?.name ?? folded
            let keys = [baseTable, userTable, seedTable].compactMap { $0 }.map { $0.primaryKey.map(MergeNames.folded) }
            let hasPrimaryKey = !(keys.first ?? []).isEmpty && keys.allSatisfy { $0 == keys[0] }
            var seedIsEmpty = false
            if let seedTable, seedTable.kind == .ordinary, userTable != nil {
                seedIsEmpty = try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(MergeSQL.qualified(schemas.target, seedTable.name)))")!
            }
            let seedTableIsTheApps = seedTable != nil && targetSeedNames.map { !$0.contains(folded) } == true
            var facts = MergeTableFacts(name: name, base: baseTable?.kind, user: userTable?.kind, seed: seedTable?.kind,
                                        hasPrimaryKey: hasPrimaryKey, seedIsEmpty: seedIsEmpty, seedTableIsTheApps: seedTableIsTheApps)
            facts.userLeftAlone = unchangedTables.contains(folded)
            actions.append((name, MergeTablePlan.action(for: facts, policy: policies.policy(for: name), hasBase: schemas.base != nil)))
        }

        return actions
    }
}


extension ThreeWayMerge {
    /// Whether the user changed a table the merge leaves to the new seed (no primary key,
    /// virtual, `sqlite_*`): worth a warning, and, but for an `sqlite_*` table, naming
    /// among the tables whose changes were replaced. With a base, an ordinary or virtual
    /// table counts when its digest differs from the base's (``TableDigest``: a virtual
    /// table's by its shadow tables); without one, which changed is not known, and each
    /// counts. `sqlite_sequence` never does (the merge keeps the larger counter of each
    /// merged table); another `sqlite_*` table only when it differs from the base's.
    func userChangedUnmergedTable(_ name: String, db: Database, user: MergeCatalog, base: MergeCatalog?) throws -> Bool {
        let folded = MergeNames.folded(name)
        guard folded.hasPrefix("sqlite_") else {
            guard let base, let pristine = base.table(name), let table = user.table(name) else { return true }
            return try TableDigest.digest(of: table, in: user, db: db) != TableDigest.digest(of: pristine, in: base, db: db)
        }
        guard folded != "sqlite_sequence", let base else { return false }
        return try MergeSQL.differ(MergeSQL.qualified(user.schema, name), MergeSQL.qualified(base.schema, name), db: db)
    }

    /// Whether the user changed the rows of merged table `name` whose primary key holds a
    /// `NULL` (a rowid table whose key is not its rowid allows it): such a row matches no
    /// other, so the merge keeps the new seed's. Changed: such a row in one of the user's
    /// copy and the base and not in the other (compared on the columns both have); with no
    /// base, any such row in the user's copy.
    func userChangedNullKeyedRows(_ name: String, db: Database, user: MergeCatalog, base: MergeCatalog?) throws -> Bool {
        guard let table = user.table(name), !table.withoutRowid, !table.primaryKey.isEmpty else { return false }
        let nullKey = table.primaryKey.map { "\($0.quotedSQLIdentifier) IS NULL" }.joined(separator: " OR ")
        let userTable = MergeSQL.qualified(user.schema, table.name)
        guard let base, let pristine = base.table(name) else {
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(userTable) WHERE \(nullKey))") ?? false
        }
        let columns = table.columns.filter { !$0.generated && pristine.column($0.name) != nil }.map(\.name.quotedSQLIdentifier).joined(separator: ", ")
        let baseTable = MergeSQL.qualified(base.schema, pristine.name)
        let rows = { (from: String) in "SELECT \(columns) FROM \(from) WHERE \(nullKey)" }
        return try Bool.fetchOne(db, sql: """
            SELECT EXISTS (\(rows(userTable)) EXCEPT \(rows(baseTable))) OR EXISTS (\(rows(baseTable)) EXCEPT \(rows(userTable)))
            """) ?? false
    }

    /// Merges the header's `user_version`, where an app that numbers its own migrations
    /// keeps their number (its columns and tables are carried, so the number must follow
    /// them, or the app runs its migrations again on their results): the new seed's when
    /// the user left it as the base had it, the user's when only the user changed it, and
    /// the larger of the two when both changed it or there is no base (a migration number
    /// only grows, and each side holds the schema of its own number). When the policies
    /// merge nothing, the new seed's.
    func mergeUserVersion(db: Database, schemas: MergeSchemas) throws {
        guard policies.mergesAnything else { return }
        func version(_ schema: String) throws -> Int64 {
            try Int64.fetchOne(db, sql: "PRAGMA \(schema.quotedSQLIdentifier).user_version") ?? 0
        }
        let user = try version(schemas.user), seed = try version(schemas.target)
        let base = try schemas.base.map(version)
        guard user != seed, user != base else { return }
        let merged = seed == base ? user : max(user, seed)
        if merged != seed { try db.execute(sql: "PRAGMA \(schemas.target.quotedSQLIdentifier).user_version = \(merged)") }
    }

    /// Keeps, for each merged `AUTOINCREMENT` table, the larger of the user's and the seed's
    /// counters, so an id the user's copy handed out (even of a row since deleted) is never
    /// handed out again.
    func mergeSequences(of merged: Set<String>, db: Database, schemas: MergeSchemas) throws {
        guard !merged.isEmpty, try MergeSQL.hasSequence(schemas.user, db: db), try MergeSQL.hasSequence(schemas.target, db: db) else { return }
        let user = "\(schemas.user.quotedSQLIdentifier).sqlite_sequence"
        for name in try String.fetchAll(db, sql: "SELECT DISTINCT name FROM \(user) ORDER BY name") where merged.contains(MergeNames.folded(name)) {
            try MergeSQL.raiseSequence(of: name, toThatOf: schemas.user, in: schemas.target, db: db)
        }
    }
}

/// The schema names a merge runs across.
struct MergeSchemas {
    var base: String?
    var user: String
    var target: String
}
