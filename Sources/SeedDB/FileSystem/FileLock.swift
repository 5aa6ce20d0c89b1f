#if canImport(Glibc)
import Glibc
#endif
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
    private let path: String
    private var closed = false

    /// Opens (creating if needed) the lock file at `path`, holding no lock yet.
    /// - Parameter owner: Who should own a lock file this creates (a service account).
    init(path: String, owner: FileOwner? = nil) throws(SeedDBError) {
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
            if let owner, geteuid() == 0 { try Syscalls.fchown(descriptor, uid: owner.uid, gid: owner.gid) }
        } catch {
            throw SeedDBError.io(error, "cannot open lock file", path)
        }
        self.path = path
    }

    deinit { close() }

    /// Opens `path` and takes `kind` on `byte`, waiting at most `timeout`.
    static func acquire(_ path: String, kind: Kind, byte: Byte = .writer, timeout: Duration, owner: FileOwner? = nil) throws(SeedDBError) -> FileLock {
        let lock = try FileLock(path: path, owner: owner)
        try lock.lock(byte, kind, timeout: timeout)
        return lock
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
    let (seconds, attoseconds) = duration.components
    guard seconds > 0 || attoseconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

extension Duration {
    /// The duration in seconds, for messages.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
