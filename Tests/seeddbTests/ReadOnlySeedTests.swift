import Foundation
import Testing

/// A read-only seed (`--read-only`, `"readOnly": true`) is deployed as a symbolic link
/// straight to the seed file: nothing copied, no generation file, the seed renamed into
/// place by a package is what the next deploy records and new connections read. Every
/// refusal changes nothing; switching between copied and read-only keeps the old copy as
/// the previous generation.
@Suite(.enabled(if: getuid() == 0, "a read-only seed the app's user owns is refused: the seeds these tests make are root's only when they run as root"))
struct ReadOnlySeedTests {
    /// A harness with demo seed `version` at `<root>/share/levels.sqlite`, mode 0444.
    static func shipped(_ cli: CLIHarness, _ version: Int, mode: String = "0444") throws -> String {
        let path = cli.root + "/share/levels.sqlite"
        let result = try cli.shell("""
            mkdir -p '\(cli.root)/share' && cp '\(CLIHarness.seeds)/v\(version)/levels.sqlite' '\(cli.root)/share/.new' \
            && chmod \(mode) '\(cli.root)/share/.new' && mv -f '\(cli.root)/share/.new' '\(path)'
            """)
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// The start of a `seeddb deploy` of the harness's app run as `nobody`, with XDG
    /// directories of its own (created, `nobody`'s) under the harness's root, which it may
    /// enter with the seed's directory.
    static func nobodysDeploy(_ cli: CLIHarness) throws -> String {
        let nobody = try asNobody(cli)
        let homes = ["data", "config", "cache"].map { "\(cli.root)/\($0)" }
        let prepared = try cli.shell("chmod 755 '\(cli.root)' '\(cli.root)/share' && mkdir -p \(homes.map { "'\($0)'" }.joined(separator: " ")) && chown -R nobody \(homes.map { "'\($0)'" }.joined(separator: " "))")
        try #require(prepared.status == 0, "\(prepared.stderr)")
        return "XDG_DATA_HOME='\(homes[0])' XDG_CONFIG_HOME='\(homes[1])' XDG_CACHE_HOME='\(homes[2])' \(nobody) deploy --app \(cli.app)"
    }

    /// The start of a command that runs `seeddb` as `nobody` (through `setpriv`), the
    /// binary copied where that account may run it.
    static func asNobody(_ cli: CLIHarness) throws -> String {
        let binary = cli.root + "/seeddb"
        try FileManager.default.copyItem(atPath: CLIHarness.binary, toPath: binary)
        return "setpriv --reuid=65534 --regid=65534 --clear-groups '\(binary)'"
    }

    static func flags(_ cli: CLIHarness, _ version: Int, _ seed: String) -> [String] {
        ["--app", cli.app, "--seed", seed, "--version", "\(version)"]
    }

    /// The rows of `sql` through Python's `sqlite3`, opened read-only by URI.
    static func python(_ cli: CLIHarness, _ path: String, _ sql: String) throws -> String {
        try cli.shell("python3 -c 'import sqlite3,sys; c=sqlite3.connect(\"file:\"+sys.argv[1]+\"?mode=ro\", uri=True); print(c.execute(sys.argv[2]).fetchone()[0])' '\(path)' '\(sql)'").stdout
    }

    @Test func theFirstDeployIsALinkToTheSeedWithNoByteCopied() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let result = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy) == seed)
        // Nothing but the link and the lock file: no generation, no previous, no base.
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.lock"])
        let usage = try cli.shell("du -sk --apparent-size '\(cli.appData)' | cut -f1").stdout
        #expect((Int(usage.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max) < 12, "the directory holds \(usage) KiB: a copy was made")
        let entry = try #require(cli.settingsEntry())
        #expect(entry["readOnly"] as? Bool == true && entry["seedLink"] as? String == seed && entry["version"] as? String == "1")
        #expect(entry["generation"] == nil)
        #expect(entry["sha256"] == nil, "a fixed version's link reads no more of the seed than its header")
        #expect(try Self.python(cli, cli.workingCopy, "SELECT count(*) FROM levels") == "20\n")
        // Up to date: the second run changes nothing.
        #expect(result.stdout.contains("installed 1 as a read-only link to \(seed)"), "\(result.stdout)")
        let again = try cli.run(["deploy", "--json", "--read-only"] + Self.flags(cli, 1, seed))
        let report = try #require(try again.seeds().first)
        #expect(report["action"] as? String == "unchanged" && report["readOnly"] as? Bool == true && report["seedLink"] as? String == seed)
    }

    @Test func theSeedRenamedIntoPlaceIsWhatTheNextDeployRecordsAndReads() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        _ = try Self.shipped(cli, 2) // the package manager's rename
        #expect(try Self.python(cli, cli.workingCopy, "SELECT count(*) FROM levels") == "24\n", "a new connection opens the new file")
        let upgrade = try cli.run(["deploy", "--json", "--read-only"] + Self.flags(cli, 2, seed))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let report = try #require(try upgrade.seeds().first)
        #expect(report["action"] as? String == "replaced" && report["from"] as? String == "1" && report["to"] as? String == "2")
        #expect(cli.settingsEntry()?["version"] as? String == "2")
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.lock"])
    }

    @Test(arguments: [
        ("writable by its owner, the app's user", "0644", "", Int32(73)),
        ("writable by its group", "0464", "", Int32(73)),
        ("compressed (.zst)", "0444", ".zst", Int32(78)),
        ("compressed (.gz)", "0444", ".gz", Int32(78)),
        ("in WAL mode (no reader could make its -shm)", "0444", "wal", Int32(78)),
    ])
    func aRefusalChangesNothing(_ label: String, _ mode: String, _ suffix: String, _ status: Int32) throws {
        let cli = CLIHarness()
        // A copied deploy first: the refusal must leave it as it is.
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        var seed = try Self.shipped(cli, 2, mode: mode)
        if suffix == "wal" {
            #expect(try cli.shell("chmod u+w '\(seed)' && sqlite3 '\(seed)' 'PRAGMA journal_mode=WAL' >/dev/null && chmod \(mode) '\(seed)'").status == 0)
        } else if !suffix.isEmpty {
            let tool = suffix == ".zst" ? "zstd -q" : "gzip -k"
            #expect(try cli.shell("\(tool) '\(seed)' && chmod 0444 '\(seed)\(suffix)'").status == 0)
            seed += suffix
        }
        let before = cli.state()
        let result = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 2, seed))
        #expect(result.status == status, "\(label): \(result.stderr)")
        #expect(result.stderr.contains("nothing was changed"), "\(result.stderr)")
        if status == 73 { #expect(result.stderr.contains("make it read-only to the app's user (not its own file, no group or other write bit, in directories it cannot write)"), "\(result.stderr)") }
        #expect(cli.state() == before, "\(label): the refused run changed something")
    }

    /// The copy's options beside `--read-only` were taken and ignored: a user asking to
    /// preserve a table of a link believed it kept.
    @Test(arguments: [["--preserve", "progress"], ["--merge", "off"], ["--merge-table", "levels=seed-wins"]])
    func theCopysOptionsAreRefusedBesideReadOnly(_ option: [String]) throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let seed = try Self.shipped(cli, 2)
        let before = cli.state()
        for command in ["deploy", "reseed"] {
            let result = try cli.run([command, "--read-only"] + Self.flags(cli, 2, seed) + option)
            #expect(result.status == 64, "\(command) \(option): \(result.stderr)")
            #expect(result.stderr.contains("--read-only deploys a link to the seed file, not a copy: \(option[0]) has nothing to apply to; drop one of them"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        }
        #expect(cli.state() == before, "a refused run changed something")
    }

    /// `reseed --merge` beside a manifest whose seeds are all read-only was taken and
    /// ignored (exit 0): refused as beside `--read-only` (64), before anything changes, by
    /// the library's release (its dry run too).
    /// Beside a manifest that also copies a seed, it applies to the seed it copies.
    @Test func reseedMergeBesideAManifestOfLinksIsRefused() throws {
        let cli = CLIHarness()
        _ = try Self.shipped(cli, 1)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "1", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
        let before = cli.state()
        for dryRun in [[], ["--dry-run"]] {
            let refused = try cli.run(["reseed", "--manifest", manifest, "--merge", "off"] + dryRun)
            #expect(refused.status == 64, "\(dryRun): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr == "seeddb: error: every seed of \(manifest) is read-only, a link to its seed file, not a copy: a reseed's own merge (--merge) has nothing to apply to; drop it\n", "\(dryRun)")
            #expect(refused.stdout.isEmpty, "\(dryRun)")
            #expect(cli.state() == before, "\(dryRun): a refused run changed something")
        }

        let mixed = cli.root + "/share/mixed.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "1", "readOnly": true}, {"source": "\#(CLIHarness.seeds)/v1/levels.sqlite", "name": "copy.sqlite", "version": "1"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: mixed))
        #expect(try cli.run(["deploy", "--manifest", mixed]).status == 0)
        let reseed = try cli.run(["reseed", "--manifest", mixed, "--merge", "off"])
        #expect(reseed.status == 0, "\(reseed.stderr)")
        #expect(reseed.stdout.contains("copy.sqlite: reseeded at 1 by "), "\(reseed.stdout)")
    }

    /// A seed shorter than its header says (a truncated download) was linked (exit 0),
    /// replacing a healthy copy, where a copied deploy refuses it (65). The link refuses it
    /// in the copy's words, changing nothing, and `status`, `verify` and `--dry-run` foresee it.
    @Test func aTruncatedSeedIsRefusedAsACopiedDeployRefusesIt() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let seed = try Self.shipped(cli, 2)
        #expect(try cli.shell("chmod u+w '\(seed)' && truncate -s 8192 '\(seed)' && chmod 0444 '\(seed)'").status == 0)
        let words = "invalid seed \(seed): its header declares 12288 bytes but 8192 were read"
        let before = cli.state()
        let copied = try cli.run(["deploy"] + Self.flags(cli, 2, seed))
        #expect(copied.status == 65 && copied.stderr.contains(words), "\(copied.stderr)")
        for command in [["deploy"], ["reseed"], ["deploy", "--dry-run"]] {
            let linked = try cli.run(command + ["--read-only"] + Self.flags(cli, 2, seed))
            #expect(linked.status == 65, "\(command): \(linked.stdout) \(linked.stderr)")
            #expect(linked.stderr.contains(words) && linked.stderr.hasSuffix("; nothing was changed\n"), "\(command): \(linked.stderr)")
        }
        #expect(cli.state() == before, "a refused run changed something")

        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "2", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let status = try cli.run(["status", "--json", "--manifest", manifest])
        #expect(status.status == 0, "\(status.stderr)")
        #expect((try status.seeds().first?["refusal"] as? String)?.contains(words) == true, "\(status.stdout)")
        let verify = try cli.run(["verify", "--json", "--manifest", manifest])
        #expect(verify.status == 65, "\(verify.stdout) \(verify.stderr)")
        #expect((try verify.seeds().first?["refusal"] as? String)?.contains(words) == true, "\(verify.stdout)")
        #expect(cli.state() == before, "status or verify changed something")
    }

    /// A seed longer than its header declares (a transaction left unfinished, its
    /// `-journal` beside it, or bytes appended) was refused as "truncated" (a contract
    /// probe): the line says it is longer, and what may have made it so.
    @Test func aSeedLongerThanItsHeaderSaysIsNotCalledTruncated() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let seed = try Self.shipped(cli, 2)
        #expect(try cli.shell("chmod u+w '\(seed)' && truncate -s 16384 '\(seed)' && chmod 0444 '\(seed)'").status == 0)
        let before = cli.state()
        let linked = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 2, seed))
        #expect(linked.status == 65, "\(linked.stdout) \(linked.stderr)")
        #expect(linked.stderr.contains("invalid seed \(seed): its header declares 12288 bytes but 16384 were read (longer than its header declares: a transaction left unfinished in a -journal beside it, or bytes appended); nothing was changed"), "\(linked.stderr)")
        #expect(!linked.stderr.contains("truncated"), "\(linked.stderr)")
        // A copied deploy says the same, and that it may have changed while copied.
        let copied = try cli.run(["deploy"] + Self.flags(cli, 2, seed))
        #expect(copied.status == 65, "\(copied.stdout) \(copied.stderr)")
        #expect(copied.stderr.contains("invalid seed \(seed): its header declares 12288 bytes but 16384 were read (longer than its header declares: a transaction left unfinished in a -journal beside it, or bytes appended, or changed while copying)"), "\(copied.stderr)")
        #expect(cli.state() == before, "a refused run changed something")
    }

    /// A seed the runner cannot read said `cannot read seed X: cannot read X: permission
    /// denied` (a contract probe): the path once, then the cause.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func anUnreadableSeedIsNamedOnce() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 2, mode: "0600")
        let refused = try cli.shell(try Self.nobodysDeploy(cli) + " --seed '\(seed)' --version 2")
        #expect(refused.status == 66, "\(refused.stderr)")
        #expect(refused.stderr == "seeddb: error: cannot read seed \(seed): permission denied\n", "\(refused.stderr)")
    }

    /// The same in a manifest (78; the library's ``Seed`` refuses them too).
    @Test(arguments: [#""preserve": ["progress"]"#, #""merge": "off""#, #""mergeTables": {"levels": "user-wins"}"#, #""preserve": []"#, #""mergeTables": {}"#])
    func aReadOnlyManifestSeedTakesNoCarry(_ member: String) throws {
        let cli = CLIHarness()
        _ = try Self.shipped(cli, 1)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "1", "readOnly": true, \#(member)}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let before = cli.state()
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 78, "\(member): \(result.stderr)")
        #expect(result.stderr.contains("a read-only seed is a link to the seed file, not a copy"), "\(result.stderr)")
        #expect(cli.state() == before)
    }

    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func inSystemModeTheOwnerIsTheAppsUser() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1, mode: "0644") // root's, as a package installs it
        let system = ["--system", "--root", cli.root, "--owner", "nobody"]
        let linked = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 1, seed))
        #expect(linked.status == 0, "a root-owned 0644 seed is read-only for the service account: \(linked.stderr)")
        let workingCopy = cli.root + "/var/lib/\(cli.app)/levels.sqlite"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workingCopy) == seed)

        // `--mode` and `--owner` never reach the seed through the link (an up-to-date run repairs drift).
        let again = try cli.run(["deploy", "--read-only", "--mode", "0600"] + system + Self.flags(cli, 1, seed))
        #expect(again.status == 0, "\(again.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: seed)
        #expect((attributes[.posixPermissions] as? Int) == 0o644 && (attributes[.ownerAccountID] as? Int) == 0, "\(attributes)")

        // The seed given to the service account: it could write it through the link.
        #expect(try cli.shell("chown nobody '\(seed)'").status == 0)
        let settings = cli.bytes(cli.root + "/var/lib/\(cli.app)/settings.json")
        let refused = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 2, seed))
        #expect(refused.status == 73 && refused.stderr.contains("the app's user"), "\(refused.stderr)")
        #expect(cli.bytes(cli.root + "/var/lib/\(cli.app)/settings.json") == settings)
        // Without a write bit too: its owner may set one (`chmod u+w`) and write it.
        #expect(try cli.shell("chmod 0444 '\(seed)'").status == 0)
        let stillRefused = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 2, seed))
        #expect(stillRefused.status == 73 && stillRefused.stderr.contains("uid 65534, the app's user, who may make it writable (mode 0444)"), "\(stillRefused.stderr)")
        #expect(cli.bytes(cli.root + "/var/lib/\(cli.app)/settings.json") == settings)
    }

    /// Root deploys a read-only seed in user mode for another account
    /// (`--owner nobody:nogroup`): a later `status` or `verify` as root, which take no
    /// `--owner`, judged the seed as root's to write (a root-owned 0644 seed, `"refusal"`,
    /// `verify` 73). They judge it as the app's user, the owner of the working copy's
    /// link, as the deploy did; and still find a seed that user could write.
    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func asRootTheOwnerOfTheLinkIsTheAppsUser() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1, mode: "0644")
        let linked = try cli.run(["deploy", "--read-only", "--owner", "nobody:nogroup"] + Self.flags(cli, 1, seed))
        #expect(linked.status == 0, "\(linked.stderr)")
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        let refusal = try status.seeds().first?["refusal"]
        #expect(status.status == 0 && refusal == nil, "\(status.stdout)")
        #expect(try status.seeds().first?["state"] as? String == "up-to-date", "\(status.stdout)")
        let verify = try cli.run(["verify"] + Self.flags(cli, 1, seed))
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)

        // The seed given to that account: it could write it through the link.
        #expect(try cli.shell("chown nobody '\(seed)'").status == 0)
        let refused = try cli.run(["verify"] + Self.flags(cli, 1, seed))
        #expect(refused.status == 73 && refused.stderr.contains("uid 65534, the app's user"), "\(refused.stderr)")
        let reported = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        #expect((try reported.seeds().first?["refusal"] as? String)?.contains("uid 65534, the app's user") == true, "\(reported.stdout)")
    }

    /// A seed the app's user could replace through a directory on its path (one it owns,
    /// or one its group or everyone may write) is refused as a seed it could write is:
    /// the app's user renames its own file into the path and writes the "shipped" seed.
    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func aSeedTheAppsUserCouldReplaceThroughItsDirectoryIsRefused() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let system = ["--system", "--root", cli.root, "--owner", "nobody"]
        for (label, prepare, who) in [
            ("owned by the app's user", "chown nobody '\(cli.root)/share'", "the app's user, uid 65534, through its directory \(cli.root)/share, which it owns"),
            ("writable by its group", "chown root '\(cli.root)/share' && chmod 0775 '\(cli.root)/share'", "its directory's group, through \(cli.root)/share (mode 0775)"),
        ] {
            #expect(try cli.shell(prepare).status == 0)
            let before = cli.state()
            let refused = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 1, seed))
            #expect(refused.status == 73 && refused.stderr.contains("is writable by \(who)"), "\(label): \(refused.stderr)")
            #expect(cli.state() == before, "\(label): the refused run changed something")
        }
        // Through a symbolic link: the directories that hold its target count too.
        let evil = try cli.shell("mkdir '\(cli.root)/evil' && cp '\(seed)' '\(cli.root)/evil/' && chown nobody '\(cli.root)/evil' && ln -s evil '\(cli.root)/via'")
        try #require(evil.status == 0, "\(evil.stderr)")
        let throughLink = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 1, cli.root + "/via/levels.sqlite"))
        #expect(throughLink.status == 73 && throughLink.stderr.contains("uid 65534, through its directory"), "\(throughLink.stderr)")
        // A sticky directory everyone may write (`/tmp`) whose entry is root's is fine.
        #expect(try cli.shell("chmod 1777 '\(cli.root)/share'").status == 0)
        let linked = try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 1, seed))
        #expect(linked.status == 0, "\(linked.stderr)")
    }

    /// A seed path with a newline and a quote in it (a directory may be named so): the
    /// lines that name it stay one line each, the path quoted and escaped.
    @Test func aSeedPathWithAControlCharacterIsQuotedInEveryLine() throws {
        let cli = CLIHarness()
        let folder = cli.root + "/sh\"ip\nx"
        let seed = folder + "/levels.sqlite"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: seed)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: seed)
        let shown = #""\#(cli.root)/sh\"ip\nx/levels.sqlite""#
        let linked = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(linked.status == 0 && linked.stdout.contains("as a read-only link to \(shown) (") && linked.stdout.split(separator: "\n").count == 1, "\(linked.stdout)")
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: seed)
        let refused = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(refused.status == 73 && refused.stderr.contains("\(shown) is writable by everyone") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }

    /// A seed made writable after its link was made (the package renamed in a file of
    /// mode 0666): the app's start refuses (73) instead of saying `unchanged`, the link
    /// stays, and `status` (exit 0) and `verify` (exit 73) report it.
    @Test func aSeedMadeWritableSinceItsLinkIsRefusedAndReported() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        _ = try Self.shipped(cli, 1, mode: "0666")
        let before = cli.state()
        let start = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(start.status == 73 && start.stderr.contains("\(seed) is writable by everyone (mode 0666)"), "\(start.status): \(start.stderr)")
        #expect(cli.state() == before && (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)) == seed)
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        #expect(status.status == 0)
        #expect((try status.seeds().first?["refusal"] as? String)?.contains("writable by everyone") == true, "\(status.stdout)")
        let verify = try cli.run(["verify"] + Self.flags(cli, 1, seed))
        #expect(verify.status == 73 && verify.stderr.contains("writable by everyone"), "\(verify.status): \(verify.stderr)")
        // Read-only again: up to date.
        #expect(try cli.shell("chmod 0444 '\(seed)'").status == 0)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
    }

    /// A service that deploys its own seed as itself (`ExecStartPre=` under `User=`: system
    /// mode, no `--owner`) was taken for root deploying for another account: a seed it owns
    /// and may write was linked, and the app could write the shipped seed through the link.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func aServiceDeployingAsItselfIsTheAppsUser() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1, mode: "0644")
        let nobody = try Self.asNobody(cli)
        let system = cli.root + "/system"
        let prepared = try cli.shell("chmod 755 '\(cli.root)' '\(cli.root)/share' && chown nobody '\(seed)' && mkdir '\(system)' && chown nobody '\(system)'")
        try #require(prepared.status == 0, "\(prepared.stderr)")
        let asService = nobody + " deploy --read-only --system --root '\(system)' --app \(cli.app) --seed '\(seed)' --version 1"
        let refused = try cli.shell(asService)
        #expect(refused.status == 73 && refused.stderr.contains("uid 65534, the app's user"), "\(refused.stderr)")
        #expect(try cli.shell("find '\(system)' -type l -o -type f").stdout.isEmpty, "nothing was linked or recorded")
        // Made read-only for its owner, still refused: the owner may make it writable again.
        let stillRefused = try cli.shell("chmod 0444 '\(seed)' && " + asService)
        #expect(stillRefused.status == 73 && stillRefused.stderr.contains("who may make it writable"), "\(stillRefused.stderr)")
        // Root's, as a package installs it, it is linked.
        let linked = try cli.shell("chown root '\(seed)' && " + asService)
        #expect(linked.status == 0, "\(linked.stderr)")
    }

    /// A read-only deploy into a directory the app's user cannot write (found by a contract
    /// probe) failed with two lines, the first `could not undo the working copy's link`:
    /// the undo of a link that was never made, which failed in turn. One line now (73),
    /// and nothing changed.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func aLinkThatCannotBeMadeFailsWithOneLine() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 2, mode: "0644")
        let asApp = try Self.nobodysDeploy(cli)
        let copied = try cli.shell(asApp + " --seed '\(CLIHarness.seeds)/v1/levels.sqlite' --version 1")
        try #require(copied.status == 0, "\(copied.stderr)")
        try #require(try cli.shell("chmod 555 '\(cli.appData)'").status == 0)
        let before = cli.state()
        let refused = try cli.shell(asApp + " --read-only --seed '\(seed)' --version 2")
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1 && !refused.stderr.contains("could not undo"), "\(refused.stderr)")
        #expect(refused.stderr.contains("permission denied") || refused.stderr.contains("Permission denied"), "\(refused.stderr)")
        #expect(cli.state() == before)
    }

    /// `--owner` over a read-only seed's link that drifted (a `chown` by hand): the
    /// up-to-date deploy said `unchanged` and left the link, its directory and lock file
    /// root's, where a copy's are put back (found by a contract probe). The link is given
    /// the owner again (never the seed it names), with the warning a copy's repair gives.
    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func anUpToDateLinkGetsItsOwnerBack() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1, mode: "0644")
        let system = ["--system", "--root", cli.root, "--owner", "nobody"]
        #expect(try cli.run(["deploy", "--read-only"] + system + Self.flags(cli, 1, seed)).status == 0)
        let directory = cli.root + "/var/lib/\(cli.app)"
        let link = directory + "/levels.sqlite"
        #expect(try cli.shell("chown -h root:root '\(directory)' '\(link)' '\(directory)/levels.sqlite.lock'").status == 0)
        let again = try cli.run(["deploy", "--read-only", "--json"] + system + Self.flags(cli, 1, seed))
        let action = try again.seeds().first?["action"] as? String
        #expect(again.status == 0 && action == "unchanged", "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("owner and mode set as asked: owner 0:0 -> 65534:"), "\(again.stderr)")
        for path in [directory, link, directory + "/levels.sqlite.lock"] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.ownerAccountName] as? String == "nobody", "\(path)")
        }
        let shipped = try FileManager.default.attributesOfItem(atPath: seed)
        #expect((shipped[.ownerAccountID] as? Int) == 0 && (shipped[.posixPermissions] as? Int) == 0o644, "the seed is the package's: \(shipped)")
    }

    /// A dry run with a wrong `--sha256` said it would install the seed; the run exits 65.
    @Test(arguments: [true, false])
    func aDryRunChecksTheExpectedDigestAsTheRunDoes(readOnly: Bool) throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let flags = (readOnly ? ["--read-only"] : []) + Self.flags(cli, 1, seed)
        let wrong = flags + ["--sha256", String(repeating: "0", count: 64)]
        let dry = try cli.run(["deploy", "--dry-run"] + wrong)
        #expect(dry.status == 65 && dry.stderr.contains("invalid seed \(seed): SHA-256 is "), "\(dry.stderr)")
        let run = try cli.run(["deploy"] + wrong)
        #expect(run.status == 65 && run.stderr.hasPrefix(dry.stderr.trimmingCharacters(in: .newlines)), "the same line: \(dry.stderr) / \(run.stderr)")
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)

        let digest = String(try cli.shell("sha256sum '\(seed)'").stdout.prefix(64))
        let right = try cli.run(["deploy", "--dry-run"] + flags + ["--sha256", digest])
        #expect(right.status == 0 && right.stdout.contains("would be installed 1"), "\(right.stdout) \(right.stderr)")
    }

    @Test func aPathThatIsNotPlainIsRefused() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let roundabout = cli.root + "/share/../share/levels.sqlite"
        let result = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, roundabout))
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("not an absolute, stable path"))
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)
        // A relative path (the command runs in the harness's root) is refused as given,
        // not resolved against the directory the command ran in.
        #expect(seed == cli.root + "/share/levels.sqlite")
        let relative = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, "share/levels.sqlite"))
        #expect(relative.status == 73, "\(relative.stderr)")
        #expect(relative.stderr.contains("it is not an absolute path"), "\(relative.stderr)")
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)
    }

    /// A seed refused whatever the disk holds (a path that is not plain, a compressed file)
    /// is refused before the deploy lock: the run makes no directory and no lock file.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"), arguments: ["roundabout", "compressed"])
    func aSeedThatCanNeverBeLinkedIsRefusedBeforeAnythingIsMade(_ kind: String) throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        var given = cli.root + "/share/../share/levels.sqlite"
        if kind == "compressed" {
            #expect(try cli.shell("zstd -q '\(seed)' -o '\(seed).zst'").status == 0)
            given = seed + ".zst"
        }
        let log = cli.root + "/calls.log"
        let arguments = (["deploy", "--read-only"] + Self.flags(cli, 1, given)).map { "'\($0)'" }.joined(separator: " ")
        let strace = try #require(DurabilityOrderTests.strace)
        let traced = try cli.shell("\(strace) -f -qq -e trace=mkdir,mkdirat,openat -o '\(log)' '\(CLIHarness.binary)' \(arguments)")
        #expect(traced.status == (kind == "compressed" ? 78 : 73), "\(traced.stderr)")
        let calls = try String(contentsOfFile: log, encoding: .utf8)
        #expect(!calls.contains("mkdir") && !calls.contains(".lock"), "\(calls)")
        #expect(!FileManager.default.fileExists(atPath: cli.appData) && cli.settings() == nil)
    }

    @Test func switchingBothWaysKeepsTheOldCopyAndRollbackRestoresIt() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE notes(text); INSERT INTO notes VALUES (\"mine\")'").status == 0)

        // Copied -> read-only: the copy, with the user's table, becomes the previous generation.
        let toLink = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(toLink.status == 0, "\(toLink.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy) == seed)
        // (A data seed merges by default: the copy's merge base goes with it.)
        #expect(cli.list(cli.appData) == ["levels.sqlite", "levels.sqlite.lock", "levels.sqlite.previous", "levels.sqlite.previous.base"])
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")

        // status and verify see SeedDB's link, not something in the way.
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        let statusEntry = try #require(try status.seeds().first)
        #expect(statusEntry["state"] as? String == "up-to-date" && statusEntry["seedLink"] as? String == seed, "\(status.stdout)")
        let verify = try cli.run(["verify"] + Self.flags(cli, 1, seed))
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")

        // Rollback: the previous version's copy is back, with the user's table.
        let rollback = try cli.run(["rollback", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT text FROM notes'").stdout == "mine\n")

        // Read-only again (a reseed passes the hold), then copied: the link becomes a new
        // generation, and the copy kept by the switch stays the previous one.
        #expect(try cli.run(["reseed", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        let toCopy = try cli.run(["deploy"] + Self.flags(cli, 1, seed))
        #expect(toCopy.status == 0, "\(toCopy.stderr)")
        let generation = cli.generationFile
        #expect(generation.hasPrefix("levels.sqlite.v"), "\(generation)")
        #expect(cli.settingsEntry()?["readOnly"] == nil && cli.settingsEntry()?["seedLink"] == nil)
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")
        #expect(try cli.levelCount() == 20)
    }

    /// Copied, read-only, copied again: the copy that takes the link's place carries the
    /// user's table and merges their edits from the copy the first switch kept (against
    /// that copy's own base: a row they did not touch takes the new seed's value), and the
    /// next replace keeps them. Before, they were only in the previous generation, which
    /// that replace set aside.
    @Test func aSwitchBackToACopyCarriesWhatTheUserWroteBeforeTheLink() throws {
        let cli = CLIHarness()
        var seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        let wrote = try cli.shell("""
            sqlite3 '\(cli.workingCopy)' "CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine'); \
            UPDATE levels SET background = 'my-cave' WHERE ix = 2; INSERT INTO levels(ix, background, map) VALUES (100, 'my-level', x'00')"
            """)
        #expect(wrote.status == 0, "\(wrote.stderr)")
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        seed = try Self.shipped(cli, 2)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 2, seed)).status == 0)

        // Merging off: the seed's rows come back, and the line names the tables and the
        // copy that keeps the user's changes.
        let off = try cli.clone()
        let replaced = try off.run(["deploy", "--merge", "off"] + Self.flags(off, 2, seed))
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(replaced.stdout.contains("merge is off: the user's changes to 1 seed table (levels) were replaced; the old copy is levels.sqlite.previous"), "\(replaced.stdout)")
        #expect(try off.shell("sqlite3 '\(off.workingCopy)' 'SELECT text FROM notes'").stdout == "mine\n")

        let back = try cli.run(["deploy", "--json"] + Self.flags(cli, 2, seed))
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stderr.isEmpty, "merged against the previous generation's base, with nothing to warn of: \(back.stderr)")
        func rows() throws -> String {
            try cli.shell("""
                sqlite3 '\(cli.workingCopy)' "SELECT group_concat(background, ',') FROM levels WHERE ix IN (1, 2, 100); SELECT text FROM notes; SELECT count(*) FROM levels"
                """).stdout
        }
        // The user's edit and row, the new seed's value where they wrote nothing, their table.
        #expect(try rows() == "forest-hd,my-cave,my-level\nmine\n25\n", "\(back.stdout)")
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")
        // The next replace keeps the previous generation's place for the switched-back copy.
        #expect(try cli.run(["reseed"] + Self.flags(cli, 2, seed)).status == 0)
        #expect(try rows() == "forest-hd,my-cave,my-level\nmine\n25\n")
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")
    }

    /// An app that crashed in WAL mode left its last commits in the copy's `-wal`: the
    /// switch to the link once removed that `-wal` with the copy's other sidecars, and the
    /// previous generation lacked them. The switch takes the writer's lock as a swap does:
    /// the copy leaves WAL first, its frames written into the file.
    @Test func aCrashedAppsCommitsInTheWALAreInTheCopyTheSwitchKeeps() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        let crashed = try cli.shell("""
            python3 - <<'PY'
            import sqlite3, os
            c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
            c.execute('PRAGMA journal_mode=WAL')
            c.execute('PRAGMA wal_autocheckpoint=0')
            c.execute('CREATE TABLE notes(text)')
            c.execute("INSERT INTO notes VALUES ('mine')")
            os._exit(0)
            PY
            """)
        #expect(crashed.status == 0 && cli.list(cli.appData).contains { $0.hasSuffix("-wal") }, "\(crashed.stderr) \(cli.list(cli.appData))")
        let toLink = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(toLink.status == 0, "\(toLink.stderr)")
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")
        #expect(cli.list(cli.appData).allSatisfy { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, "\(cli.list(cli.appData))")
    }

    /// The switch to the link once ignored an app using the copy: a WAL connection kept
    /// open lost its commits (before and after the switch) and a transaction under way had
    /// its commit fail. It now waits as a swap does: for the transaction to end, and for a
    /// copy in WAL mode to be left alone, until `--wait` runs out (75, nothing changed).
    @Test func anAppUsingTheCopyHoldsTheSwitchOff() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        let wal = try cli.hold("""
            import sqlite3
            c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
            c.execute('PRAGMA journal_mode=WAL')
            c.execute('CREATE TABLE notes(text)')
            c.execute("INSERT INTO notes VALUES ('mine')")
            """)
        let before = cli.bytes(cli.settingsFile)
        let refused = try cli.run(["deploy", "--read-only", "--wait", "1"] + Self.flags(cli, 1, seed))
        #expect(refused.status == 75 && refused.stderr.contains("database in use by another process"), "\(refused.status) \(refused.stderr)")
        #expect(cli.bytes(cli.settingsFile) == before && (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy))?.hasPrefix("levels.sqlite.v") == true)
        wal.release()
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT text FROM notes'").stdout == "mine\n")

        // A transaction under way: the switch waits for its commit, which succeeds.
        let started = Date()
        let writer = try cli.shell("""
            python3 - <<'PY' &
            import sqlite3, time
            c = sqlite3.connect('\(cli.workingCopy)', isolation_level=None)
            c.execute('PRAGMA journal_mode=DELETE')
            c.execute('BEGIN IMMEDIATE')
            c.execute("INSERT INTO notes VALUES ('late')")
            time.sleep(1.5)
            c.execute('COMMIT')
            print('committed')
            PY
            sleep 0.5; '\(CLIHarness.binary)' deploy --read-only --wait 10 \(Self.flags(cli, 1, seed).joined(separator: " ")); echo "status $?"; wait
            """)
        #expect(writer.stdout.contains("committed") && writer.stdout.contains("status 0"), "\(writer.stdout) \(writer.stderr)")
        #expect(Date().timeIntervalSince(started) >= 1.4)
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT group_concat(text) FROM notes'").stdout == "mine,late\n")
    }

    /// A plain file put where the record names the link (a backup restored with its links
    /// followed) was taken for the up-to-date link: the next read-only deploy then set
    /// aside the previous generation, the only copy of what the user wrote before the link.
    /// No record matches such a file: it is adopted, and the previous generation kept as an
    /// adopted copy.
    @Test func aFileInTheLinksPlaceIsAdoptedAndThePreviousGenerationKept() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine')\"").status == 0)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        #expect(try cli.shell("cp --remove-destination '\(seed)' '\(cli.workingCopy)' && chmod 0644 '\(cli.workingCopy)'").status == 0)
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        #expect(try status.seeds().first?["state"] as? String != "up-to-date", "\(status.stdout)")
        let relinked = try cli.run(["deploy", "--read-only", "--json"] + Self.flags(cli, 1, seed))
        #expect(relinked.status == 0, "\(relinked.stderr)")
        #expect(try relinked.seeds().first?["adopted"] as? Bool == true, "\(relinked.stdout)")
        let adopted = cli.list(cli.appData).filter { $0.hasPrefix("levels.sqlite.adopted-") }
        #expect(adopted.count == 1, "\(cli.list(cli.appData))")
        #expect(try cli.shell("sqlite3 '\(cli.appData)/\(adopted.first ?? "")' 'SELECT text FROM notes'").stdout == "mine\n")
    }

    /// The same adoption killed after its marker: the run that finishes it recorded the
    /// file as the link's version (the record the marker replaced), with the seed's digest.
    /// It records it as adopted, with its own, as the uninterrupted run does.
    @Test func aKilledAdoptionOfAFileInTheLinksPlaceIsFinishedAsAdopted() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        #expect(try cli.shell("cp --remove-destination '\(seed)' '\(cli.workingCopy)' && chmod 0644 '\(cli.workingCopy)'").status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine')\"").status == 0)
        let killed = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed), environment: ["SEEDDB_TEST_KILL_AFTER": "withdraw"])
        #expect(killed.killedBy != nil && cli.settingsEntry()?["interrupted"] != nil, "\(killed.stderr)")
        let finished = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(finished.status == 0, "\(finished.stderr)")
        let previous = cli.settingsEntry()?["previous"] as? [String: Any]
        #expect(previous?["version"] as? String == "adopted", "\(cli.settingsEntry() ?? [:])")
        let digest = try cli.shell("sha256sum '\(cli.appData)/levels.sqlite.previous' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(previous?["sha256"] as? String == digest)
        #expect(try cli.shell("sqlite3 '\(cli.appData)/levels.sqlite.previous' 'SELECT text FROM notes'").stdout == "mine\n")
    }

    /// A hard link to the seed file at the working-copy path (made by hand): a replace
    /// fenced the old copy, which was the package's file, and every later copy of the seed
    /// came out read-only for the app. Refused (73), the seed untouched.
    @Test func aHardLinkToTheSeedIsNeverWritten() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let shipped = cli.bytes(seed)
        try FileManager.default.createDirectory(atPath: cli.appData, withIntermediateDirectories: true)
        #expect(link(seed, cli.workingCopy) == 0)
        for arguments in [["deploy", "--read-only"], ["deploy"], ["reseed"]] {
            let refused = try cli.run(arguments + Self.flags(cli, 1, seed))
            #expect(refused.status == 73 && refused.stderr.contains("a second name (a hard link) of the seed file"), "\(arguments): \(refused.status) \(refused.stderr)")
        }
        #expect(cli.bytes(seed) == shipped)
    }

    @Test func anExpectedDigestIsCheckedAndRecorded() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let wrong = try cli.run(["deploy", "--read-only", "--sha256", String(repeating: "0", count: 64)] + Self.flags(cli, 1, seed))
        #expect(wrong.status == 65, "\(wrong.stderr)")
        #expect(cli.list(cli.appData).isEmpty && cli.settings() == nil)
        let digest = try cli.shell("sha256sum '\(seed)' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let right = try cli.run(["deploy", "--read-only", "--sha256", digest] + Self.flags(cli, 1, seed))
        #expect(right.status == 0, "\(right.stderr)")
        #expect(cli.settingsEntry()?["sha256"] as? String == digest)
    }

    /// The SHA-256 of the file at `path`.
    static func sha256(_ cli: CLIHarness, _ path: String) throws -> String {
        try cli.shell("sha256sum '\(path)' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The inode of the file at `path`, following links.
    static func inode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    /// Another file renamed into the seed's path at the recorded version (a package's new
    /// content, not its new version) went unnoticed: `deploy` said `unchanged` and
    /// `status` up to date, though `--sha256` fixes the digest, and the app read the
    /// unchecked content through the link (found by a contract probe). The run looks at
    /// the file whose identity changed and refuses it as a deploy of a mismatching seed
    /// does (65, the same line), nothing changed; `status` foresees it; the same content
    /// renamed in again is recorded (its new identity) and `unchanged`.
    @Test func aSeedRenamedInAtTheSameVersionIsCheckedAgainstItsDigest() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let (first, second) = (try Self.sha256(cli, seed), try Self.sha256(cli, "\(CLIHarness.seeds)/v2/levels.sqlite"))
        let flags = ["--read-only", "--sha256", first] + Self.flags(cli, 1, seed)
        #expect(try cli.run(["deploy"] + flags).status == 0)
        _ = try Self.shipped(cli, 2) // new content, the same version
        let before = cli.state()
        let start = try cli.run(["deploy", "--json"] + flags)
        #expect(start.status == 65, "\(start.stdout) \(start.stderr)")
        #expect(start.stderr == "seeddb: error: invalid seed \(seed): SHA-256 is \(second), expected \(first)\n", "\(start.stderr)")
        #expect(cli.state() == before, "the refused run changed something")
        let dry = try cli.run(["deploy", "--dry-run"] + flags)
        #expect(dry.status == 65 && dry.stderr == start.stderr, "\(dry.status) \(dry.stderr)")
        // (`status` and `verify` take the digest from a manifest.)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "1", "sha256": "\#(first)", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["deploy", "--manifest", manifest]).stderr == start.stderr)
        let status = try cli.run(["status", "--json", "--manifest", manifest])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try status.seeds().first?["refusal"] as? String == "invalid seed \(seed): SHA-256 is \(second), expected \(first)", "\(status.stdout)")
        #expect(try cli.run(["verify", "--manifest", manifest]).status == 65)
        #expect(cli.state() == before)
        // The shipped content back, under a new inode: looked at once, then remembered.
        _ = try Self.shipped(cli, 1)
        let back = try cli.run(["deploy", "--json"] + flags)
        #expect(try back.status == 0 && back.seeds().first?["action"] as? String == "unchanged", "\(back.stdout) \(back.stderr)")
        let entry = try #require(cli.settingsEntry())
        let inode = try Self.inode(seed)
        #expect((entry["pristine"] as? [String: Any])?["inode"] as? Int == inode, "\(entry)")
        #expect((entry["source"] as? [String: Any])?["sha256"] as? String == first, "\(entry)")
        #expect(try cli.run(["status", "--json", "--manifest", manifest]).seeds().first?["refusal"] == nil)

        // Accepted unchecked by a run without the digest (a contract probe): a run with it
        // again said `unchanged` over content of another digest. It looks, and refuses.
        _ = try Self.shipped(cli, 2)
        let unchecked = ["--read-only"] + Self.flags(cli, 1, seed)
        #expect(try cli.run(["deploy"] + unchecked).status == 0)
        let checked = try cli.run(["deploy"] + flags)
        #expect(checked.status == 65, "\(checked.stdout) \(checked.stderr)")
        #expect(checked.stderr == start.stderr, "\(checked.stderr)")
        // With the digest the content has, it is looked at once and recorded with it.
        let matching = ["--read-only", "--sha256", second] + Self.flags(cli, 1, seed)
        #expect(try cli.run(["deploy"] + matching).status == 0)
        #expect(try cli.settingsEntry()?["sha256"] as? String == second)
        #expect(try cli.run(["deploy"] + matching).stdout.contains("unchanged"))
    }

    /// The same, for a signed manifest that pins the seed: the refusal is the signed
    /// manifest's line, as a deploy of a seed with another digest than the signed one.
    @Test func aSeedRenamedInBehindASignedManifestIsRefused() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let (publicKey, secretKey) = (cli.root + "/k.pub", cli.root + "/k.key")
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", publicKey, "--secret-key", secretKey]).status == 0)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "serial": 1, "seeds": [{"source": "\#(seed)", "name": "levels.sqlite", "version": "1", "sha256": "\#(try Self.sha256(cli, seed))", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["sign", "--key", secretKey, manifest]).status == 0)
        let installed = try cli.run(["deploy", "--manifest", manifest, "--trusted-key", publicKey])
        #expect(installed.status == 0, "\(installed.stderr)")
        _ = try Self.shipped(cli, 2)
        let before = cli.state()
        let start = try cli.run(["deploy", "--json", "--manifest", manifest])
        #expect(start.status == 65 && start.stderr.contains("the signed manifest says"), "\(start.stdout) \(start.stderr)")
        #expect(cli.state() == before)
        let status = try cli.run(["status", "--json", "--manifest", manifest])
        #expect((try status.seeds().first?["refusal"] as? String)?.contains("the signed manifest says") == true, "\(status.stdout)")
    }

    /// With no expected digest, what the link shows is the seed: another file renamed in
    /// at the recorded version is looked at once (its header: it can still be linked),
    /// its identity recorded, and the run is `unchanged`, the record's date kept.
    @Test func aSeedRenamedInAtTheSameVersionWithoutADigestIsRecorded() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        let deployedAt = try #require(cli.settingsEntry()?["deployedAt"] as? String)
        _ = try Self.shipped(cli, 2)
        let start = try cli.run(["deploy", "--json", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(try start.status == 0 && start.seeds().first?["action"] as? String == "unchanged", "\(start.stdout) \(start.stderr)")
        let entry = try #require(cli.settingsEntry())
        let inode = try Self.inode(seed)
        #expect((entry["pristine"] as? [String: Any])?["inode"] as? Int == inode, "the new file is remembered: \(entry)")
        #expect(entry["deployedAt"] as? String == deployedAt && entry["version"] as? String == "1")
        #expect(try Self.python(cli, cli.workingCopy, "SELECT count(*) FROM levels") == "24\n")
    }

    /// A seed in WAL mode renamed in at the recorded version was accepted silently (at a
    /// new version it is refused, 78: a read-only seed in WAL mode needs a copy). Refused
    /// alike, the line saying the link already serves that file; nothing changed, the link
    /// stays; `status` foresees it.
    @Test func aSeedInWALModeRenamedInAtTheSameVersionIsRefused() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        let wal = cli.root + "/share/.wal"
        #expect(try cli.shell("cp '\(seed)' '\(wal)' && chmod u+w '\(wal)' && sqlite3 '\(wal)' 'PRAGMA journal_mode=WAL' >/dev/null && chmod 0444 '\(wal)' && mv -f '\(wal)' '\(seed)'").status == 0)
        let before = cli.state()
        let start = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(start.status == 78, "\(start.stderr)")
        #expect(start.stderr.contains("\(seed) is in WAL mode") && start.stderr.contains("already serves this file") && start.stderr.hasSuffix("; nothing was changed\n"), "\(start.stderr)")
        #expect(cli.state() == before && (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)) == seed)
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        #expect((try status.seeds().first?["refusal"] as? String)?.contains("is in WAL mode") == true, "\(status.stdout)")
        #expect(try cli.run(["verify"] + Self.flags(cli, 1, seed)).status == 78)
    }

    @Test func aRunKilledAfterItsLinkIsFinishedAndTheCopyKept() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy"] + Self.flags(cli, 1, seed)).status == 0)
        let generation = cli.generationFile
        // Given: what a `link-seed` killed between its link and its record leaves: the link
        // to the seed in place, the record still naming the copied generation.
        #expect(try cli.shell("ln -sfn '\(seed)' '\(cli.workingCopy)'").status == 0)
        // Then: the next read-only deploy knows the link as its own and keeps the copy.
        let rerun = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(!cli.list(cli.appData).contains(generation))
        #expect(cli.list(cli.appData).contains("levels.sqlite.previous"))
        #expect(cli.settingsEntry()?["seedLink"] as? String == seed && cli.settingsEntry()?["generation"] == nil)
        // Without --read-only, that link is not SeedDB's to replace: refused, nothing changed.
        let other = CLIHarness()
        #expect(try other.run(["deploy"] + other.seedFlags(1)).status == 0)
        #expect(try other.shell("ln -sfn '\(seed)' '\(other.workingCopy)'").status == 0)
        let before = other.state()
        #expect(try other.run(["deploy"] + other.seedFlags(2)).status == 73)
        #expect(other.state() == before)
    }

    /// One of SeedDB's own files beside the working copy (its merge base, which the
    /// next switch renames away) is refused as a seed path that is not stable; a
    /// directory as a seed is not a regular file (66), whatever its mode.
    @Test func aSeedThatIsSeedDBsOwnFileOrADirectoryIsRefused() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let base = cli.workingCopy + ".base"
        #expect(try cli.shell("chmod 0444 '\(base)'").status == 0)
        let before = cli.state()
        let own = try cli.run(["deploy", "--read-only", "--name", "levels.sqlite"] + Self.flags(cli, 2, base))
        #expect(own.status == 73, "\(own.stderr)")
        #expect(own.stderr.contains("is one of SeedDB's own files of \(cli.workingCopy)"), "\(own.stderr)")
        #expect(cli.state() == before, "a refused run changed something")
        for mode in ["0755", "0555"] {
            let directory = cli.root + "/dir-\(mode)"
            #expect(try cli.shell("mkdir -p '\(directory)' && chmod \(mode) '\(directory)'").status == 0)
            let result = try cli.run(["deploy", "--read-only", "--name", "d.sqlite"] + Self.flags(cli, 1, directory))
            #expect(result.status == 66, "\(mode): \(result.stderr)")
            #expect(result.stderr.contains("not a regular file"), "\(mode): \(result.stderr)")
        }
    }

    /// `status` and `verify` say what a deploy of a read-only seed not linked yet would
    /// refuse, the compressed seed among it (78), as they say a writable one (73).
    @Test func statusAndVerifyForeseeEveryRefusalOfTheLink() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.shell("zstd -q '\(seed)' -o '\(seed).zst'").status == 0)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite.zst", "name": "levels.sqlite", "version": "1", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let status = try cli.run(["status", "--json", "--manifest", manifest])
        #expect(status.status == 0, "\(status.stderr)")
        #expect((try status.seeds().first?["refusal"] as? String)?.contains("is compressed and needs a copy") == true, "\(status.stdout)")
        let verify = try cli.run(["verify", "--manifest", manifest])
        #expect(verify.status == 78, "\(verify.stderr)")
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 78)
    }

    @Test func maintainLeavesTheSeedAlone() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        let before = cli.bytes(seed)
        let maintain = try cli.run(["maintain", "--json", "--app", cli.app, "--name", "levels.sqlite", "--policy", "vacuum", "--every", "0"])
        #expect(maintain.status == 0, "\(maintain.stderr)")
        #expect(try maintain.seeds().first?["action"] as? String == "skipped", "\(maintain.stdout)")
        #expect(try maintain.seeds().first?["seedLink"] as? String == seed, "\(maintain.stdout)")
        let line = try cli.run(["maintain", "--app", cli.app, "--name", "levels.sqlite", "--every", "0"])
        #expect(line.stdout == "levels.sqlite: skipped (a read-only link to \(seed): nothing to maintain, \(cli.workingCopy))\n", "\(line.stdout)")
        #expect(cli.bytes(seed) == before)
    }

    /// A read-only seed's link whose seed file was removed (the package purged) opens
    /// nothing: `status` and `verify` say the working copy is missing (`verify` said
    /// `unable to open database file`, found by a contract probe), and `deploy` (which
    /// answered `unchanged` once) refuses it as a missing seed (66), changing nothing.
    @Test func aLinkToAGoneSeedIsAMissingWorkingCopy() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        try FileManager.default.removeItem(atPath: seed)
        let status = try cli.run(["status", "--json"] + Self.flags(cli, 1, seed))
        let entry = try #require(try status.seeds().first, "\(status.stdout) \(status.stderr)")
        #expect(entry["exists"] as? Bool == false, "\(status.stdout)")
        #expect(entry["state"] as? String != "up-to-date", "\(status.stdout)")
        let verify = try cli.run(["verify", "--json"] + Self.flags(cli, 1, seed))
        #expect(verify.status == 66, "\(verify.stdout) \(verify.stderr)")
        let checked = try #require(try verify.seeds().first, "\(verify.stdout)")
        #expect(checked["workingCopy"] as? String == "missing" && checked["seed"] as? String == "missing", "\(verify.stdout)")
        let settings = cli.bytes(cli.settingsFile)
        let deploy = try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed))
        #expect(deploy.status == 66, "\(deploy.stdout) \(deploy.stderr)")
        #expect(deploy.stderr.contains("seed not found: \(seed)") && deploy.stderr.hasSuffix("nothing was changed\n"), "\(deploy.stderr)")
        #expect(cli.bytes(cli.settingsFile) == settings)
    }

    @Test func purgeRemovesTheLinkAndNeverTheSeed() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        #expect(try cli.run(["deploy", "--read-only"] + Self.flags(cli, 1, seed)).status == 0)
        let purge = try cli.run(["purge", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(FileManager.default.fileExists(atPath: seed), "purge removed the shipped seed")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)) == nil)
        #expect(cli.settings() == nil)
    }

    @Test func aManifestSaysReadOnly() throws {
        let cli = CLIHarness()
        let seed = try Self.shipped(cli, 1)
        let manifest = cli.root + "/share/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "levels.sqlite", "version": "1", "readOnly": true}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let result = try cli.run(["deploy", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy) == seed)
    }
}
