/// The identifier of the app a seed belongs to, used as a directory name.
///
/// 1–128 characters of `[A-Za-z0-9._-]`, not starting with `.`; anything else is rejected
/// so that no path escapes its XDG directory.
public struct AppIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The longest identifier accepted.
    public static let maximumLength = 128

    /// The identifier text.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``SeedDBError`` with code `invalidArgument` naming the problem.
    public init(_ rawValue: String) throws(SeedDBError) {
        try NameRules.validatePathComponent(rawValue, what: "app id", maximumLength: Self.maximumLength)
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
