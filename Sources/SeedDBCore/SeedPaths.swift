/// Every path SeedDB touches for one seed, derived from the seed and the XDG locations.
public struct SeedPaths: Hashable, Sendable {
    /// The directory holding the working copy and its sidecars (`<base>/<app>`).
    public var directory: String
    /// The working copy (`<base>/<app>/<name>`).
    public var workingCopy: String
    /// The directory holding the settings store (`$XDG_CONFIG_HOME/<app>`).
    public var settingsDirectory: String
    /// The settings store (`$XDG_CONFIG_HOME/<app>/settings.json`).
    public var settingsFile: String

    /// The suffixes of the files SQLite keeps beside a database.
    public static let sqliteSidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// Derives the paths of `seed` under `directories`.
    public init(seed: Seed, directories: XDGDirectories) {
        directory = directories.base(for: seed.location) + "/" + seed.app.rawValue
        workingCopy = directory + "/" + seed.name.rawValue
        settingsDirectory = directories.configHome + "/" + seed.app.rawValue
        settingsFile = settingsDirectory + "/settings.json"
    }

    /// SQLite's `-wal`, `-shm` and `-journal` files of the working copy.
    public var sqliteSidecars: [String] {
        Self.sqliteSidecarSuffixes.map { workingCopy + $0 }
    }

    /// The lock file that serialises deploys of this working copy.
    public var lockFile: String { workingCopy + ".lock" }

    /// The lock file that serialises writes of the settings store.
    public var settingsLockFile: String { settingsFile + ".lock" }
}

extension SeedPaths {
    /// The previous generation kept for `rollback`.
    public var previousGeneration: String { workingCopy + ".previous" }
}
