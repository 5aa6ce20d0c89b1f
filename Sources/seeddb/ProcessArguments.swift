import CSeedDBSystem

/// The arguments `seeddb` was started with, its own name first.
///
/// Swift's `CommandLine.arguments` reads them from /proc on Linux, and finds none where
/// /proc is not mounted (a chroot, a package installed with `dpkg --root`): every command
/// would then look like a bare `seeddb`, which prints its help and exits 0, and a
/// package's script would report a deploy that never ran as a success. They are taken
/// as the C runtime passed them to `main` instead (``cseeddb_arguments()``).
enum ProcessArguments {
    /// Every argument, decoded as UTF-8 (a byte sequence that is not is repaired, as
    /// `CommandLine.arguments` repairs it).
    static var all: [String] {
        let count = Int(cseeddb_argument_count())
        guard count > 0, let arguments = cseeddb_arguments() else { return CommandLine.arguments }
        return (0..<count).map { index in arguments[index].map { String(cString: $0) } ?? "" }
    }
}
