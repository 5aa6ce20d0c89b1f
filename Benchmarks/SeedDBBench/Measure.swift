#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Timing and process helpers for the benchmark.
enum Measure {
    /// The median of `values`.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// What one child process took.
    struct Run {
        var seconds: Double
        var peakResidentKiB: Int
        var status: Int32
    }

    /// Runs `arguments` (the first is a path or a name on `PATH`) with `environment`,
    /// stdout and stderr to /dev/null, and measures wall time and peak resident memory.
    static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Run {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let start = ContinuousClock.now
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { return Run(seconds: .nan, peakResidentKiB: 0, status: -1) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Run(seconds: seconds, peakResidentKiB: usage.ru_maxrss, status: exit)
    }

    /// Runs a shell command line (for the references: `cp`, `sync`, `sqlite3`, `openssl`, `zstd`).
    static func shell(_ command: String) -> Run {
        run(["/bin/sh", "-c", command])
    }

    /// Whether `tool` is on `PATH`.
    static func has(_ tool: String) -> Bool {
        shell("command -v \(tool)").status == 0
    }
}
