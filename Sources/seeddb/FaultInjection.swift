#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeedDB

/// A test-only hook: with `SEEDDB_TEST_KILL_AFTER=<step>` set, the process kills itself
/// with SIGKILL right after that deploy step, as a crash or power cut would stop it.
/// Step names are ``DeployStep`` raw values (`temp-created`, `copied`, `synced`, …).
enum FaultInjection {
    static let variable = "SEEDDB_TEST_KILL_AFTER"

    static func observerFromEnvironment() -> (@Sendable (DeployStep) -> Void)? {
        guard let name = ProcessInfo.processInfo.environment[variable], let target = DeployStep(rawValue: name) else {
            return nil
        }
        return { step in
            if step == target { kill(getpid(), SIGKILL) }
        }
    }
}
