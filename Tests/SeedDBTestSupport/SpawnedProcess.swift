import Foundation
import Glibc

/// A process a test started with `posix_spawn(3)`, as a shell would start it: every
/// descriptor but the three standard ones closed in the child, no signal blocked, every
/// signal at its default action; its output read with `poll(2)` until a deadline, and
/// reaped by whoever waits for it.
///
/// Not Foundation's `Process`, whose one manager thread learns of every child's end
/// through a socket the child inherits: a child that closes it early holds that thread
/// in `waitpid` until it exits, and a sibling spawned in the same instant can inherit it
/// (a pipe too), and every other child then looks alive until that one ends. Nor its
/// signal mask: a child spawned from a Dispatch thread inherits that thread's, with
/// `SIGQUIT` and `SIGHUP` among the blocked.
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process ID (reserved for it until it is reaped).
    public let processIdentifier: Int32
    /// The read end of the child's standard output (close-on-exec, so no other child
    /// inherits it). ``readOutput(until:while:)`` reads it; so may a test, first.
    public let standardOutput: FileHandle
    /// The read end of the child's standard error, as ``standardOutput``.
    public let standardError: FileHandle
    /// The write end of the child's standard input, when it was started with one
    /// (`input: true`); closing it is the child's end of input.
    public let standardInput: FileHandle?
    private let lock = NSLock()
    private var waitStatus: Int32?
    private var output = Data(), errors = Data()
    private var outputOpen = true, errorsOpen = true

    /// Starts `executable` (a path) with `arguments` and exactly `environment`, in
    /// `directory`, standard input from a pipe (``standardInput``) when `input`, else
    /// from `/dev/null`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil, input: Bool = false) throws {
        let outputPipe = try Self.pipe()
        let outputReader = FileHandle(fileDescriptor: outputPipe.read, closeOnDealloc: true)
        defer { close(outputPipe.write) }
        let errorsPipe = try Self.pipe()
        let errorsReader = FileHandle(fileDescriptor: errorsPipe.read, closeOnDealloc: true)
        defer { close(errorsPipe.write) }
        let inputPipe = input ? try Self.pipe() : nil
        let inputWriter = inputPipe.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
        defer { if let inputPipe { close(inputPipe.read) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorsPipe.write, 2)
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
        standardError = errorsReader
        standardInput = inputWriter
    }

    /// A child nobody waited for is killed and reaped.
    deinit {
        signal(SIGKILL)
        waitUntilExit()
    }

    // MARK: - Its output

    /// What the child wrote on its standard output so far (as ``readOutput(until:while:)`` read it).
    public var outputText: String { String(decoding: lock.withLock { output }, as: UTF8.self) }
    /// What the child wrote on its standard error so far.
    public var errorsText: String { String(decoding: lock.withLock { errors }, as: UTF8.self) }

    /// Reads the child's standard output and error as they come (both at once: a full
    /// pipe must not stall it) until both are closed, `deadline` passes or `keepGoing`
    /// says stop; whether both are closed. Can be called again to read on.
    @discardableResult
    public func readOutput(until deadline: ContinuousClock.Instant, while keepGoing: () -> Bool = { true }) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while lock.withLock({ outputOpen || errorsOpen }), keepGoing() {
            let left = deadline - .now
            guard left > .zero else { return false }
            // A closed stream is left out (a negative descriptor is ignored by poll).
            var polled = lock.withLock {
                [pollfd(fd: outputOpen ? standardOutput.fileDescriptor : -1, events: Int16(POLLIN), revents: 0),
                 pollfd(fd: errorsOpen ? standardError.fileDescriptor : -1, events: Int16(POLLIN), revents: 0)]
            }
            let milliseconds = Int32(min((left / .milliseconds(1)).rounded(.up), 1000))
            guard poll(&polled, 2, milliseconds) >= 0 || errno == EINTR else { return false }
            for (index, stream) in polled.enumerated() where stream.fd >= 0 && stream.revents != 0 {
                let count = read(stream.fd, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { index == 0 ? output.append(contentsOf: buffer[..<count]) : errors.append(contentsOf: buffer[..<count]) }
                } else if count == 0 || errno != EINTR {
                    lock.withLock { if index == 0 { outputOpen = false } else { errorsOpen = false } }
                }
            }
        }
        return lock.withLock { !outputOpen && !errorsOpen }
    }

    // MARK: - Its end

    /// The child's state letter from `/proc/<pid>/stat` (`R`, `S`, `D`, `T` stopped, `Z`
    /// ended and not reaped), or `nil` once it is reaped.
    public var state: Character? {
        lock.withLock {
            guard waitStatus == nil, let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8) else { return nil }
            return stat.split(separator: ")").last?.split(separator: " ").first?.first
        }
    }

    /// Whether the child has not ended yet (a zombie has ended: it is only not reaped).
    public var isRunning: Bool {
        lock.withLock {
            guard waitStatus == nil else { return false }
            var info = siginfo_t()
            return waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo == 0
        }
    }

    /// Waits until the child has stopped itself (`SIGSTOP`), at most `seconds`; whether it did.
    @discardableResult
    public func waitUntilStopped(seconds: Double = 30) -> Bool {
        waitFor(until: .now + .milliseconds(Int64(seconds * 1000))) { state == "T" }
    }

    /// Waits until the child has ended (reaped or not), at most until `deadline`; whether it did.
    public func waitUntilEnded(until deadline: ContinuousClock.Instant) -> Bool {
        waitFor(until: deadline) { !isRunning }
    }

    /// Checks `condition` every millisecond until it holds or `deadline` passes; whether it held.
    private func waitFor(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) -> Bool {
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    /// Sends `signal` to the child, unless it is already reaped (its process ID may then
    /// be another process's).
    public func signal(_ signal: Int32) {
        lock.withLock { if waitStatus == nil { _ = kill(processIdentifier, signal) } }
    }

    /// Waits for the child to end, then reaps it (under the lock, so ``signal(_:)`` never
    /// reaches a reused process ID).
    public func waitUntilExit() {
        var info = siginfo_t()
        while lock.withLock({ waitStatus == nil }) {
            // Waits without reaping: the ended child keeps its process ID until below.
            guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) == 0 || errno == EINTR else {
                lock.withLock { waitStatus = waitStatus ?? -1 } // not our child any more: nothing to wait for
                return
            }
            lock.withLock {
                var status: Int32 = 0
                if waitStatus == nil, waitpid(processIdentifier, &status, WNOHANG) == processIdentifier { waitStatus = status }
            }
        }
    }

    /// The exit status, or the number of the signal that ended it (-1 if it could not be
    /// waited for). Only after ``waitUntilExit()``.
    public var terminationStatus: Int32 {
        guard let status = lock.withLock({ waitStatus }) else { preconditionFailure("terminationStatus before waitUntilExit()") }
        guard status != -1 else { return -1 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// The signal that ended the child, if one did. Only after ``waitUntilExit()``.
    public var killedBy: Int32? {
        guard let status = lock.withLock({ waitStatus }) else { preconditionFailure("killedBy before waitUntilExit()") }
        return status == -1 || status & 0x7f == 0 ? nil : status & 0x7f
    }

    // MARK: - glibc

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
    private static let makePipe = glibc("pipe2", as: MakePipe.self)
    private static let addCloseFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
    private static let addChangeDirectory = glibc("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)

    private static func glibc<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let symbol = dlsym(nil, name) else { fatalError("glibc has no \(name) (2.34 or later needed)") }
        return unsafeBitCast(symbol, to: type)
    }
}
