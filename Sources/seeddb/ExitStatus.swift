import ArgumentParser
import SeedDB

/// The one table from error codes to exit statuses (sysexits.h).
enum ExitStatus {
    /// - Parameter fromManifest: The seeds came from a manifest: a seed that clashes is a
    ///   configuration error (78) there, a usage error (64) on the command line.
    static func code(for code: SeedDBError.Code, fromManifest: Bool = false) -> Int32 {
        switch code {
        case .conflictingSeed: return fromManifest ? 78 : 64
        case .interrupted: return 128 + (Interruption.signal ?? 2)  // 130 (SIGINT) or 143 (SIGTERM)
        case .invalidArgument: return 64      // EX_USAGE
        case .invalidSeed: return 65          // EX_DATAERR
        case .corruptWorkingCopy: return 65   // EX_DATAERR
        case .seedUnavailable: return 66      // EX_NOINPUT
        case .cannotCreate: return 73         // EX_CANTCREAT
        case .ioFailure: return 74            // EX_IOERR
        case .inUse: return 75                // EX_TEMPFAIL
        case .invalidManifest: return 78      // EX_CONFIG
        }
    }
}

/// Runs a command's library work, turning a ``SeedDBError`` into one line on standard
/// error and its exit status.
///
/// - Parameter cleanup: Runs before the error is printed (clears a progress bar).
func reportingErrors(fromManifest: Bool = false, cleanup: () -> Void = {}, _ body: () throws(SeedDBError) -> Void) throws {
    do {
        try body()
    } catch {
        cleanup()
        Terminal.printError(error.message + remedyHint(error.remedy))
        throw ExitCode(ExitStatus.code(for: error.code, fromManifest: fromManifest))
    }
}

/// The flag that offers `remedy`, as a clause to append to an error message.
func remedyHint(_ remedy: SeedDBError.Remedy?) -> String {
    switch remedy {
    case .owner: return " or pass --owner for its owner"
    case .app: return "; give --app to create it"
    case nil: return ""
    }
}
