import Foundation
import Testing
@testable import seeddb

/// The startup check answered before swift-argument-parser builds its model: it takes
/// exactly the up-to-date `deploy` invocations it can answer, hands everything else to
/// the full parser, and prints byte for byte what the full command prints.
@Suite struct UpToDateDeployTests {
    let cli = CLIHarness()

    @Test(arguments: [
        ["deploy", "--app", "a.b", "--seed", "s.sqlite", "--version", "1"],
        ["deploy", "--seed", "s.sqlite", "--version", "auto", "--app", "a.b", "--location", "cache", "--name", "x.db", "-q"],
        ["deploy", "--manifest", "seeds.json", "--json"],
        ["deploy", "--manifest", "seeds.json", "--system", "--root", "/tmp/root", "--quiet"],
    ])
    func recognisesTheInvocationsItCanAnswer(_ arguments: [String]) {
        #expect(UpToDateDeploy(arguments) != nil)
    }

    @Test(arguments: [
        ["reseed", "--manifest", "seeds.json"],
        ["deploy", "--manifest", "seeds.json", "--dry-run"],
        ["deploy", "--manifest=seeds.json"],
        ["deploy", "--manifest", "seeds.json", "--manifest", "other.json"],
        ["deploy", "--manifest", "seeds.json", "--app", "a.b"],
        ["deploy", "--app", "a.b", "--seed", "s.sqlite"],
        ["deploy", "--app", "a.b", "--seed", "s.sqlite", "--version", "-1"],
        ["deploy", "--app", "a.b", "--seed", "s.sqlite", "--version", "1", "--merge", "user-wins"],
        ["deploy", "--app", "a.b", "--seed", "s.sqlite", "--version", "1", "--trusted-key", "k.pub"],
        ["deploy", "--manifest", "seeds.json", "--json", "--quiet"],
        ["deploy", "--manifest", "seeds.json", "--root", "/tmp/root"],
        ["deploy", "--manifest", "seeds.json", "--system", "--root", "relative"],
        ["deploy", "--manifest", "seeds.json", "--help"],
        ["deploy", "--manifest"],
    ])
    func handsEverythingElseToTheParser(_ arguments: [String]) {
        #expect(UpToDateDeploy(arguments) == nil)
    }

    @Test func printsWhatTheFullCommandPrints() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        // `--app=ID` is the same request, but only the full parser takes it.
        let parsed = ["--app=\(cli.app)"] + cli.seedFlags(1).dropFirst(2)
        for output in [[], ["--json"], ["--quiet"]] {
            let fast = try cli.run(["deploy"] + cli.seedFlags(1) + output)
            let full = try cli.run(["deploy"] + parsed + output)
            #expect(fast.status == 0 && full.status == 0)
            #expect(fast.stdout == full.stdout)
            #expect(fast.stderr == full.stderr)
        }
        #expect(try cli.run(["deploy", "--json"] + cli.seedFlags(1)).seeds().first?["action"] as? String == "unchanged")
    }

    @Test func aSeedWithWorkToDoGoesToTheFullCommand() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let upgrade = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(try upgrade.seeds().first?["action"] as? String == "replaced")
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let restore = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(try restore.seeds().first?["action"] as? String == "restored")
    }

    @Test func errorsAreTheFullCommands() throws {
        let missing = try cli.run(["deploy", "--app", cli.app, "--seed", cli.root + "/nope.sqlite", "--version", "1"])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("seeddb: error: "))
    }
}
