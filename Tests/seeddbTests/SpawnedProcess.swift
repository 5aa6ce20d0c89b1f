import Foundation
import Glibc

/// A process the harness started with `posix_spawn(3)`, as a shell would start it: every
/// descriptor but the three standard ones closed in the child, no signal blocked, every
/// signal at its default action; reaped by whoever waits for it.
///
/// Not Foundation's `Process`, whose one manager thread learns of every child's end
/// through a socket the child inherits: a child that closes it early holds that thread
/// in `waitpid` until it exits, and a sibling spawned in the same instant can inherit it
/// (a pipe too), and every other child then looks alive until that one ends. Nor its
/// signal mask: a child spawned from a Dispatch thread inherits that thread's, with
/// `SIGQUIT` and `SIGHUP` among the blocked.
final class SpawnedProcess: @unchecked Sendable {
    /// The child's process ID.
    let processIdentifier: Int32
    /// The read ends of the child's standard output and error (close-on-exec, so no
    /// other child inherits them).
    let standardOutput: FileHandle
    let standardError: FileHandle
    private let lock = NSLock()
    private var waitStatus: Int32?

    /// The write end of the child's standard input, when it was started with one
    /// (`input: true`); closing it is the child's end of input.
    let standardInput: FileHandle?

    /// Starts `executable` with `arguments` and exactly `environment`, in `directory`,
    /// standard input from a pipe (``standardInput``) when `input`, else `/dev/null`.
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil, input: Bool = false) throws {
        let output = try Self.pipe()
        let outputReader = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        defer { close(output.write) }
        let errors = try Self.pipe()
        let errorReader = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        defer { close(errors.write) }
        let inputPipe = input ? try Self.pipe() : nil
        let inputWriter = inputPipe.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
        defer { inputPipe.map { close($0.read) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        try Self.check(Self.addCloseFrom(&actions, 3), "posix_spawn_file_actions_addclosefrom_np")
        if let directory { try Self.check(Self.addChangeDirectory(&actions, directory), "posix_spawn_file_actions_addchdir_np") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        try Self.check(posix_spawn(&pid, executable, &actions, &attributes, argv, envp), "posix_spawn \(executable)")
        processIdentifier = pid
        standardOutput = outputReader
        standardError = errorReader
        standardInput = inputWriter
    }

    /// Whether the child has not ended yet (a zombie has: it is only not reaped).
    var isRunning: Bool {
        guard lock.withLock({ waitStatus == nil }),
              let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.split(separator: " ").first else { return false }
        return state != "Z"
    }

    /// Waits for the child to end and reaps it (not holding the lock meanwhile, so
    /// ``isRunning`` answers at once).
    func waitUntilExit() {
        var status: Int32 = 0
        while lock.withLock({ waitStatus == nil }) {
            if waitpid(processIdentifier, &status, 0) == processIdentifier {
                lock.withLock { waitStatus = status }
            } else if errno != EINTR {
                usleep(1_000) // another waiter reaped it and is recording it
            }
        }
    }

    /// The exit status, or the number of the signal that ended it. Only after ``waitUntilExit()``.
    var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// The signal that ended the child, if one did. Only after ``waitUntilExit()``.
    var killedBy: Int32? {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7f == 0 ? nil : status & 0x7f
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard makePipe(&ends, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (ends[0], ends[1])
    }

    private static func check(_ result: Int32, _ call: String) throws {
        guard result != 0 else { return }
        throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(result)))"])
    }

    // glibc's GNU calls, which Swift's Glibc module does not show: `pipe2(2)` and the
    // `_np` spawn actions (2.34, 2.29).
    private typealias MakePipe = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let makePipe = unsafeBitCast(dlsym(nil, "pipe2"), to: MakePipe.self)
    private static let addCloseFrom = unsafeBitCast(dlsym(nil, "posix_spawn_file_actions_addclosefrom_np"), to: CloseFrom.self)
    private static let addChangeDirectory = unsafeBitCast(dlsym(nil, "posix_spawn_file_actions_addchdir_np"), to: ChangeDirectory.self)
}
