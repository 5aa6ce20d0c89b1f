import ArgumentParser
import SeedDB

/// `--trusted-key`, for the commands that check signatures.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trusted-key"), help: ArgumentHelp("A minisign public key whose signed manifests are trusted (repeatable); then only signed seeds deploy.", valueName: "file"), completion: .file())
    var trustedKeys: [String] = []

    /// The keys, read from their files.
    /// - Throws: ``SeedDBError`` `seedUnavailable` (a file is missing), `invalidManifest`
    ///   (not a minisign public key).
    func load() throws(SeedDBError) -> [MinisignPublicKey] {
        try trustedKeys.map { (path) throws(SeedDBError) in try MinisignPublicKey.load(absolute(path)) }
    }
}
