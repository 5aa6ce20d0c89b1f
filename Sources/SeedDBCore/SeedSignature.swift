/// Who signed the manifest a seed was deployed from, and which release of it: what the
/// settings entry records and `seeddb status` shows.
public struct SeedSignature: Hashable, Sendable {
    /// The signer's minisign key id, as minisign prints it: upper-case hex digits.
    public var keyID: String
    /// The manifest's `serial`: the publisher raises it with each release, and a deploy
    /// refuses a lower one than it recorded (a downgrade or a replayed old manifest).
    public var serial: UInt64

    /// Creates a signature record.
    public init(keyID: String, serial: UInt64) {
        self.keyID = keyID
        self.serial = serial
    }
}
