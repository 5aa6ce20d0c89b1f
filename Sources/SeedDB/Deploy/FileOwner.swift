#if canImport(Glibc)
import Glibc
#endif
import SeedDBCore

/// Who owns the files a deploy creates, for a service account (`--owner USER[:GROUP]`).
public struct FileOwner: Sendable, Hashable {
    /// The user id.
    public var uid: UInt32
    /// The group id.
    public var gid: UInt32

    /// Creates an owner from ids.
    public init(uid: UInt32, gid: UInt32) {
        self.uid = uid
        self.gid = gid
    }

    /// Resolves `USER[:GROUP]` (names or numeric ids); the group defaults to the user's
    /// primary group.
    /// - Throws: ``SeedDBError`` `invalidArgument` for an unknown user or group.
    public init(parsing text: String) throws(SeedDBError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let user = parts.first, !user.isEmpty else {
            throw SeedDBError(.invalidArgument, "invalid owner \(NameRules.quoted(text)): expected USER[:GROUP]")
        }
        if let entry = getpwnam(user) {
            uid = entry.pointee.pw_uid
            gid = entry.pointee.pw_gid
        } else if let id = UInt32(user) {
            uid = id
            gid = getpwuid(id)?.pointee.pw_gid ?? id
        } else {
            throw SeedDBError(.invalidArgument, "invalid owner \(NameRules.quoted(text)): no such user")
        }
        if parts.count == 2 {
            if let group = getgrnam(parts[1]) {
                gid = group.pointee.gr_gid
            } else if let id = UInt32(parts[1]) {
                gid = id
            } else {
                throw SeedDBError(.invalidArgument, "invalid owner \(NameRules.quoted(text)): no such group")
            }
        }
    }
}

/// How the files and directories a deploy creates are owned and protected.
public struct FilePolicy: Sendable, Hashable {
    /// The mode of directories SeedDB creates: 0700 for a user, 0755 in system mode.
    public var directoryMode: UInt16 = 0o700
    /// The mode of the settings file: 0600 for a user, 0644 in system mode.
    public var settingsMode: UInt16 = 0o600
    /// The working copy's mode (`--mode`); default 0644, less the umask.
    public var workingCopyMode: UInt16?
    /// The owner of the working copy, its directory, lock and settings (`--owner`).
    public var owner: FileOwner?

    /// The policy for a user's own directories.
    public static let user = FilePolicy()
    /// The policy for system locations.
    public static let system = FilePolicy(directoryMode: 0o755, settingsMode: 0o644)
}
