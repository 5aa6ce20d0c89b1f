import ArgumentParser
import Foundation
import SeedDB

/// How the seeds to work on are described: a manifest, or flags for one seed.
struct SeedOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A JSON manifest listing the app's seeds.", valueName: "file"), completion: .file())
    var manifest: String?

    @Option(name: .long, help: ArgumentHelp("The app identifier: 1-128 of [A-Za-z0-9._-], not starting with '.'.", valueName: "id"))
    var app: String?

    @Option(name: .long, help: ArgumentHelp("The seed database the app ships.", valueName: "path"), completion: .file())
    var seed: String?

    @Option(name: .long, help: ArgumentHelp("The version the app ships now; any change redeploys. auto: the seed's SHA-256.", valueName: "string"))
    var version: String?

    @Option(name: .long, help: ArgumentHelp("Where the working copy lives: data (user data, the default) or cache (regenerable).", valueName: "data|cache"))
    var location: String?

    @Option(name: .long, help: ArgumentHelp("The working copy's file name (default: the seed's file name).", valueName: "file"))
    var name: String?

    @Option(name: .long, help: ArgumentHelp("The seed's expected SHA-256; a mismatch refuses the deploy.", valueName: "hex"))
    var sha256: String?

    @Option(name: .long, help: ArgumentHelp("A table holding the user's own data, carried into each new copy (repeatable).", valueName: "table"))
    var preserve: [String] = []

    mutating func validate() throws {
        if manifest != nil {
            let extra = [("--app", app), ("--seed", seed), ("--version", version), ("--location", location), ("--name", name), ("--sha256", sha256), ("--preserve", preserve.first)]
                .filter { $0.1 != nil }.map(\.0)
            guard extra.isEmpty else {
                throw ValidationError("--manifest cannot be combined with \(extra.joined(separator: ", "))")
            }
            return
        }
        let missing = [("--app", app), ("--seed", seed), ("--version", version)].filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty else {
            throw ValidationError("give --manifest FILE, or \(missing.joined(separator: ", ")) (with --app, --seed and --version)")
        }
        do {
            _ = try flagSeed()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The seed the flags describe.
    private func flagSeed() throws(SeedDBError) -> Seed {
        let location: SeedLocation
        if let text = self.location {
            guard let parsed = SeedLocation(rawValue: text) else {
                throw SeedDBError(.invalidArgument, "invalid --location \"\(text)\": expected data or cache")
            }
            location = parsed
        } else {
            location = .data
        }
        return try Seed(
            app: AppIdentifier(app ?? ""),
            source: absolute(seed ?? ""),
            version: SeedVersion(version ?? ""),
            location: location,
            name: name.map { (text) throws(SeedDBError) in try SeedName(text) },
            expectedSHA256: sha256.map { (text) throws(SeedDBError) in try SHA256Digest(hex: text) },
            preservedTables: preserve)
    }

    /// The seeds to work on, loading the manifest if one was given.
    func seeds() throws(SeedDBError) -> [Seed] {
        if let manifest {
            return try Manifest.load(absolute(manifest)).seeds
        }
        return [try flagSeed()]
    }
}

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing on success; warnings and errors still go to standard error.")
    var quiet = false

    func validate() throws {
        if json && quiet {
            throw ValidationError("--json and --quiet cannot be combined")
        }
    }
}

/// How long to wait for other processes.
struct WaitOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another deploy or for apps to release the database.", valueName: "seconds"))
    var wait: Double = 5

    func validate() throws {
        guard wait.isFinite, wait >= 0, wait <= 86_400 else {
            throw ValidationError("--wait must be a number of seconds from 0 to 86400")
        }
    }

    /// The library configuration these options set, with the test-only fault hook.
    var configuration: DeployConfiguration {
        var configuration = DeployConfiguration()
        configuration.wait = .milliseconds(Int64(wait * 1000))
        configuration.stepObserver = FaultInjection.observerFromEnvironment()
        configuration.stepStarted = FaultInjection.startObserverFromEnvironment()
        Interruption.install()
        configuration.isInterrupted = { Interruption.signal != nil }
        return configuration
    }
}

/// How `deploy`, `reseed` and `rollback` replace a working copy.
struct ReplaceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("swap (atomic rename, refused while in use), live (through SQLite, while in use) or auto (swap unless in use).", valueName: "auto|swap|live"))
    var strategy: DeployStrategy = .auto

    @Option(name: .long, help: ArgumentHelp("Keep the replaced copy as the previous generation, for rollback.", valueName: "true|false"))
    var keepPrevious = true

    @Option(name: .long, help: ArgumentHelp("Check the seed before swapping it in: none, quick (quick_check) or full (integrity_check).", valueName: "none|quick|full"))
    var integrity: IntegrityLevel = .quick

    /// `base` with these options applied.
    func applied(to base: DeployConfiguration) -> DeployConfiguration {
        var configuration = base
        configuration.strategy = strategy
        configuration.keepPrevious = keepPrevious
        configuration.integrity = integrity
        return configuration
    }
}

extension DeployStrategy: ExpressibleByArgument {}
extension IntegrityLevel: ExpressibleByArgument {}
extension MaintenancePolicy: ExpressibleByArgument {}

/// Where working copies and settings live: the user's XDG directories, or the system's.
struct SystemOptions: ParsableArguments {
    @Flag(name: .long, help: "Use system locations (/var/lib/<app>, /var/cache/<app>) for services and post-install scripts.")
    var system = false

    @Option(name: .long, help: ArgumentHelp("With --system: a prefix for every system path, like dpkg's --instdir.", valueName: "dir"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Owner of the working copy, its directory, lock and settings (a service account).", valueName: "user[:group]"))
    var owner: String?

    @Option(name: .long, help: ArgumentHelp("Mode of the working copy, in octal (default 0644 less the umask).", valueName: "octal"))
    var mode: String?

    func validate() throws {
        if root != nil && !system {
            throw ValidationError("--root goes with --system")
        }
        if let root, !root.hasPrefix("/") {
            throw ValidationError("--root must be an absolute path")
        }
        if let mode, UInt16(mode, radix: 8).map({ $0 > 0o7777 }) ?? true {
            throw ValidationError("--mode must be an octal mode such as 0640")
        }
        do {
            _ = try owner.map { (text) throws(SeedDBError) in try FileOwner(parsing: text) }
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// A deployer for these locations with `configuration`, its file policy set here.
    func deployer(_ configuration: DeployConfiguration = DeployConfiguration()) throws(SeedDBError) -> Deployer {
        var configuration = configuration
        configuration.files = system ? .system : .user
        configuration.files.owner = try owner.map { (text) throws(SeedDBError) in try FileOwner(parsing: text) }
        configuration.files.workingCopyMode = mode.flatMap { UInt16($0, radix: 8) }
        guard system else { return try Deployer(configuration: configuration, logger: Terminal.logger) }
        return Deployer(directories: .system(root: root ?? ""), configuration: configuration, logger: Terminal.logger)
    }
}
