import CSeedDBSystem
import GRDBSQLite

/// SQLite's settings for the whole process, not for one connection.
public enum SQLiteProcess {
    /// Stops SQLite from counting its allocations (`SQLITE_CONFIG_MEMSTATUS` off).
    ///
    /// With the count on (SQLite's default), every allocation takes one global mutex, so
    /// two threads running SQL wait on each other: a merge then searches the user's changes
    /// on one connection. With it off, a swap's merge against a base searches a large
    /// table's two halves on two cores at once (``ThreeWayMerge``). The `seeddb` tool calls
    /// this first thing. What the count served goes with it: `sqlite3_memory_used()` reads
    /// 0 and a soft heap limit is not enforced.
    ///
    /// - Returns: Whether it took effect: `false` once the process has used SQLite (the
    ///   setting can only change before SQLite initialises).
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool {
        cseeddb_sqlite_memory_statistics_off() == 0
    }

    /// Whether SQLite (the one GRDB uses) counts its allocations. Only sound while a
    /// connection is open (its allocations are then counted when anything is).
    static var countsAllocations: Bool {
        sqlite3_memory_used() > 0
    }
}
