/// The file name of a working copy inside its app directory: a plain name, never a path.
///
/// Any file name of 1–255 bytes (spaces and Unicode included) that is not `.` or `..`,
/// does not start with `.`, holds no `/`, NUL or control character, and does not collide
/// with the files SeedDB and SQLite keep beside a working copy (names ending in `-wal`,
/// `-shm`, `-journal`, `.lock`, `.previous`, `.base`, `.xor.zst`, `.conflicts.json`,
/// `.tmp`, `.v` and digits (generation files) or `.adopted-` and a UTC stamp (adopted
/// copies), names holding `.seeddb-`, and `settings.json`); see
/// `NameRules.validateFileName(_:maximumLength:)`.
/// The sidecars append to this name, so on a file system with a 255-byte limit a name
/// longer than about 220 bytes deploys with an I/O error.
public struct SeedName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest name accepted, in bytes (the usual file-system limit).
    public static let maximumLength = 255

    /// The file name.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``SeedDBError`` with code `invalidArgument` naming the problem.
    public init(_ rawValue: String) throws(SeedDBError) {
        try NameRules.validateFileName(rawValue, maximumLength: Self.maximumLength)
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: SeedName, rhs: SeedName) -> Bool { lhs.rawValue < rhs.rawValue }
}
