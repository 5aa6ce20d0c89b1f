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
        case .untrustedSeed: return 65        // EX_DATAERR: refused by the trusted keys
        case .seedUnavailable: return 66      // EX_NOINPUT
        case .cannotCreate: return 73         // EX_CANTCREAT
        case .ioFailure: return 74            // EX_IOERR
        case .inUse: return 75                // EX_TEMPFAIL
        case .invalidManifest: return 78      // EX_CONFIG
        case .invalidConfiguration: return 78 // EX_CONFIG: a table the seed lacks
        case .mergeRefused: return 65         // EX_DATAERR: conflicts under `fail`
        }
    }
}

/// The flag that offers `remedy`, as a clause to append to an error message.
func remedyHint(_ remedy: SeedDBError.Remedy?) -> String {
    switch remedy {
    case .owner: return " or pass --owner for its owner"
    case .app: return "; give --app to create it"
    case .downgrade: return "; pass --allow-downgrade to deploy it anyway"
    case .forgetSignature: return "; pass --forget-signature to leave signing"
    case .conflicts: return "; `seeddb conflicts` lists them"
    case nil: return ""
    }
}
