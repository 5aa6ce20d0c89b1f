/// The version of a seed, as the app names it: `"1"`, `"2.3.0"`, a build number, a digest.
///
/// Versions are compared for equality only: any difference, a downgrade included,
/// means the seed is redeployed. 1–256 characters, no control characters (so a version
/// always prints on one line and round-trips through JSON unchanged).
public struct SeedVersion: Hashable, Sendable, CustomStringConvertible {
    /// The longest version accepted, in UTF-8 bytes.
    public static let maximumLength = 256

    /// The version text.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``SeedDBError`` with code `invalidArgument` naming the problem.
    public init(_ rawValue: String) throws(SeedDBError) {
        guard !rawValue.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid version: it is empty")
        }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw SeedDBError(.invalidArgument, "invalid version: longer than \(Self.maximumLength) bytes")
        }
        guard !NameRules.hasControlCharacter(rawValue) else {
            throw SeedDBError(.invalidArgument, "invalid version \(NameRules.quoted(rawValue)): it must not contain control characters")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// No version: the one of a seed known by its working copy alone
    /// (``Seed/init(app:workingCopy:location:preservedTables:merge:)``). Empty, so it
    /// never equals a version a seed ships or a record holds.
    public static let unspecified = SeedVersion(unchecked: "")

    /// The version of a `version: auto` seed whose content has `digest`: its 64 hexadecimal
    /// digits (a valid version, so not checked again).
    package init(digest: SHA256Digest) {
        self.init(unchecked: digest.hex)
    }

    private init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// `"auto"`: the version is the seed's SHA-256, so any change of content redeploys.
    public static let auto = try! SeedVersion("auto")

    /// Whether this is ``auto``, to be resolved from the seed's content.
    public var isAuto: Bool { self == .auto }
}
