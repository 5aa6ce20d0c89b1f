import Foundation
import GRDB
import Testing

/// System mode, seed authoring, compressed seeds, the Debian package, shell niceties.
@Suite struct PackagingTests {
    let cli = CLIHarness()

    static var isRoot: Bool { geteuid() == 0 }


    // MARK: pack

    @Test(arguments: [1, 2])
    func packRebuildsTheDemoSeedsByteForByte(version: Int) throws {
        let output = cli.root + "/levels.sqlite"
        let result = try cli.run(["pack", "\(CLIHarness.seeds)/v\(version)/levels.sql", "--output", output, "--version", "\(version)", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.bytes(output) == cli.bytes("\(CLIHarness.seeds)/v\(version)/levels.sqlite"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: cli.bytes("\(CLIHarness.seeds)/v\(version)/seeds.json") ?? Data()) as? [String: Any])
        let entry = try #require((manifest["seeds"] as? [[String: Any]])?.first)
        #expect(try result.json()["sha256"] as? String == entry["sha256"] as? String)
        #expect(cli.list(cli.root).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func packUpdatesTheManifestAndKeepsItsOtherKeys() throws {
        let manifest = cli.root + "/seeds.json"
        try Data(#"{"app": "a.b", "seeds": [{"source": "levels.sqlite", "version": "0", "preserve": ["progress"], "location": "cache"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["pack", "\(CLIHarness.seeds)/v2/levels.sql", "--output", cli.root + "/levels.sqlite", "--version", "7", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: cli.bytes(manifest) ?? Data()) as? [String: Any])
        let entries = try #require(document["seeds"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries[0]["version"] as? String == "7")
        #expect(entries[0]["location"] as? String == "cache")
        #expect(entries[0]["preserve"] as? [String] == ["progress"])
        #expect((entries[0]["sha256"] as? String)?.count == 64)
        // And the result deploys.
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
    }

    @Test func packErrors() throws {
        var result = try cli.run(["pack", cli.root + "/none.sql", "--output", cli.root + "/x.sqlite", "--version", "1"])
        #expect(result.status == 66)
        let bad = cli.root + "/bad.sql"
        try Data("CREATE TABLE broken(".utf8).write(to: URL(fileURLWithPath: bad))
        result = try cli.run(["pack", bad, "--output", cli.root + "/x.sqlite", "--version", "1"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad.sql"))
        result = try cli.run(["pack", "\(CLIHarness.seeds)/v1/levels.sql", "--output", cli.root + "/x.sqlite", "--version", "1", "--manifest", cli.root + "/new.json"])
        #expect(result.status == 64, "a new manifest needs --app: \(result.stderr)")
        result = try cli.run(["pack", "\(CLIHarness.seeds)/v1/levels.sql", "--output", cli.root + "/x.sqlite", "--version", "1", "--compress", "zstd"])
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/x.sqlite"))
        #expect(cli.list(cli.root).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    // MARK: Compressed seeds

    @Test(arguments: ["zstd", "gzip"])
    func compressedSeedsDeployDecompressed(codec: String) throws {
        let suffix = codec == "zstd" ? ".zst" : ".gz"
        let seed = cli.root + "/levels.sqlite" + suffix
        let manifest = cli.root + "/seeds.json"
        let pack = try cli.run(["pack", "\(CLIHarness.seeds)/v2/levels.sql", "--output", seed, "--compress", codec, "--version", "2", "--manifest", manifest, "--app", cli.app])
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect((cli.bytes(seed)?.count ?? 0) < (cli.bytes("\(CLIHarness.seeds)/v2/levels.sqlite")?.count ?? 0))

        let deploy = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(try deploy.seeds().first?["name"] as? String == "levels.sqlite", "the compression suffix is not part of the name")
        #expect(cli.bytes(cli.workingCopy) == cli.bytes("\(CLIHarness.seeds)/v2/levels.sqlite"))
        #expect(try cli.run(["verify", "--manifest", manifest]).status == 0)
    }

    @Test(arguments: ["zstd", "gzip"])
    func corruptOrTruncatedCompressedSeedsExit65(codec: String) throws {
        let suffix = codec == "zstd" ? ".zst" : ".gz"
        let seed = cli.root + "/levels.sqlite" + suffix
        try cli.run(["pack", "\(CLIHarness.seeds)/v2/levels.sql", "--output", seed, "--version", "2"])
        let whole = try #require(cli.bytes(seed))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: seed))
        var result = try cli.run(["deploy"] + cli.seedFlags(2, source: seed))
        #expect(result.status == 65, "\(result.stderr)")
        var garbage = whole
        garbage.replaceSubrange(12..<40, with: Data(repeating: 0x5A, count: 28))
        try garbage.write(to: URL(fileURLWithPath: seed))
        result = try cli.run(["deploy"] + cli.seedFlags(2, source: seed))
        #expect(result.status == 65, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        #expect(cli.list(cli.appData).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    // MARK: System mode

    @Test func systemModeFollowsTheFHSUnderRoot() throws {
        let root = cli.root + "/image"
        let result = try cli.run(["deploy", "--json", "--system", "--root", root] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
        let workingCopy = root + "/var/lib/\(cli.app)/levels.sqlite"
        #expect(try result.seeds().first?["workingCopy"] as? String == workingCopy)
        #expect(cli.bytes(workingCopy) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/\(cli.app)/settings.json"))
        let cache = try cli.run(["paths", "--json", "--system", "--root", root, "--location", "cache"] + cli.seedFlags(1))
        #expect(try cache.seeds().first?["workingCopy"] as? String == root + "/var/cache/\(cli.app)/levels.sqlite")
        #expect(try cache.json()["settings"] as? String == root + "/var/lib/\(cli.app)/settings.json")
        #expect(try cli.run(["deploy", "--root", root] + cli.seedFlags(1)).status == 64, "--root needs --system")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "ownership needs root"))
    func ownerAndModeApplyToTheWorkingCopy() throws {
        let root = cli.root + "/image"
        let result = try cli.run(["deploy", "--system", "--root", root, "--owner", "nobody:nogroup", "--mode", "0640"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
        let link = root + "/var/lib/\(cli.app)/levels.sqlite"
        let attributes = try FileManager.default.attributesOfItem(atPath: link + ".v1")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "levels.sqlite.v1")
        #expect(try FileManager.default.attributesOfItem(atPath: link)[.ownerAccountName] as? String == "nobody")
        #expect(attributes[.ownerAccountName] as? String == "nobody")
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        let directory = try FileManager.default.attributesOfItem(atPath: root + "/var/lib/\(cli.app)")
        #expect(directory[.ownerAccountName] as? String == "nobody")
        #expect(try cli.run(["deploy", "--system", "--owner", "no-such-user-here"] + cli.seedFlags(1)).status == 64)
        #expect(try cli.run(["deploy", "--system", "--mode", "999"] + cli.seedFlags(1)).status == 64)
    }

    @Test(.enabled(if: PackagingTests.isRoot, "the rule is for root"))
    func rootRefusesDirectoriesOthersCanWrite() throws {
        let root = cli.root + "/image"
        let directory = root + "/var/lib/\(cli.app)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o777) == 0)
        var result = try cli.run(["deploy", "--system", "--root", root] + cli.seedFlags(1))
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("non-root"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/levels.sqlite"))

        // Owned by a service account: refused, unless that account is the --owner.
        #expect(chmod(directory, 0o755) == 0)
        #expect(chown(directory, 65534, 65534) == 0)
        result = try cli.run(["deploy", "--system", "--root", root] + cli.seedFlags(1))
        #expect(result.status == 73)
        result = try cli.run(["deploy", "--system", "--root", root, "--owner", "65534:65534"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
    }

    // MARK: purge

    @Test func purgeRemovesEverythingSeedDBKept() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(cli.list(cli.appData).contains("levels.sqlite.previous"))
        // A write of the conflicts file killed before its rename.
        try Data("[]".utf8).write(to: URL(fileURLWithPath: cli.appData + "/.levels.sqlite.conflicts.json.seeddb-1234-abcd.tmp"))
        let result = try cli.run(["purge", "--json", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData))
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/config/\(cli.app)"))
        #expect(try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite"]).status == 0, "purging twice is fine")
    }

    @Test func purgeKeepsTheAppsOwnSettings() throws {
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite"]).status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: cli.bytes(cli.settingsFile) ?? Data()) as? [String: Any])
        #expect(document["theme"] as? String == "dark")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
    }

    // MARK: The Debian package

    static var canRunDpkg: Bool {
        isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg") && FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-deb")
    }

    @Test(.enabled(if: PackagingTests.canRunDpkg, "needs root and dpkg: skipped, the Debian package example is not exercised"),
          .enabled(if: ShippingTests.deb != nil, "SEEDDB_DEB is unset (Scripts/build-deb.sh makes it; .ci/run exports it): the demo package depends on seeddb"))
    func debianPackageInstallsUpgradesReinstallsAndPurges() throws {
        let seeddbDeb = try #require(ShippingTests.deb)
        let debs = cli.root + "/debs"
        let root = cli.root + "/dpkg-root"
        let build = try cli.shell("'\(CLIHarness.seeds)/../Examples/debian/build-debs.sh' '\(debs)'")
        #expect(build.status == 0, "\(build.stderr)")
        try FileManager.default.createDirectory(atPath: root + "/var/lib/dpkg/info", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/var/lib/dpkg/updates", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: nil)
        // The toolchain is off PATH: maintainer scripts find the packaged seeddb, in the root.
        func dpkg(_ arguments: String, root: String = root) throws -> CLIHarness.Result {
            try cli.shell("PATH='\(root)/usr/bin':\(ShippingTests.systemPath) LD_LIBRARY_PATH= dpkg --root='\(root)' --force-script-chrootless --log=/dev/null \(arguments)")
        }
        let workingCopy = root + "/var/lib/com.example.levels/levels.sqlite"
        let settings = root + "/var/lib/com.example.levels/settings.json"
        func recorded() throws -> String? {
            cli.settingsEntry(settings)?["version"] as? String
        }

        // The demo declares its dependency: without seeddb, dpkg refuses to configure it.
        let version = try cli.shell("dpkg-deb -f '\(seeddbDeb)' Version").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let depends = try cli.shell("dpkg-deb -f '\(debs)/levels-demo_1.0_all.deb' Depends").stdout
        #expect(depends.hasPrefix("seeddb (>= "), "\(depends)")
        let bare = cli.root + "/bare-root"
        try FileManager.default.createDirectory(atPath: bare + "/var/lib/dpkg/updates", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bare + "/var/lib/dpkg/info", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bare + "/var/lib/dpkg/status", contents: nil)
        let refused = try dpkg("-i '\(debs)/levels-demo_1.0_all.deb'", root: bare)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("seeddb"), "\(refused.stdout)\(refused.stderr)")

        // seeddb's own Depends are checked against this machine's real packages: the root's
        // database gets their entries (and empty file lists) from the host's.
        let host = try cli.shell("""
            dpkg='\(root)/var/lib/dpkg'
            dpkg-deb -f '\(seeddbDeb)' Depends | tr ',' '\\n' | sed 's/[|(].*//; s/ //g' | while read -r package; do
                [ -n "$package" ] || continue
                { dpkg-query -s "$package" && echo; } >> "$dpkg/status" || exit 1
                : > "$dpkg/info/$(dpkg-query -W -f='${binary:Package}' "$package").list"
            done
            """)
        #expect(host.status == 0, "\(host.stderr)")
        var result = try dpkg("-i '\(seeddbDeb)'")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let installed = try cli.shell("env -i PATH='\(root)/usr/bin':\(ShippingTests.systemPath) LD_LIBRARY_PATH= sh -c 'command -v seeddb && seeddb --version'")
        #expect(installed.stdout == "\(root)/usr/bin/seeddb\n\(version)\n", "\(installed.stderr)")

        result = try dpkg("-i '\(debs)/levels-demo_1.0_all.deb'")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(cli.bytes(workingCopy) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        #expect(try recorded() == "1")
        // The package ships its public key in /etc/seeddb/keys: the postinst deployed a
        // signed manifest, and recorded who signed it.
        #expect(FileManager.default.fileExists(atPath: root + "/etc/seeddb/keys/com.example.levels/levels-demo.pub"))
        #expect((cli.settingsEntry(settings)?["signature"] as? [String: Any])?["serial"] as? Int == 1)

        result = try dpkg("-i '\(debs)/levels-demo_2.0_all.deb'")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try cli.levelCount(workingCopy) == 24)
        #expect(try recorded() == "2")
        #expect((cli.settingsEntry(settings)?["signature"] as? [String: Any])?["serial"] as? Int == 2)
        let upgraded = cli.bytes(workingCopy)

        result = try dpkg("-i '\(debs)/levels-demo_2.0_all.deb'")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(cli.bytes(workingCopy) == upgraded, "a reinstall changes nothing")

        result = try dpkg("--purge levels-demo")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/com.example.levels"))

        // A package whose postinst deploys with --owner, purged by the same postrm (which
        // passes no --owner): the purge finds the owner on the directory SeedDB made.
        let owned = cli.root + "/owned-debs"
        let built = try cli.shell("'\(CLIHarness.seeds)/../Examples/debian/build-debs.sh' '\(owned)' nobody:nogroup")
        #expect(built.status == 0, "\(built.stderr)")
        for version in ["1.0", "2.0"] {
            result = try dpkg("-i '\(owned)/levels-demo_\(version)_all.deb'")
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let owner = try FileManager.default.attributesOfItem(atPath: root + "/var/lib/com.example.levels")[.ownerAccountName] as? String
        #expect(owner == "nobody")
        #expect(try recorded() == "2")
        result = try dpkg("--purge levels-demo")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/com.example.levels"), "the purge went all the way")

        result = try dpkg("--purge seeddb")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/usr/bin/seeddb"))
    }

    // MARK: Shell niceties

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsCoverTheSubcommands(shell: String) throws {
        let result = try cli.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for command in ["deploy", "reseed", "rollback", "status", "verify", "paths", "maintain", "pack", "purge"] {
            #expect(result.stdout.contains(command), "\(shell) completion lacks \(command)")
        }
        // An option of a fixed list completes its values, in their order
        // (`RawValueArgument`): bash's words, one per line.
        if shell == "bash" {
            for values in [["auto", "swap", "live"], ["none", "quick", "full"], ["off", "seed-wins", "user-wins", "fail"], ["data", "cache"]] {
                let words = values.map { "'\($0)'" }.joined(separator: "$'\\n'")
                #expect(result.stdout.contains("-W \(words)"), "bash completion lacks \(values)")
            }
        }
    }

    @Test func versionAndHelp() throws {
        let version = try cli.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        for command in ["deploy", "reseed", "rollback", "status", "verify", "paths", "maintain", "pack", "purge"] {
            let help = try cli.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example:"), "\(command) --help has an example")
        }
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        // Not a terminal: plain.
        let plain = try cli.run(["deploy"] + cli.seedFlags(1, source: cli.root + "/none.sqlite"))
        #expect(plain.stderr.hasPrefix("seeddb: error: "))
        #expect(!plain.stderr.contains("\u{1B}["))
        // A terminal (through a pseudo-terminal): coloured, unless NO_COLOR is set.
        let script = "import pty, sys; pty.spawn(sys.argv[1:])"
        let arguments = (["deploy"] + cli.seedFlags(1, source: cli.root + "/none.sqlite")).map { "'\($0)'" }.joined(separator: " ")
        let coloured = try cli.shell("python3 -c \"\(script)\" '\(CLIHarness.binary)' \(arguments)")
        #expect(coloured.stdout.contains("\u{1B}[1;31merror"), "\(coloured.stdout)")
        let noColour = try cli.shell("NO_COLOR=1 python3 -c \"\(script)\" '\(CLIHarness.binary)' \(arguments)")
        #expect(noColour.stdout.contains("seeddb: error: "))
        #expect(!noColour.stdout.contains("\u{1B}["))
    }
}
