import SeedDB

/// The up-to-date `deploy`, answered before swift-argument-parser builds its model (which
/// costs more than the check itself: BENCHMARKS.md).
///
/// It recognises exactly the invocations it can answer, and answers only when every seed
/// is up to date, printing what the full command prints. Anything else (another command
/// or option, an option given twice or as `--option=value`, a value that looks like an
/// option, a seed with work to do, any error) is handed to the full parser untouched, so
/// every message, exit code and help text stays the full command's. A seed the signature
/// check refuses (an unsigned manifest of a seed whose record pins a key, a lower serial)
/// is such an error: never answered "up to date", always refused by the full command.
struct UpToDateDeploy {
    /// `--manifest FILE`.
    var manifest: String?
    /// `--app`, `--seed`, `--version`, `--location` and `--name`.
    var flags: [String: String] = [:]
    /// `--system`.
    var system = false
    /// `--root DIR`.
    var root: String?
    /// `--json`.
    var json = false
    /// `--quiet` or `-q`.
    var quiet = false
    /// `--read-only`.
    var readOnly = false

    /// The options it takes a value of, and the flags it knows.
    private static let valueOptions: Set<String> = ["--manifest", "--app", "--seed", "--version", "--location", "--name", "--root"]
    private static let flagOptions: Set<String> = ["--system", "--json", "--quiet", "-q", "--read-only"]

    /// The invocation `arguments` (without the program name), when it is a `deploy` this
    /// path can answer.
    init?(_ arguments: [String]) {
        guard arguments.first == "deploy" else { return nil }
        var seen: Set<String> = []
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            guard seen.insert(word == "-q" ? "--quiet" : word).inserted else { return nil }
            if Self.flagOptions.contains(word) {
                switch word {
                case "--system": system = true
                case "--json": json = true
                case "--read-only": readOnly = true
                default: quiet = true
                }
                index += 1
                continue
            }
            guard Self.valueOptions.contains(word), index + 1 < arguments.count else { return nil }
            let value = arguments[index + 1]
            guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch word {
            case "--manifest": manifest = value
            case "--root": root = value
            default: flags[word] = value
            }
            index += 2
        }
        // The combinations the full parser accepts; it reports the others.
        guard !(json && quiet), root.map({ system && $0.hasPrefix("/") }) ?? true else { return nil }
        if manifest != nil {
            guard flags.isEmpty, !readOnly else { return nil }
        } else {
            guard flags["--app"] != nil, flags["--seed"] != nil, flags["--version"] != nil else { return nil }
        }
    }

    /// Prints the reports and returns `true` when every seed is up to date; otherwise
    /// prints nothing, changes nothing and returns `false`.
    func answer() -> Bool {
        do throws(SeedDBError) {
            let deployer = try SystemOptions.deployer(system: system, root: root, DeployConfiguration(system: system, root: root))
            let loaded = try manifest.map { (path) throws(SeedDBError) in try Manifest.load(absolute(path)) }
            let seeds = if let loaded { loaded.seeds } else { try flagSeeds() }
            guard let reports = try upToDateReports(deployer, seeds: seeds) else { return false }
            Printer(json: json, quiet: quiet).deployReports(reports, dryRun: false)
            if let loaded, let manifest {
                OrphanWarning.print(for: loaded, at: manifest, deployer: deployer, system: system, root: root)
            }
            return true
        } catch {
            return false
        }
    }

    private func upToDateReports(_ deployer: Deployer, seeds: [Seed]) throws(SeedDBError) -> [DeployReport]? {
        var reports: [DeployReport] = []
        for seed in seeds {
            guard let report = try deployer.upToDateReport(seed) else { return nil }
            reports.append(report)
        }
        return reports
    }

    private func flagSeeds() throws(SeedDBError) -> [Seed] {
        guard let app = flags["--app"], let source = flags["--seed"], let version = flags["--version"] else { return [] }
        var location = SeedLocation.data
        if let text = flags["--location"] {
            guard let parsed = SeedLocation(rawValue: text) else { throw SeedDBError(.invalidArgument, "invalid --location") }
            location = parsed
        }
        return [try Seed(
            app: AppIdentifier(app), source: readOnly ? source : absolute(source), version: SeedVersion(version), location: location,
            name: flags["--name"].map { (name) throws(SeedDBError) in try SeedName(name) }, readOnly: readOnly)]
    }
}
