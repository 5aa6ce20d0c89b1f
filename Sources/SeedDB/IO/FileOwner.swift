import SeedDBCore
import SystemPackage

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
        guard let ids = Syscalls.user(named: user) else {
            throw SeedDBError(.invalidArgument, "invalid owner \(NameRules.quoted(text)): no such user")
        }
        (uid, gid) = ids
        if parts.count == 2 {
            guard let group = Syscalls.group(named: parts[1]) else {
                throw SeedDBError(.invalidArgument, "invalid owner \(NameRules.quoted(text)): no such group")
            }
            gid = group
        }
    }
}

extension Stat {
    /// The file's owner and group.
    var owner: FileOwner { FileOwner(uid: userID.rawValue, gid: groupID.rawValue) }
    /// The file's permission bits, set-id and sticky bits included (what `chmod` sets).
    var permissionBits: UInt16 { UInt16(permissions.rawValue & 0o7777) }
}
