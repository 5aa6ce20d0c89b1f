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
            Runs the scripts in order into a temporary database beside --output, sets \\
            journal_mode=DELETE, runs VACUUM and quick_check, compresses it (zstd is the \\
            recommended codec: it decompresses about 7x faster than gzip at a similar ratio), and \\
            renames it into place. With --manifest, adds or updates that seed's entry (version, \\
            sha256 of the database bytes); a new manifest needs --app. The same scripts and SQLite \\
            version give the same bytes.

            Example:
              seeddb pack Seeds/v2/levels.sql --output Seeds/v2/levels.sqlite --version 2 --manifest Seeds/v2/seeds.json
              seeddb pack schema.sql data.sql --output dist/levels.sqlite.zst --compress zstd --version 3
            """)

        @Argument(help: ArgumentHelp("SQL scripts, run in order.", valueName: "sql-file"), completion: .file())
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("The seed file to write.", valueName: "seed"))
        var output: String

        @Option(name: .long, help: ArgumentHelp("The version to record in the manifest.", valueName: "string"))
        var version: String

        @Option(name: .long, help: ArgumentHelp("A manifest to add or update this seed's entry in.", valueName: "file"), completion: .file())
        var manifest: String?

        @Option(name: .long, help: ArgumentHelp("The app id, to create a manifest that does not exist yet.", valueName: "id"))
        var app: String?

        @Option(name: .long, help: ArgumentHelp("Compress the seed: zstd or gzip (default: from --output's .zst or .gz suffix, else none).", valueName: "zstd|gzip|none"))
        var compress: SeedCompression?

        @OptionGroup var printing: OutputOptions

        func validate() throws {
            guard !scripts.isEmpty else { throw ValidationError("give at least one SQL script") }
            do {
                _ = try SeedVersion(version)
                _ = try app.map { (text) throws(SeedDBError) in try AppIdentifier(text) }
            } catch {
                throw ValidationError(error.message)
            }
            if let compress, compress != .none, SeedCompression(path: output) != compress {
                throw ValidationError("--output must end with \(compress.suffix) for --compress \(compress.rawValue)")
            }
        }

        func run() throws {
            try reportingErrors { () throws(SeedDBError) in
                let output = absolute(self.output)
                let app = try app.map { (text) throws(SeedDBError) in try AppIdentifier(text) }
                if let manifest { try ManifestEditor.requireEditable(absolute(manifest), app: app) }
                let report = try SeedPacker.pack(scripts: scripts.map(absolute), output: output, compression: compress ?? SeedCompression(path: output))
                if let manifest {
                    try ManifestEditor.record(seed: output, version: SeedVersion(version), sha256: report.sha256, in: absolute(manifest), app: app)
                }
                Printer(printing).packReport(report, version: version)
            }
        }
    }

    /// `seeddb purge`: removes everything SeedDB keeps for an app's seeds.
    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Remove working copies, their sidecars, previous generations, locks and settings.",
            discussion: """
            For a package's postrm purge, when the seeds themselves are already gone: give the \\
            app and the working-copy names (or a manifest, if it still exists). The settings file \\
            is removed once it holds nothing else, and the app's directories once they are empty.

            Example:
              seeddb purge --system --app com.example.levels --name levels.sqlite
            """)

        @Option(name: .long, help: ArgumentHelp("A JSON manifest listing the app's seeds.", valueName: "file"), completion: .file())
        var manifest: String?

        @Option(name: .long, help: ArgumentHelp("The app identifier.", valueName: "id"))
        var app: String?

        @Option(name: .long, help: ArgumentHelp("A working-copy file name to purge (repeatable).", valueName: "file"))
        var name: [String] = []

        @Option(name: .long, help: ArgumentHelp("Where the working copies live: data or cache.", valueName: "data|cache"))
        var location: SeedLocation = .data

        @OptionGroup var system: SystemOptions
        @OptionGroup var wait: WaitOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if manifest != nil {
                guard app == nil, name.isEmpty else { throw ValidationError("--manifest cannot be combined with --app or --name") }
                return
            }
            guard app != nil, !name.isEmpty else { throw ValidationError("give --manifest FILE, or --app ID and --name FILE") }
            do {
                _ = try targets()
            } catch {
                throw ValidationError(error.message)
            }
        }

        private func targets() throws(SeedDBError) -> [(AppIdentifier, SeedName, SeedLocation)] {
            if let manifest {
                return try Manifest.load(absolute(manifest)).seeds.map { ($0.app, $0.name, $0.location) }
            }
            let app = try AppIdentifier(app ?? "")
            return try name.map { (text) throws(SeedDBError) in (app, try SeedName(text), location) }
        }

        func run() throws {
            try reportingErrors { () throws(SeedDBError) in
                let deployer = try system.deployer(wait.configuration)
                let reports = try targets().map { (target) throws(SeedDBError) in try deployer.purge(app: target.0, name: target.1, location: target.2) }
                Printer(output).purgeReports(reports)
            }
        }
    }
}

extension SeedCompression: ExpressibleByArgument {}
extension SeedLocation: ExpressibleByArgument {}

/// `path` made absolute against the current directory.
func absolute(_ path: String) -> String {
    guard !path.isEmpty, !path.hasPrefix("/") else { return path }
    return FileManager.default.currentDirectoryPath + "/" + path
}
