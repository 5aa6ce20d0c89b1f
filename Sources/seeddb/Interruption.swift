import Glibc
import Synchronization

/// SIGINT and SIGTERM, turned from "die now" into "stop at the next step and undo".
///
/// The library checks ``DeployConfiguration/isInterrupted`` between the steps of a plan;
/// an interrupted run undoes what it did and fails with `interrupted`, which the CLI
/// prints as one line and exits 130 (SIGINT) or 143 (SIGTERM). Past the install, the run
/// finishes recording first.
enum Interruption {
    private static let received = Atomic<Int32>(0)

    /// Catches SIGINT and SIGTERM from now on (unblocking them: a parent may have
    /// started this process with them blocked).
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM] {
            _ = Glibc.signal(signal) { number in Interruption.received.store(number, ordering: .relaxed) }
            sigaddset(&set, signal)
        }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signal received, if any.
    static var signal: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }
}
