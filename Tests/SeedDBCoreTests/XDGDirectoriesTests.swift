import SeedDBCore
import Testing

@Suite struct XDGDirectoriesTests {
    @Test func defaultsUnderHome() throws {
        let directories = try XDGDirectories(environment: [:], home: "/home/ada")
        #expect(directories == XDGDirectories(dataHome: "/home/ada/.local/share", cacheHome: "/home/ada/.cache", configHome: "/home/ada/.config"))
    }

    @Test func absoluteVariablesWin() throws {
        let directories = try XDGDirectories(
            environment: ["XDG_DATA_HOME": "/d/", "XDG_CACHE_HOME": "/c", "XDG_CONFIG_HOME": "/k"], home: "/home/ada")
        #expect(directories == XDGDirectories(dataHome: "/d", cacheHome: "/c", configHome: "/k"))
    }

    @Test(arguments: ["", "relative/dir", "./x", "~/data"])
    func emptyOrRelativeVariablesAreIgnored(_ value: String) throws {
        let directories = try XDGDirectories(
            environment: ["XDG_DATA_HOME": value, "XDG_CACHE_HOME": value, "XDG_CONFIG_HOME": value], home: "/h")
        #expect(directories == XDGDirectories(dataHome: "/h/.local/share", cacheHome: "/h/.cache", configHome: "/h/.config"))
    }

    @Test func noUsableHomeIsAnError() {
        #expect(throws: SeedDBError.self) { try XDGDirectories(environment: [:], home: nil) }
        #expect(throws: SeedDBError.self) { try XDGDirectories(environment: [:], home: "relative") }
    }

    @Test func seedPathsFollowTheSpec() throws {
        let directories = XDGDirectories(dataHome: "/d", cacheHome: "/c", configHome: "/k")
        let seed = try Seed(app: AppIdentifier("com.example"), source: "/s/levels.sqlite", version: SeedVersion("1"), location: .cache, name: SeedName("work.db"))
        let paths = SeedPaths(seed: seed, directories: directories)
        #expect(paths.workingCopy == "/c/com.example/work.db")
        #expect(paths.settingsFile == "/k/com.example/settings.json")
        #expect(paths.sqliteSidecars == ["/c/com.example/work.db-wal", "/c/com.example/work.db-shm", "/c/com.example/work.db-journal"])
    }
}
