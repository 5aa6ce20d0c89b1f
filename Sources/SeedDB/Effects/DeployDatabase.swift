import GRDB
import Logging
import SeedDBCore
import SystemPackage

/// The database operations a deploy makes: copying a seed into a staged file, checking
/// it, running the app's migrations, the writer's lock on the old copy, the carry of the
/// user's tables and edits, the snapshot of a live replace and the fence on an old
/// generation.
///
/// ``LocalDatabase`` is the real one (``SeedSource``, ``SQLiteFile``, ``WriterLock``,
/// ``TableCarry``, ``ThreeWayMerge``, ``GenerationFence``); the simulator's is a model
/// of content labels and the rows users wrote (`Tests/SeedDBSimulation`).
protocol DeployDatabase: Sendable {
    /// The seed file at `path` as found: it exists, is a regular file, and (when
    /// `readingHeader`) starts with an SQLite header.
    func inspectSeed(_ path: String, readingHeader: Bool) throws(SeedDBError) -> SeedSource.Inspection
    /// Copies the seed at `source` into a new temporary file in `directory` (named for
    /// `stem`) with `policy`'s mode and owner, hashing and flushing it; `created` is told
    /// the new file's path as soon as it exists.
    func copySeed(_ source: String, into directory: String, stem: String, policy: FilePolicy, options: SeedCopyOptions, created: (String) -> Void) throws(SeedDBError) -> SeedSource.CopyResult
    /// `quick_check` (or `integrity_check` when `full`) of the database at `path`: `"ok"`
    /// or the first problem.
    /// - Throws: `ioFailure` when the file cannot be opened or read (no verdict on it).
    func check(_ path: String, full: Bool) throws(SeedDBError) -> String
    /// The names of the tables of the database at `path`.
    func tableNames(of path: String) throws(SeedDBError) -> [String]
    /// The digest of each ordinary table of the database at `path` (``TableDigest``).
    func tableDigests(of path: String) throws(SeedDBError) -> [String: SHA256Digest]
    /// Fences the database at `path` (SQLite then refuses every write to it); the header
    /// as it was when the fence changed it.
    func fence(_ path: String) throws(SeedDBError) -> [UInt8]?
    /// Puts back the header a fence changed.
    func restoreHeader(_ path: String, _ header: [UInt8]) throws(SeedDBError)
    /// Removes the fence from the database at `path`; whether it had one.
    func unfence(_ path: String) throws(SeedDBError) -> Bool
    /// Runs the app's migrations on the database at `path`.
    func migrate(_ path: String, with migrator: DatabaseMigrator) throws(SeedDBError)
    /// Whether a swap could have the database at `path` to itself now (see
    /// ``WriterLock/swapLooksFree(_:)``).
    func swapLooksFree(_ path: String) -> Bool
    /// Runs `body` holding the writer's lock a swap takes on the old copy at `path`.
    func underSwapLock(_ path: String, waiting: String, patience: Duration?, until deadline: ContinuousClock.Instant, logger: Logger, _ body: (WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError)
    /// Replaces the content of the database at `path` by the staged copy's through
    /// SQLite's backup, calling `body` inside the backup's write lock before any page of
    /// the working copy changes; the backup commits once `body` returns.
    func replaceLive(_ path: String, staged: String, waiting: String, until deadline: ContinuousClock.Instant, progress: (@Sendable (Int64, Int64) -> Void)?, isInterrupted: CopyEngine.Interruption, _ body: (any LiveReplace, WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError)
    /// Carries the user's tables and edits from `old` into `target`, as `carry` says.
    func carry(into target: CarryTarget, from old: String, _ carry: CarryRequest, logger: Logger) throws(SeedDBError) -> CarryResult
    /// Writes a copy of the old content (`old`, read inside the live replace's lock) to
    /// the new file `path`.
    func snapshot(_ live: any LiveReplace, of old: String, to path: String) throws(SeedDBError)
}

/// A live replace under way: the staged copy's connection inside the backup's lock.
protocol LiveReplace: AnyObject {}

/// Where a carry writes.
enum CarryTarget {
    /// The staged copy's file (a swap).
    case staged(String)
    /// The staged copy's connection inside a live replace.
    case live(any LiveReplace)
}

/// What a carry brings across, decided before it runs.
struct CarryRequest {
    /// The working copy's path, for messages (`old` may be a URI).
    var workingCopy: String
    /// Tables whose rows survive the replace whole.
    var preservedTables: [String]
    /// How the user's edits of the seed's rows are merged (off for none).
    var merge: MergePolicies
    /// Which tables count as the app's (carried whole) when the merge does not decide.
    var appTables: TableCarry.AppTables
    /// The table names the seed's configuration gives (preserved and merge tables),
    /// checked against the old and new copies even when the merge is skipped.
    var configuredTables: [(name: String, what: String)]
    /// The merge base to attach (its digest already checked), or `nil` to merge without.
    var base: String?
    /// How the seed tables whose changes the carry replaces (``merge`` leaves them `off`,
    /// the preserved ones aside) are compared, to name those the user changed; `nil`
    /// when they are not.
    var discards: Discards?
    /// A rollback's: the seed tables of the generation restored, whose other tables the
    /// merge leaves to the user's version, carried whole (``PlannedStep/Carry/restoredSeedTables``).
    var restoredSeedTables: [String]? = nil
    /// For a merge without a base: the digests the old copy's seed tables had when it was
    /// deployed; a table that still has its digest takes the new content's rows instead of
    /// being merged (``PlannedStep/Carry/unchangedIfDigests``).
    var unchangedIfDigests: [String: SHA256Digest]? = nil

    /// What the old copy's seed tables are compared with.
    enum Discards {
        /// The tables of the merge base at this path (its digest already checked).
        case againstBase(String)
        /// These digests (``DeployRecord/tableDigests``).
        case againstDigests([String: SHA256Digest])
    }
}

/// What a carry did.
struct CarryResult {
    /// The tables carried whole.
    var carried: [String]
    /// What the merge did, when one ran.
    var merge: MergeResult?
    /// The seed tables the user had changed whose changes were replaced, in name order;
    /// `nil` when they were not compared.
    var discarded: [String]? = nil
}

/// How a seed is copied (see ``SeedSource/copy(to:destinationPath:known:prefix:rereads:progress:whileHashing:isInterrupted:)``).
struct SeedCopyOptions {
    /// The seed's identity and digest as known before the copy.
    var known: SourceDigest?
    /// The bytes read for the header, with the identity they were read at.
    var prefix: (identity: FileIdentity, bytes: [UInt8])?
    /// Whether the copy is read back and compared (`--integrity full`).
    var rereads: Bool
    /// Told the bytes copied and the total.
    var progress: (@Sendable (Int64, Int64) -> Void)?
    /// Asked between chunks: a stop abandons the copy.
    var isInterrupted: CopyEngine.Interruption
}

/// The real database operations, through GRDB and the IO room.
struct LocalDatabase: DeployDatabase {
    /// Creates the real database operations.
    init() {}

    func inspectSeed(_ path: String, readingHeader: Bool) throws(SeedDBError) -> SeedSource.Inspection {
        try SeedSource(path: path).inspect(readingHeader: readingHeader)
    }

    func copySeed(_ source: String, into directory: String, stem: String, policy: FilePolicy, options: SeedCopyOptions, created: (String) -> Void) throws(SeedDBError) -> SeedSource.CopyResult {
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: directory, stem: stem)
        created(temporary)
        return try FileSystem.writing(descriptor, path: temporary) { () throws(SeedDBError) -> SeedSource.CopyResult in
            try FileSystem.apply(policy, to: descriptor, path: temporary)
            // The flush overlaps the end of the hashing.
            return try SeedSource(path: source).copy(
                to: descriptor, destinationPath: temporary, known: options.known, prefix: options.prefix,
                rereads: options.rereads, progress: options.progress,
                whileHashing: { () throws(SeedDBError) in try FileSystem.sync(descriptor, path: temporary) },
                // Ctrl-C stops the copy between two chunks, not at its end.
                isInterrupted: options.isInterrupted)
        }
    }

    func check(_ path: String, full: Bool) throws(SeedDBError) -> String {
        try SQLiteFile.check(path, access: .immutable, full: full)
    }

    func tableNames(of path: String) throws(SeedDBError) -> [String] {
        try SQLiteFile.mapping("cannot read the tables of", path) {
            let queue = try SQLiteFile.open(path, access: .immutable, label: "SeedDB.tables")
            defer { try? queue.close() }
            return try queue.read { try MergeCatalog.tableNames(in: "main", db: $0) }
        }
    }

    func tableDigests(of path: String) throws(SeedDBError) -> [String: SHA256Digest] {
        try SQLiteFile.mapping("cannot hash the tables of", path) {
            let queue = try SQLiteFile.open(path, access: .immutable, label: "SeedDB.tableDigests")
            defer { try? queue.close() }
            return try queue.read { try TableDigest.digests(in: "main", db: $0) }
        }
    }

    func fence(_ path: String) throws(SeedDBError) -> [UInt8]? { try GenerationFence.fence(path) }
    func restoreHeader(_ path: String, _ header: [UInt8]) throws(SeedDBError) { try GenerationFence.restore(path, header: header) }
    func unfence(_ path: String) throws(SeedDBError) -> Bool { try GenerationFence.unfence(path) }

    func migrate(_ path: String, with migrator: DatabaseMigrator) throws(SeedDBError) {
        try SQLiteFile.mapping("cannot run the app's migrations on", path) {
            let queue = try SQLiteFile.open(path, access: .readWrite, label: "SeedDB.migrate")
            defer { try? queue.close() }
            try migrator.migrate(queue)
        }
    }

    func swapLooksFree(_ path: String) -> Bool { WriterLock.swapLooksFree(path) }

    func underSwapLock(_ path: String, waiting: String, patience: Duration?, until deadline: ContinuousClock.Instant, logger: Logger, _ body: (WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError) {
        try WriterLock.forSwap(path, waiting: waiting, patience: patience, until: deadline, logger: logger, body)
    }

    func replaceLive(_ path: String, staged: String, waiting: String, until deadline: ContinuousClock.Instant, progress: (@Sendable (Int64, Int64) -> Void)?, isInterrupted: CopyEngine.Interruption, _ body: (any LiveReplace, WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError) {
        try WriterLock.forLive(path, staged: staged, waiting: waiting, until: deadline, progress: progress, isInterrupted: isInterrupted) { (db, old) throws(SeedDBError) in
            try body(Connection(db), old)
        }
    }

    func carry(into target: CarryTarget, from old: String, _ carry: CarryRequest, logger: Logger) throws(SeedDBError) -> CarryResult {
        switch target {
        case .live(let live):
            return try Self.carry(into: Self.database(live), from: old, carry, staged: nil, logger: logger)
        case .staged(let staged):
            return try SQLiteFile.mapping("cannot carry tables into", staged) {
                let queue = try SQLiteFile.open(staged, access: .readWrite, label: "SeedDB.carry")
                defer { try? queue.close() }
                return try queue.writeWithoutTransaction { db in
                    // The staged copy is SeedDB's own temporary file until it is installed,
                    // flushed whole before that (`digestAndSync`); a run killed before then
                    // removes it. Flushing the journal and the pages the merge spills as it
                    // goes would order writes nobody will replay.
                    try db.execute(sql: "PRAGMA synchronous = OFF")
                    return try Self.carry(into: db, from: old, carry, staged: staged, logger: logger)
                }
            }
        }
    }

    func snapshot(_ live: any LiveReplace, of old: String, to path: String) throws(SeedDBError) {
        let db = Self.database(live)
        try SQLiteFile.mapping("cannot keep the previous generation in", path) {
            try db.execute(sql: "ATTACH DATABASE ? AS seeddb_old", arguments: [old])
            defer { try? db.execute(sql: "DETACH DATABASE seeddb_old") }
            try db.execute(sql: "VACUUM seeddb_old INTO ?", arguments: [path])
        }
    }

    /// Runs `body` with the rollback journal of the connection's `main` database off, when
    /// it has one (a WAL database keeps its mode) and nothing in `body` rolls back and goes
    /// on, and puts the mode back after.
    ///
    /// Only for a file nobody else opens and that is removed, not used, when `body` throws
    /// (a rollback without a journal leaves the pages as they were written): the staged
    /// copy. Each page the merge changes is then written once instead of twice (its
    /// original into the journal first). The merge rolls back a savepoint and goes on in one
    /// place: an index, trigger or view of the app's that does not fit the new seed is left
    /// out (``TableCarry/carryObjects(ofTablesCarriedWhole:seed:appObjects:)``), and without
    /// a journal its half-built pages would stay. So the journal stays on whenever the old
    /// copy (schema `old`) has such an object the new seed lacks.
    private static func withoutRollbackJournal<Result>(_ db: Database, _ body: () throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        let (mode, userObjects) = try SQLiteFile.mapping("cannot read the schemas of", "the staged copy") {
            let mode = try String.fetchOne(db, sql: "PRAGMA main.journal_mode") ?? ""
            let userObjects = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM old.sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql IS NOT NULL
                AND name COLLATE NOCASE NOT IN (SELECT name FROM main.sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql IS NOT NULL))
                """) ?? true
            return (mode, userObjects)
        }
        guard ["delete", "truncate", "persist"].contains(mode), !userObjects else { return try body() }
        try SQLiteFile.mapping("cannot turn off the journal of", "the staged copy") { try db.execute(sql: "PRAGMA main.journal_mode = OFF") }
        let result = try body()
        try SQLiteFile.mapping("cannot turn on the journal of", "the staged copy") { try db.execute(sql: "PRAGMA main.journal_mode = \(mode)") }
        return result
    }

    /// The staged copy's connection inside a live replace.
    private final class Connection: LiveReplace {
        let db: Database
        init(_ db: Database) { self.db = db }
    }

    /// The connection of a live replace this type started (no other kind reaches it).
    private static func database(_ live: any LiveReplace) -> Database {
        (live as! Connection).db
    }

    /// The carry on a connection to the staged copy: the merge first (when on), then the
    /// preserved tables and the tables the app created.
    ///
    /// - Parameter staged: A swap's staged copy: SeedDB's own file, removed when anything
    ///   fails, so its merge may run without a rollback journal
    ///   (``withoutRollbackJournal(_:_:)``); an old copy read `immutable=1` under the
    ///   writer's exclusive lock, so a second connection reads the same bytes
    ///   (``MergeSecondReader``); and the file a failure of the disk while the merge and
    ///   the carry write is named after (``writing(_:_:)``). `nil` for a live replace,
    ///   whose connection is the working copy's.
    private static func carry(into db: Database, from old: String, _ carry: CarryRequest, staged: String?, logger: Logger) throws(SeedDBError) -> CarryResult {
        let isSwap = staged != nil
        try SQLiteFile.mapping("cannot read the working copy", carry.workingCopy) {
            try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [old])
        }
        defer { try? db.execute(sql: "DETACH DATABASE old") }
        try ConfiguredTables.check(carry.configuredTables, in: db)
        var appTables = carry.appTables
        var merged: MergeResult?
        if carry.merge.mergesAnything {
            if let base = carry.base {
                try SQLiteFile.mapping("cannot read the merge base", base) {
                    try db.execute(sql: "ATTACH DATABASE ? AS seeddb_base", arguments: [SQLiteFile.uri(base, query: "immutable=1")])
                }
            }
            defer { if carry.base != nil { try? db.execute(sql: "DETACH DATABASE seeddb_base") } }
            var policies = carry.merge
            for table in carry.preservedTables { policies.tables[table] = .off }
            var threeWay = ThreeWayMerge(policies: policies, logger: logger)
            threeWay.targetSeedTables = carry.restoredSeedTables
            threeWay.unchangedTables = try TableDigest.unchangedTables(carry.unchangedIfDigests, in: db, workingCopy: carry.workingCopy, logger: logger)
            if isSwap, let base = carry.base, !SQLiteProcess.countsAllocations {
                // A second connection searches half of a large table's keys (not while
                // SQLite's allocation count makes the two threads wait on each other). It
                // only saves time: when it cannot open, the merge uses one connection.
                do {
                    threeWay.secondReader = try MergeSecondReader(base: (SQLiteFile.uri(base, query: "immutable=1"), "seeddb_base"), user: (old, "old"))
                } catch {
                    logger.debug("merge: one connection (a second could not open: \(error))")
                }
            }
            defer { threeWay.secondReader?.close() }
            let merge = { [threeWay] () throws(SeedDBError) in
                try threeWay.merge(in: db, base: carry.base == nil ? nil : "seeddb_base", user: "old", into: "main")
            }
            let result = try writing(staged) { () throws(SeedDBError) in isSwap ? try withoutRollbackJournal(db, merge) : try merge() }
            merged = result
            appTables = .carriedByTheMerge(result.carriedTables)
        }
        // Compared before anything is carried: the old copy is read only.
        var discarded = try carry.discards.map { (discards) throws(SeedDBError) in
            try TableDigest.discarded(policies: carry.merge, preserved: carry.preservedTables, discards, workingCopy: carry.workingCopy, in: db)
        }
        // The tables a merge could not merge, whose changes it replaced, are named with
        // them (an `sqlite_*` table holds no rows of the user's): against the base, those
        // the user changed; without one, those the recorded table digests do not prove
        // unwritten. A run that keeps no previous generation keeps the old copy for them.
        if let merged {
            let replaced = merged.unmergedTables.filter { !MergeNames.folded($0).hasPrefix("sqlite_") }
            if !replaced.isEmpty { discarded = Set((discarded ?? []) + replaced).sorted() }
        }
        let carried = try writing(staged) { () throws(SeedDBError) in
            try TableCarry.carryUserTables(preserving: carry.preservedTables, appTables: appTables, in: db, logger: logger)
        }
        return CarryResult(carried: carried, merge: merged, discarded: discarded)
    }

    /// Runs `body`, which writes into the staged copy at `staged` (when a swap's): a
    /// failure of the disk there (``SQLiteFile/isFileFailure(_:)``: full, an I/O error, a
    /// read-write open that failed) is an I/O error naming that file, with what is free
    /// when it is full; the merge and the carry name a table or a schema, not the file.
    private static func writing<Result>(_ staged: String?, _ body: () throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        do {
            return try body()
        } catch {
            guard let staged, let cause = error.underlying as? DatabaseError, SQLiteFile.isFileFailure(cause) else { throw error }
            throw SQLiteFile.fileFailure(cause, "cannot carry the user's data into the staged copy", staged)
        }
    }
}
