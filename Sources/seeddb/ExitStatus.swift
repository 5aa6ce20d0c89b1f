import ArgumentParser
import SeedDB

/// The one table from error codes to exit statuses (sysexits.h).
enum ExitStatus {
    static func code(for code: SeedDBError.Code) -> Int32 {
        switch code {
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
func reportingErrors(cleanup: () -> Void = {}, _ body: () throws(SeedDBError) -> Void) throws {
    do {
        try body()
    } catch {
        cleanup()
        Terminal.printError(error.message)
        throw ExitCode(ExitStatus.code(for: error.code))
    }
}
