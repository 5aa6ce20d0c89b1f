import ArgumentParser
import Foundation
import SeedDB

/// `--manifest` and `--app`, declared once for every command that takes them.
struct ManifestOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A JSON manifest listing the app's seeds.", valueName: "file"), completion: .file())
    var manifest: String?

    @Option(name: .long, help: ArgumentHelp("The app identifier: 1-128 of [A-Za-z0-9._-], not starting with '.'.", valueName: "id"), transform: { (text) throws(SeedDBError) in try AppIdentifier(text) })
    var app: AppIdentifier?

    /// The manifest, loaded (once per run) from `--manifest`'s path.
    func loadManifest() throws(SeedDBError) -> Manifest? {
        try manifest.map { (path) throws(SeedDBError) in try Manifest.load(absolute(path)) }
    }
}

/// How the seeds to work on are described: a manifest, or flags for one seed.
struct SeedOptions: ParsableArguments {
    @OptionGroup var manifestOptions: ManifestOptions

    @Option(name: .long, help: ArgumentHelp("The seed database the app ships.", valueName: "path"), completion: .file())
    var seed: String?

    @Option(name: .long, help: ArgumentHelp("The version the app ships now; any change redeploys. auto: the seed's SHA-256.", valueName: "string"), transform: { (text) throws(SeedDBError) in try SeedVersion(text) })
    var version: SeedVersion?

    @Option(name: .long, help: ArgumentHelp("Where the working copy lives: data (user data, the default) or cache (regenerable).", valueName: "data|cache"))
    var location: SeedLocation?

    @Option(name: .long, help: ArgumentHelp("The working copy's file name (default: the seed's file name).", valueName: "file"), transform: { (text) throws(SeedDBError) in try SeedName(text) })
    var name: SeedName?

    @Option(name: .long, help: ArgumentHelp("The seed's expected SHA-256; a mismatch refuses the deploy.", valueName: "hex"), transform: { (text) throws(SeedDBError) in try SHA256Digest(hex: text) })
    var sha256: SHA256Digest?

    @Option(name: .long, help: ArgumentHelp("A table holding the user's own data, carried into each new copy (repeatable).", valueName: "table"))
    var preserve: [String] = []

    @Option(name: .long, help: ArgumentHelp("Merge the user's edits of the seed's rows into each new seed (default: off).", valueName: "policy"))
    var merge: MergePolicy?

    @Option(name: .customLong("merge-table"), help: ArgumentHelp("One table's merge policy, overriding --merge (repeatable).", valueName: "table=policy"), transform: TableMergePolicy.init(parsing:))
    var mergeTable: [TableMergePolicy] = []

    mutating func validate() throws {
        let app = manifestOptions.app
        if manifestOptions.manifest != nil {
            let extra = [("--app", app != nil), ("--seed", seed != nil), ("--version", version != nil), ("--location", location != nil), ("--name", name != nil), ("--sha256", sha256 != nil), ("--preserve", !preserve.isEmpty),
                         ("--merge", merge != nil), ("--merge-table", !mergeTable.isEmpty)]
                .filter(\.1).map(\.0)
            guard extra.isEmpty else {
                throw ValidationError("--manifest cannot be combined with \(extra.joined(separator: ", "))")
            }
            return
        }
        let missing = [("--app", app == nil), ("--seed", seed == nil), ("--version", version == nil)].filter(\.1).map(\.0)
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
        guard let app = manifestOptions.app, let seed, let version else {
            throw SeedDBError(.invalidArgument, "give --manifest FILE, or --app, --seed and --version")
        }
        return try Seed(
            app: app, source: absolute(seed), version: version, location: location ?? .data,
            name: name, expectedSHA256: sha256, preservedTables: preserve,
            merge: MergePolicies(default: merge ?? .off, tables: Dictionary(mergeTable.map { ($0.table, $0.policy) }) { $1 }))
    }

    /// The seeds to work on, loading the manifest if one was given.
    func seeds() throws(SeedDBError) -> [Seed] {
        if let manifest = try manifestOptions.loadManifest() {
            return manifest.seeds
        }
        return [try flagSeed()]
    }
}

extension SeedOptions {
    /// Runs `each` for every seed these options describe, with a deployer for `system`
    /// and `configuration`, stopping at the first failure (see ``eachSeed(fromManifest:_:_:)``).
    ///
    /// - Parameter trust: `--trusted-key`, whose keys are read here (a bad key file is
    ///   reported as the run's failure).
    func each<Report>(
        _ system: SystemOptions, configuration: DeployConfiguration = DeployConfiguration(), trust: TrustOptions? = nil,
        _ each: (Deployer, Seed) throws(SeedDBError) -> Report
    ) -> (reports: [Report], failure: SeedFailure?) {
        eachSeed(fromManifest: manifestOptions.manifest != nil, { () throws(SeedDBError) in
            var configuration = configuration
            configuration.trustedKeys += try trust?.load() ?? []
            let deployer = try system.deployer(configuration)
            do throws(SeedDBError) {
                return (deployer, try seeds())
            } catch let error where error.code == .invalidManifest && trust != nil {
                // Bytes no trusted key signed are refused as such (65), even unreadable ones.
                if let manifest = manifestOptions.manifest { try deployer.requireSignatureOfUnreadableManifest(absolute(manifest)) }
                throw error
            }
        }, each)
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

/// Where working copies and settings live (the user's XDG directories, or the system's)
/// and who owns them.
struct SystemOptions: ParsableArguments {
    @Flag(name: .long, help: "Use system locations (/var/lib/<app>, /var/cache/<app>) for services and post-install scripts.")
    var system = false

    @Option(name: .long, help: ArgumentHelp("With --system: a prefix for every system path, like dpkg's --instdir.", valueName: "dir"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Owner of the working copy, its directory, lock and settings (a service account).", valueName: "user[:group]"), transform: { (text) throws(SeedDBError) in try FileOwner(parsing: text) })
    var owner: FileOwner?

    @Option(name: .long, help: ArgumentHelp("Mode of the working copy, in octal, at most 0755 and not group- or world-writable (default 0644 less the umask).", valueName: "octal"), transform: SystemOptions.parseMode)
    var mode: UInt16?

    func validate() throws {
        if root != nil && !system {
            throw ValidationError("--root goes with --system")
        }
        if let root, !root.hasPrefix("/") {
            throw ValidationError("--root must be an absolute path")
        }
    }

    /// The system's directory of trusted keys, `/etc/seeddb/keys`, under `root`.
    static func keysDirectory(root: String?) -> String {
        let prefix = root.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        return prefix + "/etc/seeddb/keys"
    }

    /// An octal mode for a working copy: no set-id or sticky bit, not writable by group
    /// or others (a database anyone can rewrite is a database anyone can corrupt).
    static func parseMode(_ text: String) throws -> UInt16 {
        guard let mode = UInt16(text, radix: 8), mode <= 0o7777 else {
            throw ValidationError("expected an octal mode such as 0640")
        }
        guard mode & 0o7000 == 0 else {
            throw ValidationError("set-user-ID, set-group-ID and sticky bits are refused on a database")
        }
        guard mode & 0o022 == 0 else {
            throw ValidationError("a mode that lets the group or others write is refused")
        }
        return mode
    }

    /// A deployer for these locations with `configuration`, its file policy set here.
    func deployer(_ configuration: DeployConfiguration = DeployConfiguration()) throws(SeedDBError) -> Deployer {
        var configuration = configuration
        configuration.files = system ? .system : .user
        configuration.files.owner = owner
        configuration.files.workingCopyMode = mode
        guard system else { return try Deployer(configuration: configuration, logger: Terminal.logger) }
        // The trust anchors root relies on: /etc/seeddb/keys/<app>/*.pub (under --root).
        configuration.trustedKeysDirectory = Self.keysDirectory(root: root)
        return Deployer(directories: .system(root: root ?? ""), configuration: configuration, logger: Terminal.logger)
    }
}

extension MergePolicy: ExpressibleByArgument {}

/// `--merge-table TABLE=POLICY`.
struct TableMergePolicy {
    /// The table.
    var table: String
    /// Its policy.
    var policy: MergePolicy

    /// Parses `TABLE=POLICY` (the last `=` separates them, so a table name may hold one).
    init(parsing text: String) throws(SeedDBError) {
        guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
            throw SeedDBError(.invalidArgument, "invalid --merge-table \(NameRules.quoted(text)): expected TABLE=POLICY")
        }
        let name = String(text[text.index(after: equals)...])
        guard let policy = MergePolicy(rawValue: name) else {
            throw SeedDBError(.invalidArgument, "invalid --merge-table \(NameRules.quoted(text)): \(NameRules.quoted(name)) is not a merge policy (off, seed-wins, user-wins or fail)")
        }
        table = String(text[..<equals])
        self.policy = policy
    }
}
