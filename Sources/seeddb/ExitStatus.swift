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
        }
    }
}

/// The flag that offers `remedy`, as a clause to append to an error message.
func remedyHint(_ remedy: SeedDBError.Remedy?) -> String {
    switch remedy {
    case .owner: return " or pass --owner for its owner"
    case .app: return "; give --app to create it"
    case .downgrade: return "; pass --allow-downgrade to deploy it anyway"
    case nil: return ""
    }
}

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

/// Prepares a deployer and the seeds, then runs `each` on the seeds in order until one
/// fails: the reports of the seeds done, and the failure if there was one. The command
/// prints both (with `--json`, in one object), then exits with the failure's status.
///
/// - Parameter fromManifest: The seeds come from a manifest.
func eachSeed<Report>(
    fromManifest: Bool = false,
    _ prepare: () throws(SeedDBError) -> (Deployer, [Seed]),
    _ each: (Deployer, Seed) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    eachItem(fromManifest: fromManifest, prepare, name: \.name, each)
}

/// ``eachSeed(fromManifest:_:_:)`` for items that are not whole seeds (`purge`'s app
/// and names).
func eachItem<Item, Report>(
    fromManifest: Bool = false,
    _ prepare: () throws(SeedDBError) -> (Deployer, [Item]),
    name: (Item) -> SeedName,
    _ each: (Deployer, Item) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    let deployer: Deployer
    let items: [Item]
    do {
        (deployer, items) = try prepare()
    } catch {
        return ([], SeedFailure(seed: nil, error: error, fromManifest: fromManifest))
    }
    var reports: [Report] = []
    for item in items {
        do {
            reports.append(try each(deployer, item))
        } catch {
            return (reports, SeedFailure(seed: name(item), error: error, fromManifest: fromManifest))
        }
    }
    return (reports, nil)
}
