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
              seeddb pack schema.sql data.sql --output levels.sqlite.zst
              seeddb pack v3.sql --output v3.db --version 3 --manifest m.json --sign k.key
            """)

        @Argument(help: ArgumentHelp("SQL scripts, run in order.", valueName: "sql-file"), completion: .file())
        var scripts: [String]

        @Option(name: .long, help: ArgumentHelp("The seed file to write (not one of the scripts).", valueName: "seed"))
        var output: String

        @Option(name: .long, help: ArgumentHelp("The version to record in the manifest (with --manifest, which needs it).", valueName: "string"), transform: { (text) throws(SeedDBError) in try SeedVersion(text) })
        var version: SeedVersion?

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
            if manifestOptions.manifest != nil, version == nil {
                throw ValidationError("missing --version STRING: the manifest records the seed's version")
            }
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
                        if let editor, let version { try editor.record(seed: output, version: version, sha256: report.sha256, location: location) }
                        if let key, let editor {
                            let signed = try ManifestSigner.sign(editor.path, with: key)
                            if signed.manifest.serial == nil {
                                Terminal.logger.warning("\(editor.path) has no \"serial\": it is signed as serial 0; give --serial N and raise it with each release")
                            }
                            for warning in signed.warnings { Terminal.logger.warning("\(warning)") }
                        }
                    }
                }
                guard let editor else { return try pack() }
                return try editor.restoringOnFailure(pack)
            }
            switch result {
            case .success(let report):
                Printer(printing).packReport(report, version: version?.rawValue)
            case .failure(let error):
                let failure = SeedFailure(seed: nil, error: error)
                Printer(printing).packReport(nil, version: version?.rawValue, failure: failure)
                try failure.exit()
            }
        }
    }
}
