import SeedDBCore
import SystemPackage

/// Inter-process locks on single bytes of a lock file (open-file-description locks).
///
/// OFD locks belong to this object's open file description: closing some other
/// descriptor on the same file (in this process) does not drop them, and the kernel drops
/// them when the process dies, so a crashed deploy never leaves a stale lock behind.
///
/// A lock file has two bytes with distinct meanings (``Byte``): deployers take the
/// ``Byte/writer`` byte exclusively; open ``SeedDatabase`` handles hold the
/// ``Byte/readers`` byte shared, which is how a deploy knows the database is in use even
/// when the app's connections are idle and hold no SQLite lock.
final class FileLock {
    /// Exclusive (one holder) or shared (many holders, no exclusive one).
    enum Kind {
        case exclusive
        case shared
    }

    /// Bytes of a lock file with distinct meanings.
    enum Byte: Int {
        /// Serialises writers (deployers) of the guarded file.
        case writer = 0
        /// Held shared by every open ``SeedDatabase`` handle.
        case readers = 1
    }

    private let descriptor: FileDescriptor
    /// The lock file's path.
    let path: String
    /// Whether this object created the lock file (so a run that fails can remove it).
    let created: Bool
    private var closed = false

    /// Opens (creating if needed) the lock file at `path`, holding no lock yet.
    /// - Parameter owner: Who should own a lock file this creates (a service account).
    init(path: String, owner: FileOwner? = nil) throws(SeedDBError) {
        created = try FileSystem.fileType(at: path) == nil
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
            if let owner, Syscalls.isRoot { try Syscalls.fchown(descriptor, uid: owner.uid, gid: owner.gid) }
        } catch {
            throw SeedDBError.io(error, "cannot open lock file", path)
        }
        self.path = path
    }

    deinit { close() }

    /// Opens `path` and takes `kind` on `byte`, waiting at most `timeout`.
    ///
    /// A holder may remove a lock file it created (a failed run leaves nothing behind), so
    /// a lock taken on a file that is no longer at `path` is dropped and taken again on
    /// the file that is.
    static func acquire(_ path: String, kind: Kind, byte: Byte = .writer, timeout: Duration, owner: FileOwner? = nil) throws(SeedDBError) -> FileLock {
        while true {
            let lock = try FileLock(path: path, owner: owner)
            try lock.lock(byte, kind, timeout: timeout)
            if try lock.isStillAtPath() { return lock }
            lock.close()
        }
    }

    /// Whether the locked file is still the one at ``path``.
    private func isStillAtPath() throws(SeedDBError) -> Bool {
        do {
            let opened = try descriptor.stat()
            guard let current = try FileSystem.status(at: path) else { return false }
            return opened.inode == current.inode && opened.deviceID == current.deviceID
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot inspect", path)
        }
    }

    /// Removes the lock file while it is held, then releases it: for a run that created
    /// it and must leave nothing behind. Other waiters notice and take a new file.
    func removeAndClose() {
        try? FileSystem.remove(path)
        close()
    }

    /// Takes `kind` on `byte`, polling until `timeout` runs out.
    ///
    /// - Throws: ``SeedDBError`` `inUse` when the wait runs out.
    func lock(_ byte: Byte, _ kind: Kind, timeout: Duration) throws(SeedDBError) {
        let type: Syscalls.LockType = kind == .exclusive ? .exclusive : .shared
        try poll(until: ContinuousClock().now.advanced(by: timeout)) { () throws(SeedDBError) in
            do {
                return try Syscalls.setLock(descriptor, byte: byte.rawValue, type: type)
            } catch {
                throw SeedDBError.io(error, "cannot lock", path)
            }
        } onTimeout: {
            byte == .writer
                ? SeedDBError(.inUse, "timed out after \(timeout.seconds)s waiting for the lock \(path): another process is deploying")
                : SeedDBError(.inUse, "timed out after \(timeout.seconds)s waiting for the lock \(path)")
        }
    }

    /// Releases this object's lock on `byte`.
    func unlock(_ byte: Byte) {
        _ = try? Syscalls.setLock(descriptor, byte: byte.rawValue, type: .unlocked)
    }

    /// Whether another open file description (in any process, this one included) holds a
    /// lock on `byte`.
    func isHeldElsewhere(_ byte: Byte) throws(SeedDBError) -> Bool {
        do {
            return try Syscalls.lockConflicts(descriptor, byte: byte.rawValue, exclusive: true)
        } catch {
            throw SeedDBError.io(error, "cannot test lock", path)
        }
    }

    /// Waits until no other holder has `byte`, at most until `deadline`.
    /// - Throws: `error()` when the deadline passes first.
    func waitUntilFree(_ byte: Byte, until deadline: ContinuousClock.Instant, error: () -> SeedDBError) throws(SeedDBError) {
        try poll(until: deadline) { () throws(SeedDBError) in try !isHeldElsewhere(byte) } onTimeout: { error() }
    }

    /// Releases every lock and closes the lock file; safe to call more than once.
    func close() {
        guard !closed else { return }
        closed = true
        try? descriptor.close()
    }

    /// Calls `attempt` until it returns `true`, backing off from 1 to 50 ms.
    private func poll(until deadline: ContinuousClock.Instant, _ attempt: () throws(SeedDBError) -> Bool, onTimeout: () -> SeedDBError) throws(SeedDBError) {
        let clock = ContinuousClock()
        var pause = Duration.milliseconds(1)
        while true {
            if try attempt() { return }
            let now = clock.now
            if now >= deadline { throw onTimeout() }
            sleepBriefly(min(pause, deadline - now))
            pause = min(pause * 2, .milliseconds(50))
        }
    }
}

/// Sleeps the calling thread for `duration` (these paths are synchronous).
func sleepBriefly(_ duration: Duration) {
    Syscalls.sleep(duration)
}
