import Foundation
import Testing

/// "Fleets and people", item 5: `--owner` and `--mode` hold on every run, an up-to-date
/// one included, and the previous generation a replace keeps gets the working copy's.
@Suite struct OwnershipEveryRunTests {
    let cli = CLIHarness()

    private func attributes(_ path: String) throws -> (mode: Int, owner: String) {
        let found = try FileManager.default.attributesOfItem(atPath: path)
        return (try #require(found[.posixPermissions] as? Int), try #require(found[.ownerAccountName] as? String))
    }

    /// A database put by hand where a read-only seed's link was, adopted and kept as the
    /// previous generation, kept its own owner (root's) under `--owner` (found by a
    /// contract probe); a copy's previous generation gets the working copy's.
    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func theCopyAReadOnlyLinkKeepsGetsTheOwnerAskedFor() throws {
        let seedFolder = cli.root + "/shipped"
        #expect(try cli.shell("mkdir -p '\(seedFolder)' && cp '\(CLIHarness.seeds)/v1/levels.sqlite' '\(seedFolder)/' && chmod 0644 '\(seedFolder)/levels.sqlite'").status == 0)
        let flags = ["deploy", "--read-only", "--owner", "nobody:nogroup", "--app", cli.app, "--seed", seedFolder + "/levels.sqlite", "--version", "1"]
        #expect(try cli.run(flags).status == 0)
        // A database of root's put in the link's place by hand.
        #expect(try cli.shell("cp --remove-destination '\(seedFolder)/levels.sqlite' '\(cli.workingCopy)' && chmod 0644 '\(cli.workingCopy)'").status == 0)
        let relinked = try cli.run(flags)
        #expect(relinked.status == 0, "\(relinked.stderr)")
        #expect(try attributes(cli.workingCopy + ".previous").owner == "nobody")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func anUpToDateDeployPutsBackTheOwnerAndModeAskedFor() throws {
        // Given a system install owned by a service account, 0640
        let root = cli.root + "/image"
        let flags = ["deploy", "--json", "--system", "--root", root, "--owner", "nobody:nogroup", "--mode", "0640"] + cli.seedFlags(1)
        #expect(try cli.run(flags).status == 0)
        let directory = root + "/var/lib/\(cli.app)"
        let content = directory + "/levels.sqlite.v1"
        // When someone changes them by hand, and the same deploy runs again
        #expect(chmod(content, 0o644) == 0 && chown(content, 0, 0) == 0)
        #expect(chown(directory + "/settings.json", 0, 0) == 0 && chown(directory + "/levels.sqlite.lock", 0, 0) == 0)
        let repaired = try cli.run(flags)
        // Then it stays `unchanged`, says what it repaired on stderr, and the files are as asked
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try repaired.seeds().first?["action"] as? String == "unchanged")
        #expect(repaired.stderr.contains("mode 0644 -> 0640") && repaired.stderr.contains("owner and mode set as asked"), "\(repaired.stderr)")
        #expect(try attributes(content).mode == 0o640)
        #expect(try attributes(content).owner == "nobody")
        #expect(try attributes(directory + "/settings.json").owner == "nobody")
        #expect(try attributes(directory + "/levels.sqlite.lock").owner == "nobody")
        // And a run that finds nothing to repair says nothing
        let quiet = try cli.run(flags)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func aDryRunAcceptsTheDirectoriesTheOwnerWasGiven() throws {
        // Given a system install whose directory a first run gave the service account
        let root = cli.root + "/image"
        let system = ["--system", "--root", root, "--owner", "nobody:nogroup"]
        #expect(try cli.run(["deploy"] + system + cli.seedFlags(1)).status == 0)
        // When the dry runs of an upgrade, a reseed and a maintain look at it (Ansible's check mode)
        for command in [["deploy"] + cli.seedFlags(2), ["reseed"] + cli.seedFlags(1), ["maintain"] + cli.seedFlags(1)] {
            let dry = try cli.run([command[0], "--dry-run"] + system + command.dropFirst())
            // Then each exits as the run would (0): the owner's own directory is no refusal
            #expect(dry.status == 0, "\(command[0]): \(dry.stderr)")
        }
        let upgrade = try cli.run(["deploy"] + system + cli.seedFlags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
    }

    @Test func anUpToDateDeployLeavesTheModeAloneWhenNoneIsAskedFor() throws {
        #expect(try cli.run(["deploy", "--mode", "0640"] + cli.seedFlags(1)).status == 0)
        #expect(chmod(cli.contentFile, 0o600) == 0)
        let plain = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.stderr)")
        #expect(try attributes(cli.contentFile).mode == 0o600, "no --mode: the mode is the user's")
        let asked = try cli.run(["deploy", "--mode", "0640"] + cli.seedFlags(1))
        #expect(asked.status == 0 && asked.stderr.contains("mode 0600 -> 0640"), "\(asked.stderr)")
        #expect(try attributes(cli.contentFile).mode == 0o640)
    }

    @Test func thePreviousGenerationGetsTheWorkingCopysMode() throws {
        // A generation made under 0600, replaced by one made under 0640: the previous is 0640.
        #expect(try cli.run(["deploy", "--mode", "0600"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy", "--mode", "0640"] + cli.seedFlags(2)).status == 0)
        #expect(try attributes(cli.workingCopy + ".previous").mode == 0o640)
        #expect(try attributes(cli.contentFile).mode == 0o640)
        // Without --mode, the previous generation takes the new working copy's own mode.
        #expect(chmod(cli.contentFile, 0o600) == 0)
        #expect(try cli.run(["reseed"] + cli.seedFlags(2)).status == 0)
        let installed = try attributes(cli.contentFile).mode
        #expect(try attributes(cli.workingCopy + ".previous").mode == installed)
    }

    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func anAdoptedDatabaseKeptAsPreviousGetsTheWorkingCopysOwnerAndMode() throws {
        // Given a database with no record, someone else's, world-readable
        try FileManager.default.createDirectory(atPath: cli.appData, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: cli.workingCopy)
        #expect(chmod(cli.workingCopy, 0o644) == 0 && chown(cli.workingCopy, 1, 1) == 0)
        // When a deploy with --owner and --mode adopts it
        let result = try cli.run(["deploy", "--owner", "nobody:nogroup", "--mode", "0600"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        // Then the kept previous generation is the working copy's owner's, with its mode
        let previous = try attributes(cli.workingCopy + ".previous")
        #expect(previous.mode == 0o600 && previous.owner == "nobody", "\(previous)")
        #expect(try attributes(cli.contentFile).owner == "nobody")
    }
}
