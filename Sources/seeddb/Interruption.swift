import Glibc
import Synchronization

/// SIGINT and SIGTERM, from the first instant of `main`: "stop now" while nothing has
/// started, "stop at the next step and undo" once a command that changes something runs.
///
/// ``install()`` is the first thing `main` does. Until a command calls
/// ``stopAtTheNextStep()``, nothing has been changed, so a signal ends the process at once
/// from the handler: `seeddb: error: interrupted; nothing was changed` on standard error,
/// exit 130 (SIGINT) or 143 (SIGTERM). After it, the handler only notes the signal: the
/// library checks ``DeployConfiguration/isInterrupted`` between the steps of a plan, and an
/// interrupted run undoes what it did and fails with `interrupted`, printed as the same
/// line with the same status. Past the install, the run finishes recording first, then
/// says it was interrupted too late to stop (``warnIfNotedTooLate()``) and exits 0.
///
/// A signal the parent set to be ignored (`seeddb … &` from a non-interactive shell,
/// `nohup`) stays ignored, as POSIX asks of programs that catch it.
enum Interruption {
    private static let received = Atomic<Int32>(0)
    /// Whether a command runs that stops at its next step (see ``stopAtTheNextStep()``).
    private static let deferred = Atomic<Bool>(false)
    /// Whether the handler's line gets a coloured label, decided at install (the handler
    /// can read nothing that may allocate).
    private static let colour = Atomic<Bool>(false)

    /// Catches SIGINT and SIGTERM from now on, unless the process inherited them ignored
    /// (and unblocks them: a parent may have started this process with them blocked).
    static func install() {
        let noColour = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        colour.store(!noColour && isatty(STDERR_FILENO) == 1, ordering: .relaxed)
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM] {
            let previous = Glibc.signal(signal, SIG_IGN)
            if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            _ = Glibc.signal(signal) { number in Interruption.handle(number) }
            sigaddset(&set, signal)
        }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// From now on a signal is only noted: the library stops at its next step and undoes
    /// (see ``DeployConfiguration/isInterrupted``). Called by the commands that change
    /// something, just before they call the library.
    static func stopAtTheNextStep() {
        deferred.store(true, ordering: .sequentiallyConsistent)
    }

    /// Says a signal noted once the command could no longer stop (the new content
    /// installed, the run finishing its record), after a command that ran to its end: a
    /// run that said nothing would look as if it ignored the signal. The exit status stays
    /// 0: what the run did is done and recorded.
    static func warnIfNotedTooLate() {
        guard let signal else { return }
        let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
        Terminal.logger.warning("interrupted (\(name)) once the run could no longer stop: it finished, and what it did is recorded")
    }

    /// The signal received, if any.
    static var signal: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// The handler: notes the signal, and ends the process at once while nothing has
    /// started (only async-signal-safe calls: `write`, `_exit`).
    private static func handle(_ number: Int32) {
        received.store(number, ordering: .sequentiallyConsistent)
        guard !deferred.load(ordering: .sequentiallyConsistent) else { return }
        let line: StaticString = colour.load(ordering: .relaxed)
            ? "seeddb: \u{1B}[1;31merror\u{1B}[0m: interrupted; nothing was changed\n"
            : "seeddb: error: interrupted; nothing was changed\n"
        _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
        _exit(128 + number)
    }
}
