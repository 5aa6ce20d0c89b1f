import ArgumentParser
import Foundation
import SeedDB

extension SeedDBCommand {
    /// `seeddb pack`: builds a seed from SQL scripts.
    struct Pack: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pack",
            abstract: "Build a seed database from SQL scripts, optionally compressed, and record it in a manifest.",
            discussion: """
            Runs the scripts in order into a temporary database beside --output (creating \
            its directory if needed), sets journal_mode=DELETE, runs VACUUM and quick_check, \
            compresses it (zstd is the recommended codec: it decompresses about 7x faster than \
            gzip at a similar ratio), and renames it into place. With --manifest, adds or \
            updates that seed's entry (version, sha256 of the database bytes, and --location); \
            a new manifest needs --app. A pack that fails leaves nothing behind: no output, no \
            directory it created, the manifest and its signature as they were. With --sign, \
            signs the manifest written (as seeddb sign does); \
            --serial sets its release number. The same scripts and SQLite version give the \
            same bytes.

            Example:
              seeddb pack v2.sql --output levels.sqlite --version 2 --manifest seeds.json
              seeddb pack schema.sql data.sql --output levels.sqlite.zst --version 3
              seeddb pack v3.sql --output v3.db --version 3 --manifest m.json --sign k.key
            """)

        @Argument(help: ArgumentHelp("SQL scripts, run in order.", valueName: "sql-file"), completion: .file())
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("The seed file to write (not one of the scripts).", valueName: "seed"))
        var output: String

        @Option(name: .long, help: ArgumentHelp("The version to record in the manifest.", valueName: "string"), transform: { (text) throws(SeedDBError) in try SeedVersion(text) })
        var version: SeedVersion

        @OptionGroup var manifestOptions: ManifestOptions

        @Option(name: .long, help: ArgumentHelp("The manifest entry's location: data (the default, no key written) or cache.", valueName: "data|cache"))
        var location: SeedLocation?

        @Option(name: .long, help: ArgumentHelp("Compress the seed: zstd or gzip (default: from --output's .zst or .gz suffix, else none).", valueName: "zstd|gzip|none"))
        var compress: SeedCompression?

        @Option(name: .long, help: ArgumentHelp("Set the manifest's serial, the release number a signed manifest carries.", valueName: "n"))
        var serial: UInt64?

        @Option(name: .long, help: ArgumentHelp("Sign the manifest written with this secret key (MANIFEST.minisig; see sign).", valueName: "key-file"), completion: .file())
        var sign: String?

        @OptionGroup var printing: OutputOptions

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SQL script") }
            if manifestOptions.manifest == nil {
                if sign != nil { throw ValidationError("--sign signs the manifest: give --manifest") }
                if serial != nil { throw ValidationError("--serial is the manifest's: give --manifest") }
                if location != nil { throw ValidationError("--location is the manifest entry's: give --manifest") }
            }
            let suffix = SeedCompression(path: output)
            if let compress, compress != suffix {
                throw ValidationError(compress == .none
                    ? "--compress none cannot write --output \(output): its \(suffix.suffix) suffix promises \(suffix.rawValue); drop the suffix or the option"
                    : "--output must end with \(compress.suffix) for --compress \(compress.rawValue)")
            }
        }

        func run() throws {
            let output = absolute(self.output)
            let result: Result<SeedPacker.Report, SeedDBError> = Result { () throws(SeedDBError) in
                var editor = try manifestOptions.manifest.map { (path) throws(SeedDBError) in
                    try ManifestEditor(editing: absolute(path), app: manifestOptions.app)
                }
                editor?.serial = serial
                // The key is opened (and its passphrase asked) before anything is built.
                let key = try sign.map { (path) throws(SeedDBError) in
                    try MinisignSecretKey.load(absolute(path)) { () throws(SeedDBError) in try Passphrase.toOpen(path) }
                }
                let pack = { () throws(SeedDBError) -> SeedPacker.Report in
                    // All or nothing: the manifest and its signature are written before the
                    // seed is renamed into place, and put back if anything fails.
                    try SeedPacker.pack(scripts: scripts.map(absolute), output: output, compression: compress ?? SeedCompression(path: output)) { (report) throws(SeedDBError) in
                        try editor?.record(seed: output, version: version, sha256: report.sha256, location: location)
                        if let key, let editor, try ManifestSigner.sign(editor.path, with: key).manifest.serial == nil {
                            Terminal.logger.warning("\(editor.path) has no \"serial\": it is signed as serial 0; give --serial N and raise it with each release")
                        }
                    }
                }
                guard let editor else { return try pack() }
                return try editor.restoringOnFailure(pack)
            }
            switch result {
            case .success(let report):
                Printer(printing).packReport(report, version: version.rawValue)
            case .failure(let error):
                let failure = SeedFailure(seed: nil, error: error)
                Printer(printing).packReport(nil, version: version.rawValue, failure: failure)
                try failure.exit()
            }
        }
    }

    /// `seeddb purge`: removes everything SeedDB keeps for an app's seeds.
    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Remove working copies, their sidecars, previous generations, locks and settings.",
            discussion: """
            For a package's postrm purge, when the seeds themselves are already gone: give the \
            app and the working-copy names (or a manifest, if it still exists). The settings file \
            is removed once it holds nothing else, and the app's directories once they are empty. \
            With --orphans, purges instead the working copies recorded for the manifest's app that \
            the manifest no longer lists (a renamed seed file), and leaves its seeds alone.

            Example:
              seeddb purge --system --app com.example.levels --name levels.sqlite
              seeddb purge --orphans --manifest /usr/share/levels/seeds.json --dry-run
            """)

        @OptionGroup var manifestOptions: ManifestOptions

        @Option(name: .long, help: ArgumentHelp("A working-copy file name to purge (repeatable).", valueName: "file"), transform: { (text) throws(SeedDBError) in try SeedName(text) })
        var name: [SeedName] = []

        @Option(name: .long, help: ArgumentHelp("Where the working copies live: data or cache.", valueName: "data|cache"))
        var location: SeedLocation = .data

        @OptionGroup var system: SystemOptions
        @OptionGroup var ownership: OwnershipOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        @Flag(name: .long, help: "Say what would be removed, and remove nothing.")
        var dryRun = false

        @Flag(name: .long, help: "Purge what is recorded for the manifest's app but no longer in it (with --manifest).")
        var orphans = false

        func validate() throws {
            if orphans, manifestOptions.manifest == nil {
                throw ValidationError("--orphans goes with --manifest FILE")
            }
            if manifestOptions.manifest != nil {
                guard manifestOptions.app == nil, name.isEmpty else { throw ValidationError("--manifest cannot be combined with --app or --name") }
                return
            }
            guard manifestOptions.app != nil, !name.isEmpty else { throw ValidationError("give --manifest FILE, or --app ID and --name FILE") }
        }

        /// What to purge: the manifest's seeds (loaded once) or, with `--orphans`, what its
        /// app records that it no longer lists; or the names given for the app, each once.
        private func targets(_ deployer: Deployer) throws(SeedDBError) -> [(AppIdentifier, SeedName, SeedLocation)] {
            if let manifest = try manifestOptions.loadManifest() {
                if orphans { return try deployer.orphans(of: manifest).map { (manifest.app, $0.name, $0.location) } }
                return manifest.seeds.map { ($0.app, $0.name, $0.location) }
            }
            guard let app = manifestOptions.app else { return [] }
            var named: Set<SeedName> = []
            return name.filter { named.insert($0).inserted }.map { (app, $0, location) }
        }

        func run() throws {
            Interruption.install()
            let (reports, failure) = eachItem({ () throws(SeedDBError) in
                let deployer = try system.deployer(DeployConfiguration(system, ownership: ownership, wait: wait))
                return (deployer, try targets(deployer))
            }, name: \.1, { (deployer, target) throws(SeedDBError) in try deployer.purge(app: target.0, name: target.1, location: target.2, dryRun: dryRun) })
            Printer(output).purgeReports(reports, dryRun: dryRun, failure: failure)
            try failure?.exit()
        }
    }
}
