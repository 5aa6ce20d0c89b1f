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

/// The error that stopped a run part-way through its seeds, and the seed it stopped at
/// (`nil` when it stopped before the first: an unreadable manifest, an unusable home).
struct SeedFailure {
    var seed: SeedName?
    var error: SeedDBError

    /// Prints the error line on standard error and exits with its status.
    func exit() throws -> Never {
        Terminal.printError(error.message)
        throw ExitCode(ExitStatus.code(for: error.code))
    }
}

/// Prepares a deployer and the seeds, then runs `each` on the seeds in order until one
/// fails: the reports of the seeds done, and the failure if there was one. The command
/// prints both (with `--json`, in one object), then exits with the failure's status.
func eachSeed<Report>(
    _ prepare: () throws(SeedDBError) -> (Deployer, [Seed]),
    _ each: (Deployer, Seed) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    eachItem(prepare, name: \.name, each)
}

/// ``eachSeed(_:_:)`` for items that are not whole seeds (`purge`'s app and names).
func eachItem<Item, Report>(
    _ prepare: () throws(SeedDBError) -> (Deployer, [Item]),
    name: (Item) -> SeedName,
    _ each: (Deployer, Item) throws(SeedDBError) -> Report
) -> (reports: [Report], failure: SeedFailure?) {
    let deployer: Deployer
    let items: [Item]
    do {
        (deployer, items) = try prepare()
    } catch {
        return ([], SeedFailure(seed: nil, error: error))
    }
    var reports: [Report] = []
    for item in items {
        do {
            reports.append(try each(deployer, item))
        } catch {
            return (reports, SeedFailure(seed: name(item), error: error))
        }
    }
    return (reports, nil)
}
