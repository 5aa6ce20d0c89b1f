import Glibc
import Foundation
import SeedDB

/// Test-only hooks, for the crash and fault suites. Step names are ``DeployStep`` raw
/// values (`stage`, `check`, `withdraw`, `carry`, `keep-previous`, `install`, `record`,
/// `clean-up`).
///
/// - `SEEDDB_TEST_KILL_AFTER=<step>`: the process kills itself with SIGKILL right after
///   that step, as a crash or a power cut would stop it.
/// - `SEEDDB_TEST_STOP_AFTER=<step>`: the process stops itself (SIGSTOP) right after that
///   step, so a test can change the world (remove the seed, fill the disk) and SIGCONT it.
/// - `SEEDDB_TEST_STOP_BEFORE=<step>`: the same, right before that step starts.
enum FaultInjection {
    static let killVariable = "SEEDDB_TEST_KILL_AFTER"
    static let stopVariable = "SEEDDB_TEST_STOP_AFTER"
    static let stopBeforeVariable = "SEEDDB_TEST_STOP_BEFORE"

    /// The observer of completed steps the environment asks for, if any.
    static func observerFromEnvironment() -> (@Sendable (DeployStep) -> Void)? {
        let kill = step(killVariable)
        let stop = step(stopVariable)
        guard kill != nil || stop != nil else { return nil }
        return { step in
            if step == kill { raise(SIGKILL) }
            if step == stop { raise(SIGSTOP) }
        }
    }

    /// The observer of starting steps the environment asks for, if any.
    static func startObserverFromEnvironment() -> (@Sendable (DeployStep) -> Void)? {
        guard let stop = step(stopBeforeVariable) else { return nil }
        return { step in
            if step == stop { raise(SIGSTOP) }
        }
    }

    private static func step(_ variable: String) -> DeployStep? {
        ProcessInfo.processInfo.environment[variable].flatMap(DeployStep.init(rawValue:))
    }
}
