import ArgumentParser
import SeedDB

/// The options that describe the seeds a command works on: a manifest, or flags for one
/// seed. Each command's group declares only the flags it uses.
protocol SeedSelection: ParsableArguments {
    /// `--manifest` and `--app`.
    var manifestOptions: ManifestOptions { get }
    /// The one seed the flags describe (called when there is no manifest, after `validate`).
    func flagSeed() throws(SeedDBError) -> Seed
}

extension SeedSelection {
    /// The seeds to work on, loading the manifest if one was given.
    func seeds() throws(SeedDBError) -> [Seed] {
        if let manifest = try manifestOptions.loadManifest() {
            return manifest.seeds
        }
        return [try flagSeed()]
    }

    /// Refuses `given` flags beside `--manifest`, and checks the one seed the flags describe.
    func validate(flags given: [(String, Bool)]) throws {
        if manifestOptions.manifest != nil {
            let extra = ([("--app", manifestOptions.app != nil)] + given).filter(\.1).map(\.0)
            guard extra.isEmpty else {
                throw ValidationError("--manifest cannot be combined with \(extra.joined(separator: ", "))")
            }
            return
        }
        do {
            _ = try flagSeed()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Runs `each` for every seed these options describe, with a deployer for `system`
    /// and `configuration`, stopping at the first failure (see ``eachSeed(fromManifest:_:_:)``).
    ///
    /// - Parameters:
    ///   - configuration: Default: the one `system` alone sets.
    ///   - trust: `--trusted-key`, whose keys are read here (a bad key file is reported
    ///     as the run's failure).
    func each<Report>(
        _ system: SystemOptions, configuration: DeployConfiguration? = nil, trust: TrustOptions? = nil,
        _ each: (Deployer, Seed) throws(SeedDBError) -> Report
    ) -> (reports: [Report], failure: SeedFailure?) {
        eachSeed(fromManifest: manifestOptions.manifest != nil, { () throws(SeedDBError) in
            var configuration = configuration ?? DeployConfiguration(system)
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

    /// Runs `body` once on every seed these options describe, as one release, with the
    /// deployer and checks of ``each(_:configuration:trust:_:)``.
    func all(
        _ system: SystemOptions, configuration: DeployConfiguration, trust: TrustOptions,
        _ body: (Deployer, [Seed]) -> (reports: [DeployReport], failure: SeedFailure?)
    ) -> (reports: [DeployReport], failure: SeedFailure?) {
        var prepared: (Deployer, [Seed])?
        let (_, failure) = each(system, configuration: configuration, trust: trust) { (deployer, seed) throws(SeedDBError) in
            prepared = (deployer, (prepared?.1 ?? []) + [seed])
        }
        if let failure { return ([], failure) }
        guard let (deployer, seeds) = prepared else { return ([], nil) }
        return body(deployer, seeds)
    }
}

/// A seed described by `--app`, `--seed` and `--version`.
private func seedFromFlags(
    _ manifestOptions: ManifestOptions, _ file: SeedFileOptions, _ workingCopy: WorkingCopyOptions, sha256: SHA256Digest? = nil, carry: CarryOptions? = nil,
    readOnly: Bool = false
) throws(SeedDBError) -> Seed {
    guard let app = manifestOptions.app, let source = file.seed, let version = file.version else {
        let missing = [("--app ID", manifestOptions.app == nil), ("--seed PATH", file.seed == nil), ("--version STRING", file.version == nil)].filter(\.1).map(\.0)
        guard missing.count < 3 else {
            throw SeedDBError(.invalidArgument, "missing --manifest FILE, or --app ID, --seed PATH and --version STRING")
        }
        throw SeedDBError(.invalidArgument, "missing \(UsageError.andList(missing)): one seed takes --app, --seed and --version (or give --manifest FILE)")
    }
    return try Seed(
        // A read-only seed is linked to as given: a relative path is refused (73), never
        // resolved against whatever directory the command ran in.
        app: app, source: readOnly ? source : absolute(source), version: version, location: workingCopy.location ?? .data,
        name: workingCopy.name, expectedSHA256: sha256, preservedTables: carry?.preserve ?? [],
        merge: readOnly ? nil : carry?.policies(for: workingCopy.location ?? .data), readOnly: readOnly)
}

/// How `deploy` and `reseed` describe the seeds: a manifest, or every flag of one seed.
struct SeedOptions: SeedSelection {
    @OptionGroup var manifestOptions: ManifestOptions
    @OptionGroup var file: SeedFileOptions
    @OptionGroup var workingCopy: WorkingCopyOptions

    @Option(name: .long, help: ArgumentHelp("The seed's expected SHA-256; a mismatch refuses the deploy.", valueName: "hex"), transform: { (text) throws(SeedDBError) in try SHA256Digest(hex: text) })
    var sha256: SHA256Digest?

    @OptionGroup var carry: CarryOptions

    @Flag(name: .customLong("read-only"), help: "Deploy the seed as a symbolic link to the seed file, with no copy; the app opens it read-only.")
    var readOnly = false

    func validate() throws {
        // A link to the seed has no copy to carry tables into or merge; taking the flags
        // silently would let the user believe they applied.
        if readOnly, let (flag, _) = carry.given.first(where: \.1) {
            throw ValidationError("--read-only deploys a link to the seed file, not a copy: \(flag) has nothing to apply to; drop one of them")
        }
        // `--merge` beside `--manifest` is a reseed's (`Deploy` refuses it).
        try validate(flags: file.given + workingCopy.given + [("--sha256", sha256 != nil), ("--read-only", readOnly)] + carry.given.filter { $0.0 != "--merge" })
    }

    func flagSeed() throws(SeedDBError) -> Seed {
        try seedFromFlags(manifestOptions, file, workingCopy, sha256: sha256, carry: carry, readOnly: readOnly)
    }
}

/// How `status`, `verify` and `paths` describe the seeds: they read the seed file and its
/// version, and carry nothing.
struct SeedFileSelection: SeedSelection {
    @OptionGroup var manifestOptions: ManifestOptions
    @OptionGroup var file: SeedFileOptions
    @OptionGroup var workingCopy: WorkingCopyOptions

    func validate() throws {
        try validate(flags: file.given + workingCopy.given)
    }

    func flagSeed() throws(SeedDBError) -> Seed {
        try seedFromFlags(manifestOptions, file, workingCopy)
    }
}

/// How `conflicts` and `maintain` describe the seeds: by working copy alone (`--app`
/// and `--name`), since they never read the seed file. `--seed` and `--version` are
/// still accepted, unlisted, for scripts that pass a deploy's flags: `--seed` then names
/// the working copy as it does for `deploy`, and `--version` is ignored.
struct WorkingCopySelection: SeedSelection {
    @OptionGroup var manifestOptions: ManifestOptions
    @OptionGroup var workingCopy: WorkingCopyNameOptions

    @Option(name: .long, help: .hidden, completion: .file())
    var seed: String?

    @Option(name: .long, help: .hidden, transform: { (text) throws(SeedDBError) in try SeedVersion(text) })
    var version: SeedVersion?

    func validate() throws {
        try validate(flags: [("--seed", seed != nil), ("--version", version != nil)] + workingCopy.given)
    }

    func flagSeed() throws(SeedDBError) -> Seed {
        try flagSeed(carrying: nil)
    }

    /// What is missing to name a working copy without a manifest, in one line.
    static func missingWorkingCopy(app: Bool, name: Bool) -> String {
        switch (app, name) {
        case (false, false): "missing --manifest FILE, or --app ID and --name FILE"
        case (false, _): "missing --app ID: a working copy takes --app and --name (or give --manifest FILE)"
        default: "missing --name FILE: a working copy takes --app and --name (or give --manifest FILE)"
        }
    }

    /// The working copy the flags name, with what a rollback carries.
    func flagSeed(carrying carry: CarryOptions?) throws(SeedDBError) -> Seed {
        var name = workingCopy.name
        if name == nil, let seed { name = try Seed.defaultName(forSource: seed) }
        guard let app = manifestOptions.app, let name else {
            throw SeedDBError(.invalidArgument, Self.missingWorkingCopy(app: manifestOptions.app != nil, name: name != nil))
        }
        return try Seed(
            app: app, workingCopy: name, location: workingCopy.location ?? .data,
            preservedTables: carry?.preserve ?? [], merge: carry?.policies(for: workingCopy.location ?? .data))
    }
}

/// How `rollback` describes the seeds: by working copy alone, with what it carries into
/// the restored content.
struct RollbackSelection: SeedSelection {
    @OptionGroup var target: WorkingCopySelection
    @OptionGroup var carry: CarryOptions

    var manifestOptions: ManifestOptions { target.manifestOptions }

    func validate() throws {
        try validate(flags: carry.given)
    }

    func flagSeed() throws(SeedDBError) -> Seed {
        try target.flagSeed(carrying: carry)
    }
}
