import Foundation
import Testing

/// `status`, `paths` and `verify`: read-only views.
@Suite struct InspectCommandTests {
    let cli = CLIHarness()

    func state() throws -> [String: Any] {
        let result = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try result.seeds().first)
    }

    @Test func statusWalksThroughEveryState() throws {
        var seed = try state()
        #expect(seed["state"] as? String == "not-installed")
        #expect(seed["recordedVersion"] is NSNull)
        #expect(seed["currentVersion"] as? String == "2")
        #expect(seed["exists"] as? Bool == false)
        #expect(seed["workingCopy"] as? String == cli.workingCopy)
        #expect(seed["name"] as? String == "levels.sqlite")

        try cli.run(["deploy"] + cli.seedFlags(1))
        seed = try state()
        #expect(seed["state"] as? String == "outdated")
        #expect(seed["recordedVersion"] as? String == "1")
        #expect(seed["exists"] as? Bool == true)

        try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(try state()["state"] as? String == "up-to-date")

        try FileManager.default.removeItem(atPath: cli.workingCopy)
        seed = try state()
        #expect(seed["state"] as? String == "missing")
        #expect(seed["exists"] as? Bool == false)
    }

    @Test func pathsFollowXDG() throws {
        let result = try cli.run(["paths", "--json"] + cli.seedFlags(1) + ["--location", "cache", "--name", "work.db"])
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json["settings"] as? String == cli.settingsFile)
        let seed = try #require(try result.seeds().first)
        #expect(seed["name"] as? String == "work.db")
        #expect(seed["location"] as? String == "cache")
        #expect(seed["source"] as? String == "\(CLIHarness.seeds)/v1/levels.sqlite")
        #expect(seed["workingCopy"] as? String == cli.root + "/cache/\(cli.app)/work.db")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/cache"))
    }

    @Test func relativeXDGValuesFallBackToHome() throws {
        let result = try cli.run(["paths", "--json"] + cli.seedFlags(1), environment: ["XDG_DATA_HOME": "relative", "XDG_CONFIG_HOME": ""])
        #expect(try result.json()["settings"] as? String == cli.root + "/home/.config/\(cli.app)/settings.json")
        #expect(try result.seeds().first?["workingCopy"] as? String == cli.root + "/home/.local/share/\(cli.app)/levels.sqlite")
    }

    @Test func verifyReportsOkAndNotDeployed() throws {
        var result = try cli.run(["verify", "--json"] + cli.seedFlags(1))
        #expect(result.status == 0)
        #expect(try result.seeds().first?["workingCopy"] as? String == "not deployed")
        try cli.run(["deploy"] + cli.seedFlags(1))
        result = try cli.run(["verify", "--json"] + cli.seedFlags(1))
        let seed = try #require(try result.seeds().first)
        #expect(seed["seed"] as? String == "ok")
        #expect(seed["workingCopy"] as? String == "ok")
    }
}
