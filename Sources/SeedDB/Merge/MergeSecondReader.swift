import Foundation
import GRDB

/// A second connection to a merge's base and working copy, so that finding the user's
/// changes in a large table runs on two cores: this connection searches the upper half of
/// the keys on its own thread while the merge's connection searches the lower half
/// (``TableMerge``).
///
/// Only for copies nobody writes while the merge runs, opened `immutable=1`: the old
/// working copy under a swap's exclusive lock and the merge base. Both connections then
/// read the same bytes.
final class MergeSecondReader: @unchecked Sendable {
    /// A table is split when its keys span at least this many values (fewer rows are
    /// found faster than a thread starts).
    let minimumSpan: UInt64
    private let queue: DatabaseQueue

    /// Opens an in-memory connection with `base` and `user` attached under the names the
    /// merge's connection gives them, so the same SQL runs on both.
    ///
    /// - Parameters:
    ///   - base: The `file:` URI of the merge base, and its schema name.
    ///   - user: The `file:` URI of the working copy, and its schema name.
    ///   - minimumSpan: See ``minimumSpan``.
    init(base: (uri: String, schema: String), user: (uri: String, schema: String), minimumSpan: UInt64 = 100_000) throws {
        var configuration = Configuration()
        configuration.label = "SeedDB.merge.second"
        configuration.readonly = true
        queue = try DatabaseQueue(configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS \(base.schema.quotedSQLIdentifier)", arguments: [base.uri])
            try db.execute(sql: "ATTACH DATABASE ? AS \(user.schema.quotedSQLIdentifier)", arguments: [user.uri])
        }
        self.minimumSpan = minimumSpan
    }

    /// Closes the connection.
    func close() { try? queue.close() }

    /// Starts fetching the integers `sql` selects on this reader's own thread; the result's
    /// ``Pending/wait()`` returns them.
    func startFetching(_ sql: String, arguments: StatementArguments) -> Pending {
        let pending = Pending()
        let thread = Thread { [queue] in
            pending.finish(Result { try queue.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) } })
        }
        thread.name = "SeedDB.merge"
        thread.start()
        return pending
    }

    /// Integers being fetched on the second reader's thread.
    final class Pending: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<[Int64], any Error>?

        fileprivate func finish(_ result: Result<[Int64], any Error>) {
            self.result = result
            done.signal()
        }

        /// Waits for the fetch to end: its integers, or what it threw.
        func wait() throws -> [Int64] {
            done.wait()
            done.signal()
            return try result!.get()
        }
    }
}
