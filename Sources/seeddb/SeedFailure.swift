import ArgumentParser
import SeedDB

/// The error that stopped a run part-way through its seeds, and the seed it stopped at
/// (`nil` when it stopped before the first: an unreadable manifest, an unusable home).
struct SeedFailure {
    var seed: SeedName?
    var error: SeedDBError
    /// The seeds came from a manifest (see ``ExitStatus/code(for:fromManifest:)``).
    var fromManifest = false

    /// The exit status.
    var status: Int32 { ExitStatus.code(for: error.code, fromManifest: fromManifest) }

    /// The message, with the flag that offers the error's remedy.
    var message: String { error.message + remedyHint(error.remedy) }

    /// Prints the error line on standard error and exits with its status.
    func exit() throws -> Never {
        Terminal.printError(message)
        throw ExitCode(status)
    }
}
