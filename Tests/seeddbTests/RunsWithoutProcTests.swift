import Foundation
import Testing

/// A package installed into a chroot, or with `dpkg --root`, may run its scripts where
/// /proc is not mounted. Swift's `CommandLine.arguments` reads the arguments from /proc on
/// Linux and found none there: every command printed the top-level help and exited 0, so a
/// deploy that never ran was reported a success. And the directories a first deploy makes
/// were given their mode through /proc (glibc's `fchmodat` with `AT_SYMLINK_NOFOLLOW`), so
/// the deploy itself failed (74).
@Suite struct RunsWithoutProcTests {
    let cli = CLIHarness()

    /// Runs `commands` (each a line of shell, `$B` the binary) in a mount namespace of their
    /// own, where /proc is unmounted first.
    func withoutProc(_ commands: String) throws -> CLIHarness.Result {
        try cli.shell("""
            unshare -m sh -c '
            umount -l /proc || exit 99
            test -e /proc/self || echo "no /proc"
            B="\(CLIHarness.binary)"
            \(commands)
            '
            """)
    }

    @Test(.enabled(if: getuid() == 0, "needs root for a mount namespace"))
    func everyCommandTakesItsArgumentsWhereProcIsNotMounted() throws {
        let flags = cli.seedFlags(1).joined(separator: " ")
        let run = try withoutProc("""
            "$B" --version; echo "status $?"
            "$B" deploy \(flags); echo "status $?"
            "$B" status --json \(flags); echo "status $?"
            "$B" deploy --app; echo "status $?"
            """)
        #expect(run.stdout.hasPrefix("no /proc\n"), "\(run.stdout) \(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "\(run.stdout)")
        #expect(lines.dropFirst().first?.first?.isNumber == true && lines.dropFirst(2).first == "status 0", "--version answers with the version: \(run.stdout)")
        #expect(lines.dropFirst(3).first?.hasPrefix("levels.sqlite: installed 1 by swap") == true && lines.dropFirst(4).first == "status 0", "\(run.stdout) \(run.stderr)")
        #expect(lines.dropFirst(5).first?.contains(#""state":"up-to-date""#) == true, "\(run.stdout)")
        #expect(lines.last == "status 64", "a usage error is one: \(run.stdout)")
        #expect(run.stderr.hasPrefix("seeddb: error: "), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.contentFile), "the deploy ran")
    }
}
