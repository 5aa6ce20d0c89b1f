import SeedDBCore
import SystemPackage

/// Makes SQLite itself refuse writes to a generation file that is no longer the working
/// copy, whatever journal mode a connection still holding it uses.
///
/// After a swap, a connection opened on the old generation would go on writing into it.
/// In `delete`, `truncate` and `persist` modes SQLite notices the file was renamed when it
/// opens its journal (`SQLITE_READONLY_DBMOVED`); in `memory` and `off` modes it opens no
/// journal and would report every commit a success. The fence sets the header's *write
/// version* (byte 18) above 2, which SQLite reads as "treat this file as read-only", and
/// advances the change counter so every connection re-reads the header before its next
/// transaction: reads go on, every write fails with `SQLITE_READONLY`. The fenced file
/// stays a valid database (`sqlite3` can read it); ``unfence(_:)`` puts the write version
/// back when a rollback restores its content.
///
/// Fenced under the writer's lock, after the carry read the old content and the switch
/// made the new generation the working copy, so no write can be lost in between.
enum GenerationFence {
    /// The write version a fenced file has (SQLite knows 1, legacy, and 2, WAL).
    static let fencedWriteVersion: UInt8 = 3

    /// Fences the database file at `path`. Nothing happens to a file that is not a
    /// rollback-journal database (a swap leaves WAL mode before it starts).
    ///
    /// The header is written through a descriptor of its own, which is closed at once:
    /// on Linux that also drops the process's POSIX locks on the file, harmless here
    /// because the fence is in place before they go.
    /// - Returns: The header as it was, when the fence changed it (``restore(_:header:)``
    ///   puts it back byte for byte).
    @discardableResult
    static func fence(_ path: String) throws(SeedDBError) -> [UInt8]? {
        var original: [UInt8]?
        _ = try rewriteHeader(path) { header in
            guard header[18] == 1 else { return false }
            original = header
            header[18] = fencedWriteVersion
            let counter = (UInt32(header[24]) << 24 | UInt32(header[25]) << 16 | UInt32(header[26]) << 8 | UInt32(header[27])) &+ 1
            for offset in [24, 92] {
                header[offset] = UInt8(truncatingIfNeeded: counter >> 24)
                header[offset + 1] = UInt8(truncatingIfNeeded: counter >> 16)
                header[offset + 2] = UInt8(truncatingIfNeeded: counter >> 8)
                header[offset + 3] = UInt8(truncatingIfNeeded: counter)
            }
            return true
        }
        return original
    }

    /// Puts back the header ``fence(_:)`` changed, byte for byte: the undo of a fence
    /// whose run failed (the content pages never changed).
    static func restore(_ path: String, header: [UInt8]) throws(SeedDBError) {
        _ = try rewriteHeader(path) { current in
            guard current != header else { return false }
            current = header
            return true
        }
    }

    /// Removes the fence from the database file at `path`, if it has one.
    /// - Returns: Whether the file was fenced.
    @discardableResult
    static func unfence(_ path: String) throws(SeedDBError) -> Bool {
        try rewriteHeader(path) { header in
            guard header[18] == fencedWriteVersion else { return false }
            header[18] = 1
            return true
        }
    }

    /// Reads the 100-byte header of `path`, lets `change` edit it, and writes it back when
    /// `change` says it changed something.
    private static func rewriteHeader(_ path: String, _ change: (inout [UInt8]) -> Bool) throws(SeedDBError) -> Bool {
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readWrite, options: [.closeOnExec, .noFollow])
            return try descriptor.closeAfter {
                var header = [UInt8](repeating: 0, count: SQLiteHeader.length)
                let read = try header.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
                guard read == SQLiteHeader.length, SQLiteHeader(header) != nil, change(&header) else { return false }
                _ = try descriptor.writeAll(toAbsoluteOffset: 0, header)
                return true
            }
        } catch {
            throw SeedDBError.io(error, "cannot fence", path)
        }
    }
}
