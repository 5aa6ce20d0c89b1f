import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb sign`: signs a manifest.
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Sign a manifest with a secret key: writes MANIFEST.minisig beside it.",
            discussion: """
            The signature is minisign's (check it with minisign -Vm MANIFEST -p KEY.pub); its \
            trusted comment names the app and the manifest's serial. Every seed in the manifest \
            must have a sha256 (exit 78 otherwise): the signature covers the seeds through \
            them. Raise the manifest's "serial" with each release: a deploy refuses a lower \
            serial than it recorded. Warns (and still signs) when "expires" is past or \
            within 7 days, and when "serial" is not higher than the signature it replaces \
            says. The passphrase comes from $SEEDDB_PASSPHRASE or the terminal.

            Example:
              seeddb sign --key ~/.minisign/levels.key Seeds/v2/seeds.json
            """)

        @Argument(help: ArgumentHelp("The manifest to sign.", valueName: "manifest"), completion: .file())
        var manifest: String

        @Option(name: .long, help: ArgumentHelp("The secret key (seeddb keygen's or minisign -G's).", valueName: "file"), completion: .file())
        var key: String

        @Flag(name: .long, help: "Sign the manifest's BLAKE2b-512 (minisign's default \"ED\" form) instead of its bytes (\"Ed\").")
        var prehash = false

        @OptionGroup var output: OutputOptions

        func run() throws {
            do {
                let secret = try MinisignSecretKey.load(absolute(key)) { () throws(SeedDBError) in try Passphrase.toOpen(key) }
                let path = absolute(manifest)
                let (_, signed, written, warnings) = try ManifestSigner.sign(path, with: secret, algorithm: prehash ? .prehashed : .legacy)
                if signed.serial == nil {
                    Terminal.logger.warning("\(manifest) has no \"serial\": it is signed as serial 0, and a deploy cannot tell it from an older release; add \"serial\": N and raise it with each release")
                }
                for warning in warnings { Terminal.logger.warning("\(warning)") }
                Printer(output).signed(written, keyID: secret.keyID.description, serial: signed.serial ?? 0)
            } catch {
                let failure = SeedFailure(seed: nil, error: error)
                Printer(output).failed(failure)
                try failure.exit()
            }
        }
    }
}
