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
        let bytes = Array(rawValue.utf8)
        guard !bytes.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid app id: it is empty")
        }
        guard bytes.count <= Self.maximumLength else {
            throw SeedDBError(.invalidArgument, "invalid app id: longer than \(Self.maximumLength) characters")
        }
        guard bytes.allSatisfy(NameRules.isIdentifierCharacter) else {
            throw SeedDBError(.invalidArgument, "invalid app id \(NameRules.quoted(rawValue)): only letters, digits, '.', '_' and '-' are allowed")
        }
        guard bytes[0] != UInt8(ascii: ".") else {
            throw SeedDBError(.invalidArgument, "invalid app id \(NameRules.quoted(rawValue)): it must not start with '.'")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
