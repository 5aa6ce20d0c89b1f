import Foundation
import Testing

/// The kill matrix: a command killed by strace at one of its mutating system calls
/// (`strace -e inject=SYSCALL:signal=KILL:when=N`), for every such call in turn, then run
/// again, as a package's post-install script would be; what the rerun leaves is checked.
/// The suites that use it say which commands and what must hold after the rerun.
enum SyscallKillMatrix {
    /// The system calls killed at, each with the names the kernel may know it by.
    static let syscalls: [(name: String, variants: [String])] = [
        ("rename", ["rename", "renameat", "renameat2"]),
        ("fsync", ["fsync", "fdatasync"]),
        ("unlink", ["unlink", "unlinkat"]),
        ("symlink", ["symlink", "symlinkat"]),
        ("link", ["link", "linkat"]),
        ("write", ["write", "pwrite64"]),
    ]

    /// Runs `seeddb arguments` in `cli` under strace, which traces the calls of
    /// ``syscalls``; with `kill`, the `when`-th call of that system call sends the process
    /// `signal` (`KILL` by default). Returns the result and the trace's lines.
    static func traced(_ cli: CLIHarness, _ arguments: [String], kill: (name: String, when: Int)? = nil, signal: String = "KILL") throws -> (CLIHarness.Result, [String]) {
        let output = cli.root + "/trace-\(UUID().uuidString).txt"
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let names = syscalls.flatMap(\.variants).joined(separator: ",")
        var options = "-f -qq -o '\(output)' -e trace=\(names)"
        if let kill {
            let variants = syscalls.first { $0.name == kill.name }!.variants.joined(separator: ",")
            options += " -e inject=\(variants):signal=\(signal):when=\(kill.when)"
        }
        let result = try cli.shell("exec \(DurabilityOrderTests.strace!) \(options) '\(CLIHarness.binary)' \(quoted)")
        let lines = String(decoding: cli.bytes(output) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
        try? FileManager.default.removeItem(atPath: output)
        return (result, lines)
    }

    /// The trials of one system call: how many runs were killed there, how many the kill
    /// took (the first run died of `SIGKILL`: strace ends itself with the signal that
    /// ended the traced command), and how many reruns left a problem.
    struct Tally {
        var trials = 0
        var killed = 0
        var failures = 0
    }

    /// Kills `command` at every call of each of the system calls `names` (all of
    /// ``syscalls`` by default), each time on a fresh clone of `template`, and runs it
    /// again there (or `rerun`, another command: the app's start); `problems` says what is
    /// wrong with the state the rerun left, and each
    /// problem found is an issue, named by `label`, the system call and the call's number.
    /// The calls are counted in a run of `command` on a clone that nothing kills.
    /// Returns the tallies by system call, in the order of `names`.
    static func killAtEveryCall(
        of command: (CLIHarness) -> [String], from template: CLIHarness, label: String,
        syscalls names: [String] = syscalls.map(\.name), rerun: ((CLIHarness) -> [String])? = nil,
        problems: (CLIHarness, CLIHarness.Result) -> [String]
    ) throws -> [(name: String, tally: Tally)] {
        let counting = try template.clone()
        let (clean, lines) = try traced(counting, command(counting))
        #expect(clean.status == 0, "\(label) under strace: \(clean.stderr)")
        var tallies: [(name: String, tally: Tally)] = []
        for name in names {
            let variants = syscalls.first { $0.name == name }!.variants
            let calls = lines.filter { line in
                let call = line.drop { $0.isNumber || $0 == " " }
                return variants.contains { call.hasPrefix($0 + "(") }
            }.count
            var tally = Tally()
            for when in stride(from: 1, through: calls, by: 1) {
                let cli = try template.clone()
                let (first, _) = try traced(cli, command(cli), kill: (name, when))
                tally.trials += 1
                if first.killedBy == SIGKILL { tally.killed += 1 }
                let rerun = try cli.run(rerun.map { $0(cli) } ?? command(cli))
                let found = problems(cli, rerun)
                if !found.isEmpty {
                    tally.failures += 1
                    Issue.record("\(label), killed at \(name) #\(when) (status \(first.status)): \(found.joined(separator: "; "))")
                }
            }
            tallies.append((name, tally))
        }
        return tallies
    }

    /// The tallies of all the system calls together.
    static func total(_ tallies: [(name: String, tally: Tally)]) -> Tally {
        tallies.reduce(into: Tally()) { sum, each in
            sum.trials += each.tally.trials
            sum.killed += each.tally.killed
            sum.failures += each.tally.failures
        }
    }
}
