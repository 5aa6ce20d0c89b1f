#if canImport(Glibc)
import Glibc
#endif
import SeedDBCore
import SystemPackage

/// An inter-process lock on one byte of a lock file (an open-file-description lock).
///
/// Held from ``acquire(_:kind:byte:timeout:)`` until ``release()``; the kernel drops it
/// if the process dies, so a crashed deploy never leaves a stale lock behind.
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
    }

    private let descriptor: FileDescriptor
    private var released = false

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Takes the lock, polling until `timeout` runs out.
    ///
    /// - Throws: ``SeedDBError`` `inUse` when the wait runs out; `cannotCreate`/`ioFailure`
    ///   when the lock file cannot be opened.
    static func acquire(_ path: String, kind: Kind, byte: Byte = .writer, timeout: Duration) throws(SeedDBError) -> FileLock {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw SeedDBError.io(error, "cannot open lock file", path)
        }
        let lock = FileLock(descriptor: descriptor)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(1)
        while true {
            let taken: Bool
            do {
                taken = try Syscalls.setLock(descriptor, byte: byte.rawValue, exclusive: kind == .exclusive)
            } catch {
                throw SeedDBError.io(error, "cannot lock", path)
            }
            if taken { return lock }
            if clock.now >= deadline {
                throw SeedDBError(.inUse, "timed out after \(timeout.seconds)s waiting for the lock \(path): another process is deploying")
            }
            sleepBriefly(min(pause, deadline - clock.now))
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Releases the lock and closes the lock file; safe to call more than once.
    func release() {
        guard !released else { return }
        released = true
        try? descriptor.close()
    }
}

/// Sleeps the calling thread for `duration` (no async context on these paths).
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
