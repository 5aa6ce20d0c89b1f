import ArgumentParser
import SeedDB

extension SeedDBCommand {
    /// `seeddb keygen`: a minisign key pair for signing manifests.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keygen",
            abstract: "Make a key pair for signing manifests, in minisign's file formats.",
            discussion: """
            Writes the public key (ship it: --trusted-key, or /etc/seeddb/keys/<app>/ for \
            --system) and the secret key (mode 0600), encrypted with a passphrase read from \
            $SEEDDB_PASSPHRASE or asked twice on the terminal, unless --unencrypted. Never \
            overwrites a file. The keys work with minisign, and minisign's keys with seeddb.

            Example:
              seeddb keygen --public-key levels.pub --secret-key ~/.minisign/levels.key
            """)

        @Option(name: .customLong("public-key"), help: ArgumentHelp("Where to write the public key.", valueName: "file"), completion: .file())
        var publicKey: String

        @Option(name: .customLong("secret-key"), help: ArgumentHelp("Where to write the secret key.", valueName: "file"), completion: .file())
        var secretKey: String

        @Flag(name: .long, help: "Do not encrypt the secret key (for a key kept in a CI secret store or a demo).")
        var unencrypted = false

        @OptionGroup var output: OutputOptions

        func run() throws {
            let (publicPath, secretPath) = (absolute(publicKey), absolute(secretKey))
            do {
                let key = MinisignSecretKey.generate()
                let passphrase = unencrypted ? nil : try Passphrase.toCreate()
                try key.save(publicKey: publicPath, secretKey: secretPath, passphrase: passphrase)
                Printer(output).keyPair(keyID: key.keyID.description, publicKey: publicPath, secretKey: secretPath, encrypted: !unencrypted)
            } catch {
                let failure = SeedFailure(seed: nil, error: error)
                Printer(output).failed(failure)
                try failure.exit()
            }
        }
    }
}
