/// The XDG Base Directory locations SeedDB uses, resolved from an environment.
///
/// Follows the XDG Base Directory Specification: a variable that is unset, empty or
/// relative is ignored and its default under `$HOME` is used.
public struct XDGDirectories: Hashable, Sendable {
    /// `$XDG_DATA_HOME`, default `~/.local/share`.
    public var dataHome: String
    /// `$XDG_CACHE_HOME`, default `~/.cache`.
    public var cacheHome: String
    /// `$XDG_CONFIG_HOME`, default `~/.config`.
    public var configHome: String

    /// Creates the locations explicitly.
    public init(dataHome: String, cacheHome: String, configHome: String) {
        self.dataHome = dataHome
        self.cacheHome = cacheHome
        self.configHome = configHome
    }

    /// Resolves the locations from environment variables and a home directory.
    ///
    /// - Parameters:
    ///   - environment: The process environment (or a test's).
    ///   - home: The home directory; used when a variable is unset, empty or relative.
    /// - Throws: ``SeedDBError`` (`invalidArgument`) when a default is needed but `home`
    ///   is not an absolute path.
    public init(environment: [String: String], home: String?) throws(SeedDBError) {
        try self.init(reading: { environment[$0] }, home: home)
    }

    /// Resolves the locations from the variables `read` returns (`nil` when unset) and a
    /// home directory; the process's own environment is read with `getenv`, one variable
    /// at a time, rather than copied whole into a dictionary on every startup.
    package init(reading read: (String) -> String?, home: String?) throws(SeedDBError) {
        func resolve(_ variable: String, default relative: String) throws(SeedDBError) -> String {
            if let value = read(variable), value.hasPrefix("/") {
                return PathText.trimmingTrailingSlashes(value)
            }
            guard let home, home.hasPrefix("/") else {
                throw SeedDBError(.invalidArgument, "cannot locate \(variable): it is unset or not absolute, and HOME is not an absolute path")
            }
            return PathText.trimmingTrailingSlashes(home) + "/" + relative
        }
        dataHome = try resolve("XDG_DATA_HOME", default: ".local/share")
        cacheHome = try resolve("XDG_CACHE_HOME", default: ".cache")
        configHome = try resolve("XDG_CONFIG_HOME", default: ".config")
    }

    /// The system locations for services and install hooks, following the FHS: working
    /// copies in `/var/lib` (data) or `/var/cache` (cache), settings in `/var/lib/<app>`.
    ///
    /// - Parameter root: A prefix for every path (like dpkg's `--instdir`), so tests and
    ///   image builders can run unprivileged; `""` for the real system.
    public static func system(root: String = "") -> XDGDirectories {
        let prefix = PathText.trimmingTrailingSlashes(root) == "/" ? "" : PathText.trimmingTrailingSlashes(root)
        return XDGDirectories(dataHome: prefix + "/var/lib", cacheHome: prefix + "/var/cache", configHome: prefix + "/var/lib")
    }

    /// The directory of `app`'s settings store (`<configHome>/<app>`), shared by its data
    /// and cache working copies.
    public func settingsDirectory(of app: AppIdentifier) -> String {
        PathText.joined(configHome, app.rawValue)
    }

    /// The settings store's file name in an app's settings directory.
    static let settingsFileName = "settings.json"

    /// `app`'s settings store (`<configHome>/<app>/settings.json`).
    public func settingsFile(of app: AppIdentifier) -> String {
        PathText.joined(settingsDirectory(of: app), Self.settingsFileName)
    }

    /// The base directory of `location`.
    public func base(for location: SeedLocation) -> String {
        switch location {
        case .data: return dataHome
        case .cache: return cacheHome
        }
    }
}
