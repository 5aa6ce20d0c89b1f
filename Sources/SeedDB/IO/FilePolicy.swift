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
    /// Whether the files are a system location's (`--system`), where apps run under
    /// their own accounts: without ``owner``, a read-only seed is judged for an account
    /// that is not the seed file's owner. Default: `false` (the current user's files).
    public var isSystem: Bool = false

    /// The policy for a user's own directories.
    public static let user = FilePolicy()
    /// The policy for system locations.
    public static let system = FilePolicy(directoryMode: 0o755, settingsMode: 0o644, isSystem: true)
}
