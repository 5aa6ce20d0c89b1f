#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeedDB

/// Test-only hooks, for the crash and fault suites. Step names are ``DeployStep`` raw
/// values (`temp-created`, `copied`, `synced`, `withdrawn`, `sidecars-removed`, `renamed`,
/// `directory-synced`, `recorded`).
///
/// - `SEEDDB_TEST_KILL_AFTER=<step>`: the process kills itself with SIGKILL right after
///   that step, as a crash or a power cut would stop it.
/// - `SEEDDB_TEST_STOP_AFTER=<step>`: the process stops itself (SIGSTOP) right after that
///   step, so a test can change the world (remove the seed, fill the disk) and SIGCONT it.
enum FaultInjection {
    static let killVariable = "SEEDDB_TEST_KILL_AFTER"
    static let stopVariable = "SEEDDB_TEST_STOP_AFTER"

    static func observerFromEnvironment() -> (@Sendable (DeployStep) -> Void)? {
        let environment = ProcessInfo.processInfo.environment
        let kill = environment[killVariable].flatMap(DeployStep.init(rawValue:))
        let stop = environment[stopVariable].flatMap(DeployStep.init(rawValue:))
        guard kill != nil || stop != nil else { return nil }
        return { step in
            if step == kill { raise(SIGKILL) }
            if step == stop { raise(SIGSTOP) }
        }
    }
}
