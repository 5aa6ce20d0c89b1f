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

/// `--seed` and `--version`: the seed file a command reads, with the version it ships.
struct SeedFileOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The seed database the app ships.", valueName: "path"), completion: .file())
    var seed: String?

    @Option(name: .long, help: ArgumentHelp("The version the app ships now; any change redeploys. auto: the seed's SHA-256.", valueName: "string"), transform: { (text) throws(SeedDBError) in try SeedVersion(text) })
    var version: SeedVersion?

    /// The flags given, by name, for the refusal of flags beside `--manifest`.
    var given: [(String, Bool)] { [("--seed", seed != nil), ("--version", version != nil)] }
}

/// `--location` and `--name`: which working copy, when the seeds come from flags.
struct WorkingCopyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Where the working copy lives: data (user data, the default) or cache (regenerable).", valueName: "data|cache"))
    var location: SeedLocation?

    @Option(name: .long, help: ArgumentHelp("The working copy's file name (default: the seed's file name).", valueName: "file"), transform: { (text) throws(SeedDBError) in try SeedName(text) })
    var name: SeedName?

    /// The flags given, by name, for the refusal of flags beside `--manifest`.
    var given: [(String, Bool)] { [("--location", location != nil), ("--name", name != nil)] }
}

/// `--location` and `--name` for the commands that find a working copy without reading its
/// seed (`rollback`, `conflicts`, `maintain`): `--name` has no default there.
struct WorkingCopyNameOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Where the working copy lives: data (user data, the default) or cache (regenerable).", valueName: "data|cache"))
    var location: SeedLocation?

    @Option(name: .long, help: ArgumentHelp("The working copy's file name (with --app).", valueName: "file"), transform: { (text) throws(SeedDBError) in try SeedName(text) })
    var name: SeedName?

    /// The flags given, by name, for the refusal of flags beside `--manifest`.
    var given: [(String, Bool)] { [("--location", location != nil), ("--name", name != nil)] }
}

/// `--preserve`, `--merge` and `--merge-table`: what a replace carries from the old copy.
struct CarryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A table holding the user's own data, carried into each new copy (repeatable).", valueName: "table"))
    var preserve: [String] = []

    @Option(name: .long, help: ArgumentHelp("How the user's edits of the seed's rows meet each new seed: user-wins (the default for data), seed-wins, fail or off (the default for cache). With reseed: for this reseed only.", valueName: "policy"))
    var merge: MergePolicy?

    @Option(name: .customLong("merge-table"), help: ArgumentHelp("One table's merge policy, overriding --merge (repeatable).", valueName: "table=policy"), transform: TableMergePolicy.init(parsing:))
    var mergeTable: [TableMergePolicy] = []

    /// The flags given, by name, for the refusal of flags beside `--manifest`.
    var given: [(String, Bool)] {
        [("--preserve", !preserve.isEmpty), ("--merge", merge != nil), ("--merge-table", !mergeTable.isEmpty)]
    }

    /// Whether `--merge` or `--merge-table` was given.
    var setsMerge: Bool { merge != nil || !mergeTable.isEmpty }

    /// Refuses one table given two `--merge-table` policies (or one twice), naming both,
    /// rather than keeping the last silently.
    func validate() throws {
        var seen: [String: TableMergePolicy] = [:]
        for given in mergeTable {
            if let earlier = seen.updateValue(given, forKey: MergeNames.folded(given.table)) {
                throw ValidationError("--merge-table given twice for one table (\(NameRules.quoted(earlier.text)) and \(NameRules.quoted(given.text))); give each table once")
            }
        }
    }

    /// The merge policies these flags set for a seed in `location` (without `--merge`, the
    /// location's standard default).
    func policies(for location: SeedLocation) -> MergePolicies {
        MergePolicies(default: merge ?? MergePolicies.standard(for: location).default, tables: Dictionary(mergeTable.map { ($0.table, $0.policy) }) { $1 })
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

}

/// How `deploy`, `reseed` and `rollback` replace a working copy.
struct ReplaceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("swap (atomic rename, refused while in use), live (through SQLite, while in use) or auto (swap unless in use).", valueName: "auto|swap|live"))
    var strategy: DeployStrategy = .auto

    @Option(name: .long, help: ArgumentHelp("Check the seed before swapping it in: none, quick (quick_check) or full (integrity_check).", valueName: "none|quick|full"))
    var integrity: IntegrityLevel = .quick
}

/// An option's value that is one of a fixed list, spelled by its raw value.
///
/// The list and a value's spelling are written here, as swift-argument-parser's defaults
/// would make them, but without the key path those build at run time on every parse (a
/// generic instantiation with its conformance lookups: about 0.1 ms, 1 %, of a read-only
/// deploy's process, measured paired).
protocol RawValueArgument: ExpressibleByArgument, CaseIterable, RawRepresentable<String> {}

extension RawValueArgument {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    /// None: a value's description is its spelling.
    public static var allValueDescriptions: [String: String] { [:] }
    public var defaultValueDescription: String { rawValue }
}

extension DeployStrategy: RawValueArgument {}
extension IntegrityLevel: RawValueArgument {}
extension MaintenancePolicy: RawValueArgument {}
extension SeedCompression: RawValueArgument {}
extension SeedLocation: RawValueArgument {}

/// Where working copies and settings live: the user's XDG directories, or the system's.
struct SystemOptions: ParsableArguments {
    @Flag(name: .long, help: "Use system locations (/var/lib/<app>, /var/cache/<app>) for services and post-install scripts.")
    var system = false

    @Option(name: .long, help: ArgumentHelp("With --system: a prefix for every system path, like dpkg's --instdir.", valueName: "dir"))
    var root: String?

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

    /// A deployer for these locations with `configuration` (see
    /// ``DeployConfiguration/init(_:ownership:wait:replace:)``).
    func deployer(_ configuration: DeployConfiguration) throws(SeedDBError) -> Deployer {
        try Self.deployer(system: system, root: root, configuration)
    }

    /// A deployer for the locations `--system` and `--root` name.
    static func deployer(system: Bool, root: String?, _ configuration: DeployConfiguration) throws(SeedDBError) -> Deployer {
        guard system else { return try Deployer(configuration: configuration, logger: Terminal.logger) }
        return Deployer(directories: .system(root: root ?? ""), configuration: configuration, logger: Terminal.logger)
    }
}

/// `--owner` and `--mode`, for the commands that create or rewrite what they own.
struct OwnershipOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Owner of the working copy, its directory, lock and settings (a service account).", valueName: "user[:group]"), transform: { (text) throws(SeedDBError) in try FileOwner(parsing: text) })
    var owner: FileOwner?

    @Option(name: .long, help: ArgumentHelp("Mode of the working copy, in octal, at most 0755 and not group- or world-writable (default 0644 less the umask).", valueName: "octal"), transform: OwnershipOptions.parseMode)
    var mode: UInt16?

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
}

extension MergePolicy: RawValueArgument {}

/// `--merge-table TABLE=POLICY`.
struct TableMergePolicy {
    /// The table.
    var table: String
    /// Its policy.
    var policy: MergePolicy
    /// The text given, `TABLE=POLICY`.
    var text: String

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
        self.text = text
    }
}

/// `path` made absolute against the current directory.
func absolute(_ path: String) -> String {
    guard !path.isEmpty, !path.hasPrefix("/") else { return path }
    return FileManager.default.currentDirectoryPath + "/" + path
}
