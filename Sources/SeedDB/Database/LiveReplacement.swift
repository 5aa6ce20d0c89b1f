import GRDB
import SeedDBCore

/// Replaces a working copy's content in place through SQLite's online backup API.
///
/// The backup runs as one write transaction on the working copy, so SQLite's own
/// journal makes it atomic: a reader sees the complete old or the complete new content,
/// and connections other processes hold stay valid and see the new content at their
/// next transaction.
struct LiveReplacement {
    /// The working copy, open through SQLite.
    let destination: DatabaseQueue
    /// Its path, for messages.
    let path: String

    /// Opens the working copy, waiting at most `timeout` for locks.
    init(path: String, timeout: Duration) throws(SeedDBError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(max(timeout.seconds, 0))
        configuration.label = "SeedDB.live"
        do {
            destination = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw SQLiteFile.error(error, "cannot open working copy", path)
        } catch {
            throw SeedDBError.io(error, "cannot open working copy", path)
        }
        self.path = path
    }

    /// Refuses what the backup API cannot do in place: a WAL database cannot change its
    /// page size, so a seed with another page size cannot go live into it.
    ///
    /// - Throws: ``SeedDBError`` `inUse` (exit 75): the swap is the way, once the
    ///   database is closed.
    func requireCompatible(pageSize: Int) throws(SeedDBError) {
        let (mode, current): (String?, Int?)
        do {
            (mode, current) = try destination.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA page_size"))
            }
        } catch let error as DatabaseError {
            throw SQLiteFile.error(error, "cannot read working copy", path)
        } catch {
            throw SeedDBError.io(error, "cannot read working copy", path)
        }
        if mode == "wal", let current, current != pageSize {
            throw SeedDBError(.inUse, "cannot replace \(path) live: it is in WAL mode with page size \(current) and the seed's is \(pageSize); close the database and deploy with --strategy swap")
        }
    }

    /// Copies every page of `source` over the working copy in one transaction, retrying
    /// while readers hold it busy until `deadline`.
    func replace(with source: String, until deadline: ContinuousClock.Instant) throws(SeedDBError) {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let seed = try DatabaseQueue(path: SQLiteFile.uri(source, query: "immutable=1"), configuration: configuration)
            defer { try? seed.close() }
            while true {
                do {
                    try seed.backup(to: destination)
                    return
                } catch let error as DatabaseError where WorkingCopyGuard.isBusy(error) && ContinuousClock().now < deadline {
                    sleepBriefly(.milliseconds(20))
                }
            }
        } catch let error as DatabaseError {
            throw SQLiteFile.error(error, "cannot replace", path)
        } catch {
            throw SeedDBError.io(error, "cannot replace", path)
        }
    }

    /// Copies the working copy's current content to a new database at `target`.
    func snapshot(to target: String) throws(SeedDBError) {
        do {
            let copy = try DatabaseQueue(path: target)
            defer { try? copy.close() }
            try destination.backup(to: copy)
        } catch let error as DatabaseError {
            throw SQLiteFile.error(error, "cannot keep the previous generation in", target)
        } catch {
            throw SeedDBError.io(error, "cannot keep the previous generation in", target)
        }
    }

    /// Closes the connection.
    func close() {
        try? destination.close()
    }
}
