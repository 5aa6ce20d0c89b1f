/// The file name of a working copy inside its app directory: a plain name, never a path.
///
/// 1–128 characters of `[A-Za-z0-9._-]`, not starting with `.`, the same rule as
/// ``AppIdentifier``. The sidecars SeedDB and SQLite put beside it (`-wal`, `-journal`,
/// `.lock`, the previous generation) append to this name, so it stays well below the
/// file system's 255-byte limit.
public struct SeedName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest name accepted.
    public static let maximumLength = 128

    /// The file name.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``SeedDBError`` with code `invalidArgument` naming the problem.
    public init(_ rawValue: String) throws(SeedDBError) {
        try NameRules.validatePathComponent(rawValue, what: "name", maximumLength: Self.maximumLength)
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: SeedName, rhs: SeedName) -> Bool { lhs.rawValue < rhs.rawValue }
}
