import Foundation
import GRDB
import Logging
@testable import SeedDB
import Testing

/// The writer's lock: a swap's probe sees a database another connection keeps busy, and
/// the swap itself waits for it, refuses when it will not let go, and runs its body with
/// the old copy to itself once it does.
@Suite struct WriterLockTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("levels.sqlite") }

    init() throws {
        let queue = try DatabaseQueue(path: directory.file("levels.sqlite"))
        try queue.write { try $0.execute(sql: "PRAGMA journal_mode = DELETE; CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try queue.close()
    }

    /// Another connection holding a write transaction on the database, until `body` returns.
    private func whileWriting(_ body: () throws -> Void) throws {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        try queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE; INSERT INTO t VALUES (2)")
            defer { try? db.execute(sql: "ROLLBACK") }
            try body()
        }
    }

    @Test func theProbeSeesAnIdleDatabaseFreeAndABusyOneNot() throws {
        #expect(WriterLock.swapLooksFree(path))
        try whileWriting { #expect(!WriterLock.swapLooksFree(path)) }
        #expect(WriterLock.swapLooksFree(path), "free again once the writer is done")
    }

    @Test func aSwapRefusesWhileAnotherConnectionWrites() throws {
        try whileWriting {
            let error = try #require(throws: SeedDBError.self) {
                try WriterLock.forSwap(path, waiting: "replace \(path)", until: ContinuousClock().now.advanced(by: .milliseconds(200)), logger: Logger(label: "test")) { _ in }
            }
            #expect(error.code == .inUse)
            // The cause in SQLite's words for its own code, not the connection's last message.
            let cause = try #require(error.underlying as? DatabaseError, "\(String(describing: error.underlying))")
            #expect(cause.resultCode == .SQLITE_BUSY)
            #expect(cause.description.hasPrefix("SQLite error 5: database is locked"), "\(cause)")
        }
    }

    @Test func aLiveReplaceRefusedWhileAnotherConnectionWritesSaysDatabaseIsLocked() throws {
        // The staged copy: a database of its own beside the working copy.
        let staged = path + ".staged"
        let queue = try DatabaseQueue(path: staged)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (9)") }
        try queue.close()
        try whileWriting {
            let error = try #require(throws: SeedDBError.self) {
                try WriterLock.forLive(path, staged: staged, waiting: "replace \(path)", until: ContinuousClock().now.advanced(by: .milliseconds(200))) { _, _ in }
            }
            #expect(error.code == .inUse)
            // The cause in SQLite's words for its own code, not the connection's last message
            // ("no more rows available" after the backup's step).
            let cause = try #require(error.underlying as? DatabaseError, "\(String(describing: error.underlying))")
            #expect(cause.resultCode == .SQLITE_BUSY)
            #expect(cause.description.hasPrefix("SQLite error 5: database is locked"), "\(cause)")
        }
    }

    @Test func aSwapRunsItsBodyWithTheOldCopyWhenFree() throws {
        var ran = false
        try WriterLock.forSwap(path, waiting: "replace \(path)", until: ContinuousClock().now.advanced(by: .seconds(5)), logger: Logger(label: "test")) { _ in
            ran = true
        }
        #expect(ran)
    }
}
