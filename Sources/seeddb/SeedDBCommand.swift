#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import SeedDB

/// `seeddb`: deploys versioned SQLite seed databases to their working copies.
@main
struct SeedDBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seeddb",
        abstract: "Deploy versioned SQLite seed databases safely and fast.",
        discussion: """
        Copies a read-only seed database an app ships to a writable working copy in the \
        XDG data or cache directory, on first run and whenever the version changes, and \
        remembers the deployed version in the app's settings file.

        Describe the seeds with --manifest FILE, or one seed with --app, --seed and --version.

        Exit codes: 0 success, 64 bad usage (also an empty HOME where a default needs it, \
        or a wrong passphrase), \
        65 invalid seed, failed integrity check, a signature refused or a merge refused, 66 \
        seed, manifest, key or working copy missing or unreadable, 73 cannot create the working \
        copy or settings, 74 other I/O error, 75 in use or lock wait timed out, 78 bad \
        manifest or key, or a preserved or merge table the seed lacks, 130 or 143 interrupted (SIGINT, SIGTERM; nothing was changed). A name \
        recorded for the other location, or written in another Unicode normalization than \
        a recorded one, is 64 from flags, 78 from a manifest.
        """,
        subcommands: [Deploy.self, Reseed.self, Rollback.self, Status.self, Verify.self, Conflicts.self, Paths.self, Maintain.self, Pack.self, Purge.self, Keygen.self, Sign.self]
    )

    static func main() {
        // First: Ctrl-C or SIGTERM at any moment from here on exits 130 or 143 with one line.
        Interruption.install()
        // Before any SQLite use: lets a merge run SQL on two threads (``SQLiteProcess``).
        SQLiteProcess.turnOffMemoryStatistics()
        // Past a file-size limit, fail the write with EFBIG (exit 74) instead of dying.
        signal(SIGXFSZ, SIG_IGN)
        // `seeddb --version` is answered here, not through `CommandConfiguration(version:)`
        // or a root flag: either would also claim the subcommands' own `--version STRING`
        // option (the built-in one prints the version and exits 0 whenever validation fails).
        let arguments = UsageError.joiningNegativeValues(Array(ProcessArguments.all.dropFirst()))
        if arguments == ["--version"] {
            Terminal.printOut(SeedDBVersion.current)
            return
        }
        if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
            Terminal.printOut(rootHelp())
            return
        }
        // The startup check of an app's launcher or a service: answered before the parser
        // builds its model, when it can be (everything else goes on to the parser).
        if let upToDate = UpToDateDeploy(arguments), upToDate.answer() { return }
        do {
            try UsageError.checkHelpRequest(arguments)
            try UsageError.checkRepeatedOptions(arguments)
            var command = try parseAsRoot(arguments)
            try command.run()
            Interruption.warnIfNotedTooLate()
        } catch {
            exit(reporting: error, arguments: arguments)
        }
    }

    /// Prints what `error` means and exits with its status: help and completion scripts
    /// on standard output (exit 0), everything else as one `seeddb: error: …` line on
    /// standard error (usage errors exit 64). Errors from the library
    /// are printed by ``SeedFailure/exit()`` and arrive here as an `ExitCode`.
    static func exit(reporting error: any Error, arguments: [String]) -> Never {
        if let usage = UsageError.diagnose(error, arguments: arguments) {
            Terminal.printError(usage.message)
            Glibc.exit(64)
        }
        let status = exitCode(for: error).rawValue
        let message = status == 0 ? fullMessage(for: error) : UsageError.oneLine(message(for: error))
        if status == 0 {
            if !message.isEmpty { Terminal.printOut(message) }
        } else if !message.isEmpty {
            Terminal.printError(message)
        }
        Glibc.exit(status)
    }
}

extension SeedDBCommand {
    /// The root's help, with `--version` among its options: swift-argument-parser cannot
    /// list it there without a root flag, which would also take the subcommands' own
    /// `--version STRING` (see ``main()``).
    static func rootHelp() -> String {
        var help = helpMessage()
        while help.hasSuffix("\n") { help.removeLast() }
        let helpLine = "\n  -h, --help              "
        let versionLine = "\n  --version               Show the version of seeddb."
        guard let range = help.range(of: helpLine) else { return help }
        help.replaceSubrange(range, with: versionLine + helpLine)
        return help
    }
}

/// The version `seeddb --version` prints.
enum SeedDBVersion {
    static let current = "0.1.0"
}
