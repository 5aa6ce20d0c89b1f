/// Who signed the manifest a seed was deployed from, and which release of it: what the
/// settings entry records and `seeddb status` shows.
///
/// Recorded with a public key, it is the seed's *pin* (trust on first use, as SSH's
/// `known_hosts`): from then on a deploy of the seed takes only a manifest that key (or a
/// key trusted by configuration) signed, with a serial no lower than ``serial``.
public struct SeedSignature: Hashable, Sendable {
    /// The signer's minisign key id, as minisign prints it: upper-case hex digits.
    public var keyID: String
    /// The manifest's `serial`: the publisher raises it with each release, and a deploy
    /// refuses a lower one than it recorded (a downgrade or a replayed old manifest).
    public var serial: UInt64
    /// The signer's public key, as the base64 line of its `.pub` file (what `minisign -P`
    /// takes), so later deploys can check signatures without being given the key; `nil`
    /// in records written before keys were pinned (they pin the key id alone).
    public var publicKey: String?

    /// Creates a signature record.
    public init(keyID: String, serial: UInt64, publicKey: String? = nil) {
        self.keyID = keyID
        self.serial = serial
        self.publicKey = publicKey
    }
}
