import Foundation
import SeedDB
import Testing

/// Kills between two system calls: every command (install, upgrade, reseed, rollback,
/// a plain upgrade with merging off, merged upgrade, live replace) is killed at each of its mutating system calls in turn
/// (`strace -e inject=SYSCALL:signal=KILL:when=N` for `rename`, `fsync`, `unlink`,
/// `symlink`, `link` and `write`), then the same command is run again, as a package's
/// post-install script would be. After the rerun: the job finished, the record, the link,
/// the generation file, the previous generation and the merge base agree, the user's rows
/// and edit are there, and nothing SeedDB made is left.
@Suite(.serialized, .enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
struct RecoveryAfterSyscallKillTests {
    /// One command and the state it starts from.
    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        /// Makes the starting state.
        var setUp: @Sendable (CLIHarness) throws -> Void
        /// The command killed, then run again.
        var command: @Sendable (CLIHarness) -> [String]
        /// The version recorded once the command's job is done.
        var version: String
        /// Whether the user's edit of seeded row 1 must survive (a merge).
        var keepsEdit = false
        /// Whether a previous generation must exist once the job is done.
        var keepsPrevious = true
        /// Whether the record must hold the seed tables' digests (a data seed whose merging
        /// is off keeps no base: they name what a later replace replaces).
        var recordsTableDigests = false
        var testDescription: String { name }
    }

    static func deploy(_ cli: CLIHarness, _ version: Int, _ extra: [String] = []) throws {
        let result = try cli.run(["deploy"] + cli.seedFlags(version) + extra)
        #expect(result.status == 0, "setting up: \(result.stderr)")
    }

    /// The app's own table with one row, and an edit of a seeded row.
    static func write(_ cli: CLIHarness, probe: Int) throws {
        let result = try cli.shell("""
            sqlite3 '\(cli.workingCopy)' "CREATE TABLE IF NOT EXISTS probe(id INTEGER PRIMARY KEY); INSERT INTO probe VALUES (\(probe)); UPDATE levels SET background = 'edited by the user' WHERE ix = 1;"
            """)
        #expect(result.status == 0, "\(result.stderr)")
    }

    static let merge = ["--merge", "user-wins"]
    /// A data seed merges by default: the plain replace is asked for.
    static let off = ["--merge", "off"]

    static let scenarios: [Scenario] = [
        Scenario(name: "install", setUp: { _ in }, command: { ["deploy"] + $0.seedFlags(1) }, version: "1", keepsPrevious: false),
        Scenario(name: "upgrade", setUp: { cli in try deploy(cli, 1); try write(cli, probe: 1) },
                 command: { ["deploy"] + $0.seedFlags(2) }, version: "2"),
        Scenario(name: "reseed", setUp: { cli in try deploy(cli, 1); try write(cli, probe: 1) },
                 command: { ["reseed"] + $0.seedFlags(1) }, version: "1"),
        Scenario(name: "rollback", setUp: { cli in try deploy(cli, 1); try write(cli, probe: 1); try deploy(cli, 2); try write(cli, probe: 2) },
                 command: { ["rollback"] + $0.seedFlags(2) }, version: "1", keepsPrevious: false),
        // The plain replace, with its `fingerprint` step and the tables it names.
        Scenario(name: "upgrade, merging off", setUp: { cli in try deploy(cli, 1, off); try write(cli, probe: 1) },
                 command: { ["deploy"] + $0.seedFlags(2) + off }, version: "2", recordsTableDigests: true),
        Scenario(name: "merged upgrade", setUp: { cli in try deploy(cli, 1, merge); try write(cli, probe: 1) },
                 command: { ["deploy"] + $0.seedFlags(2) + merge }, version: "2", keepsEdit: true),
        Scenario(name: "live replace", setUp: { cli in try deploy(cli, 1); try write(cli, probe: 1) },
                 command: { ["deploy", "--strategy", "live"] + $0.seedFlags(2) }, version: "2"),
        // A live replace cut between its commit and its record once recorded the snapshot
        // it took of the new content as the old version's previous generation.
        Scenario(name: "live reseed", setUp: { cli in try deploy(cli, 1); try write(cli, probe: 1) },
                 command: { ["reseed", "--strategy", "live"] + $0.seedFlags(1) }, version: "1"),
        // A merged rollback cut after it moved the base once recorded the base it replaced.
        Scenario(name: "merged rollback",
                 setUp: { cli in try deploy(cli, 1, merge); try write(cli, probe: 1); try deploy(cli, 2, merge); try write(cli, probe: 2) },
                 command: { ["rollback"] + $0.seedFlags(2) + merge }, version: "1", keepsEdit: true, keepsPrevious: false),
    ]

    /// Whether `scenario` is a rollback (whose rerun, once the first run recorded and
    /// cleaned up, has nothing left to roll back).
    static func rollsBack(_ scenario: Scenario) -> Bool { scenario.name.hasSuffix("rollback") }

    @Test(arguments: scenarios)
    func killedAtEverySyscallAndRunAgain(_ scenario: Scenario) throws {
        let template = CLIHarness()
        try scenario.setUp(template)
        let tallies = try SyscallKillMatrix.killAtEveryCall(of: scenario.command, from: template, label: scenario.name) { cli, rerun in
            check(cli, scenario, rerun: rerun)
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (\(scenario.name))", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }

    /// A rollback or reseed killed at each of its renames, then not run again: the app
    /// starts (`deploy` of the version it ships) and finishes or undoes it. It once
    /// answered "unchanged" for good, the version unrecorded and the marker left, when the
    /// kill came before the link's switch. After the start: no marker, the recorded
    /// version is the one the working copy holds, the user's rows are there.
    @Test(arguments: scenarios.filter { ["rollback", "reseed"].contains($0.name) })
    func killedAtEveryRenameThenTheAppStarts(_ scenario: Scenario) throws {
        let template = CLIHarness()
        try scenario.setUp(template)
        let shipped = Self.rollsBack(scenario) ? 2 : 1
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: scenario.command, from: template, label: scenario.name + ", then the app's start", syscalls: ["rename"],
            rerun: { ["deploy"] + $0.seedFlags(shipped) }
        ) { cli, start in
            var problems: [String] = []
            if start.status != 0 { problems.append("the app's start exited \(start.status): \(start.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["interrupted"] != nil { problems.append("the record still says a run is under way") }
            let recorded = entry["version"] as? String
            let held = Self.seedVersion(cli, of: cli.workingCopy)
            if recorded == nil || recorded != held { problems.append("recorded \(recorded ?? "nothing"), the working copy holds \(held ?? "unknown")") }
            let probes = (try? cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe'").stdout) ?? ""
            let expected = Self.rollsBack(scenario) ? "1,2" : "1"
            if probes.trimmingCharacters(in: .whitespacesAndNewlines) != expected { problems.append("the app's rows are \(probes), expected \(expected)") }
            return problems
        }
        #expect(SyscallKillMatrix.total(tallies).killed > 0, "no kill took effect: \(tallies)")
    }

    /// `reseed --merge off` killed after its switch and run again finished the killed
    /// reseed and then reseeded once more, replacing the previous generation it had just
    /// kept, the only copy of the user's edit: it was in no file. Now the rerun is done
    /// once it finished the killed reseed, and the edit is in `<name>.previous`; so is a
    /// release's (`reseed --manifest`, two seeds), which once still reseeded twice.
    @Test(arguments: [false, true])
    func aReseedWithMergingOffKilledAnywhereKeepsTheEditInThePreviousGeneration(withManifest: Bool) throws {
        let template = CLIHarness()
        let source = "\(CLIHarness.seeds)/v1/levels.sqlite"
        let manifest = #"{"app":"\#(template.app)","seeds":["#
            + #"{"source":"\#(source)","name":"levels.sqlite","version":"1"},{"source":"\#(source)","name":"words.sqlite","version":"1"}]}"#
        try manifest.write(toFile: template.root + "/seeds.json", atomically: false, encoding: .utf8)
        let seed: @Sendable (CLIHarness) -> [String] = { withManifest ? ["--manifest", $0.root + "/seeds.json"] : $0.seedFlags(1) }
        let installed = try template.run(["deploy"] + seed(template))
        #expect(installed.status == 0, "setting up: \(installed.stderr)")
        try Self.write(template, probe: 1)
        // The trials whose kill came before the reseed's record: a marker, or no previous
        // generation yet. (Killed after its record, while cleaning up, the reseed was done
        // and the rerun is another, which replaces the previous generation as asked.)
        final class Unrecorded { var roots: Set<String> = []; var marked = 0 }
        let unrecorded = Unrecorded()
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { ["reseed"] + seed($0) + Self.off }, from: template, label: "reseed\(withManifest ? " --manifest" : ""), merging off",
            syscalls: ["rename", "fsync"],
            rerun: { cli in
                let marked = cli.settingsEntry()?["interrupted"] != nil
                if marked { unrecorded.marked += 1 }
                if marked || !FileManager.default.fileExists(atPath: cli.appData + "/levels.sqlite.previous") {
                    unrecorded.roots.insert(cli.root)
                }
                return ["reseed"] + seed(cli) + Self.off
            }
        ) { cli, rerun in
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
            let kept = (try? cli.shell("sqlite3 -readonly '\(cli.appData)/levels.sqlite.previous' 'SELECT background FROM levels WHERE ix = 1'").stdout) ?? ""
            if unrecorded.roots.contains(cli.root), !kept.hasPrefix("edited by the user") {
                problems.append("the user's edit is not in the previous generation: \(kept.isEmpty ? "no previous generation" : kept)")
            }
            return problems
        }
        #expect(SyscallKillMatrix.total(tallies).killed > 0, "no kill took effect: \(tallies)")
        #expect(unrecorded.marked > 0, "no kill came between the marker and the record")
    }

    /// A dry run after a reseed killed between its switch and its record says the finish
    /// is the whole run, and changes nothing; the rerun then reports `reseeded` once.
    @Test func aDryRunAfterAKilledReseedSaysItsFinishIsTheWholeRun() throws {
        // Switched: the link no longer names the generation the record named.
        let switched = try Self.killedReseeds { link, marker, entry in link != entry["generation"] as? String }
        #expect(!switched.isEmpty, "no kill came between the switch and the record")
        for cli in switched {
            let before = try cli.shell("cd '\(cli.root)' && find data config -exec stat -c '%n %s %Y' {} + | sort && cat config/*/settings.json").stdout
            let dry = try cli.run(["reseed", "--dry-run"] + cli.seedFlags(1) + Self.off)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stderr.contains("a run that was interrupted would be finished; it is the run asked for, and nothing more would be done"), "\(dry.stderr)")
            #expect(dry.stdout.contains("would be reseeded"), "\(dry.stdout)")
            let after = try cli.shell("cd '\(cli.root)' && find data config -exec stat -c '%n %s %Y' {} + | sort && cat config/*/settings.json").stdout
            #expect(after == before, "the dry run changed something")
            let rerun = try cli.run(["reseed", "--json"] + cli.seedFlags(1) + Self.off)
            #expect(try rerun.seeds().first?["action"] as? String == "reseeded", "\(rerun.stdout)")
        }
    }

    /// Clones of a working copy at 1 with the user's row and edit, each with
    /// `reseed --merge off` killed at one of its first 16 renames, that were left with a
    /// marker and a link for which `matches` holds (the link's target, the marker, the entry).
    static func killedReseeds(_ matches: (String, [String: Any], [String: Any]) -> Bool) throws -> [CLIHarness] {
        let template = CLIHarness()
        try deploy(template, 1)
        try write(template, probe: 1)
        var found: [CLIHarness] = []
        for when in 1...16 {
            let cli = try template.clone()
            let (killed, _) = try SyscallKillMatrix.traced(cli, ["reseed"] + cli.seedFlags(1) + off, kill: ("rename", when))
            let entry = cli.settingsEntry() ?? [:]
            guard killed.killedBy == SIGKILL, let marker = entry["interrupted"] as? [String: Any],
                  let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy),
                  matches(link, marker, entry) else { continue }
            found.append(cli)
        }
        return found
    }

    /// A reseed killed between its switch and its record, met by the app's `deploy`: the
    /// finish says what the killed run was, `reseeded`, and the deploy then has nothing
    /// to do. It said `replaced`: the marker did not say the run was a reseed.
    @Test func theAppsDeploySaysAKilledReseedItFinishedWasAReseed() throws {
        let switched = try Self.killedReseeds { link, marker, entry in link != entry["generation"] as? String }
        #expect(!switched.isEmpty, "no kill came between the switch and the record")
        for cli in switched {
            #expect(((cli.settingsEntry()?["interrupted"] as? [String: Any])?["reseed"] as? Bool) == true)
            let deploy = try cli.run(["deploy", "--json"] + cli.seedFlags(1) + Self.off)
            #expect(deploy.status == 0, "\(deploy.stderr)")
            #expect(deploy.stderr.contains("finished a run that was interrupted (reseeded 1)"), "\(deploy.stderr)")
            #expect(try deploy.seeds().first?["action"] as? String == "reseeded", "\(deploy.stdout)")
        }
    }

    /// A reseed killed before its switch, with no previous generation yet, then a
    /// `rollback`: nothing to roll back (66), but the killed run is undone first, as any
    /// run that copies nothing undoes it. The rollback once left its marker, and `status`
    /// said `not-installed` with the working copy in place. Its dry run fails the same
    /// way and changes nothing.
    @Test func aRollbackWithNothingToRollBackUndoesAReseedKilledBeforeItsSwitch() throws {
        // Not switched: the link still names the generation the marker replaces.
        let unswitched = try Self.killedReseeds { link, marker, _ in link == marker["replacingGeneration"] as? String }
        #expect(!unswitched.isEmpty, "no kill came between the marker and the switch")
        for cli in unswitched {
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)
            let rollback = ["rollback", "--app", cli.app, "--name", "levels.sqlite"]
            let listing = cli.list(cli.appData)
            let dry = try cli.run(rollback + ["--dry-run"])
            #expect(dry.status == 66 && dry.stderr.contains("would be undone first"), "\(dry.status): \(dry.stderr)")
            #expect(cli.list(cli.appData) == listing && cli.settingsEntry()?["interrupted"] != nil, "the dry run changed something")
            let refused = try cli.run(rollback)
            #expect(refused.status == 66 && refused.stderr.contains("no previous generation"), "\(refused.status): \(refused.stderr)")
            let entry = cli.settingsEntry() ?? [:]
            #expect(entry["interrupted"] == nil && entry["version"] as? String == "1" && entry["generation"] as? String == link, "\(entry)")
            let status = try cli.run(["status", "--json"] + cli.seedFlags(1))
            #expect(try status.seeds().first?["state"] as? String != "not-installed", "\(status.stdout)")
            let probes = try cli.shell("sqlite3 -readonly '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe'").stdout
            #expect(probes == "1\n")
        }
    }

    /// A reseed killed while it wrote the settings (its temporary settings file written,
    /// not yet renamed), then the app's start (`deploy`, nothing to copy): the start
    /// removes the staged files and the temporary settings file too. It once left the
    /// latter until a run that wrote the settings.
    @Test func theAppsStartRemovesATemporarySettingsFileAKilledRunLeft() throws {
        let template = CLIHarness()
        try Self.deploy(template, 1)
        try Self.write(template, probe: 1)
        var leftTemporary = 0
        for (name, when) in (1...12).flatMap({ [("fsync", $0), ("rename", $0)] }) {
            let cli = try template.clone()
            let (killed, _) = try SyscallKillMatrix.traced(cli, ["reseed"] + cli.seedFlags(1) + Self.off, kill: (name, when))
            let settingsDirectory = cli.root + "/config/" + cli.app
            guard killed.killedBy == SIGKILL, cli.list(settingsDirectory).contains(where: { $0.hasPrefix(".settings.json.seeddb-") }) else { continue }
            leftTemporary += 1
            let start = try cli.run(["deploy"] + cli.seedFlags(1))
            #expect(start.status == 0, "\(name) #\(when): \(start.stderr)")
            let hidden = cli.list(settingsDirectory).filter { $0.hasPrefix(".") } + cli.list(cli.appData).filter { $0.hasPrefix(".") }
            #expect(hidden.isEmpty, "\(name) #\(when): left \(hidden)")
        }
        #expect(leftTemporary > 0, "no kill left a temporary settings file")
    }

    /// A merging live upgrade killed in its record step, after its commit and after the
    /// new seed's base took `<name>.base`, was redone merging without a base: a seeded row
    /// the user deleted came back (a merge without a base cannot tell a deletion from the
    /// seed's row). The redo now merges against the base in place, the new seed's, which
    /// leaves the committed content as it is; killed anywhere else, against the old one.
    @Test func aLiveMergedUpgradeKilledAnywhereKeepsTheUsersDeletion() throws {
        let template = CLIHarness()
        try Self.deploy(template, 1, Self.merge)
        let edit = try template.shell("sqlite3 '\(template.workingCopy)' 'DELETE FROM levels WHERE ix = 3'")
        #expect(edit.status == 0, "\(edit.stderr)")
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { ["deploy", "--strategy", "live"] + $0.seedFlags(2) + Self.merge }, from: template, label: "live merged upgrade, a deletion",
            syscalls: ["rename", "fsync"]
        ) { cli, rerun in
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
            if rerun.stderr.contains("merging without a base") { problems.append("the rerun merged without a base: \(rerun.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["version"] as? String != "2" || entry["interrupted"] != nil { problems.append("recorded \(entry["version"] ?? "nothing"), marker \(entry["interrupted"] != nil)") }
            let rows = (try? cli.shell("sqlite3 -readonly '\(cli.workingCopy)' 'SELECT count(*) FROM levels WHERE ix = 3; SELECT count(*) FROM levels'").stdout) ?? ""
            if rows.split(separator: "\n") != ["0", "23"] { problems.append("the deleted row 3 and the 24 levels of v2 less it: \(rows)") }
            return problems
        }
        #expect(SyscallKillMatrix.total(tallies).killed > 0, "no kill took effect: \(tallies)")
    }

    /// A database put at the working-copy path (an install made before generations, or a
    /// file of the user's) is adopted by a swap. Killed at any call and run again: a kill
    /// after the switch left its content under a hidden second name (`.…old.tmp`) for
    /// good, one before left the run's new generation beside it (nothing proved it was
    /// never linked). Now the first is kept as an adopted copy and the second removed: the
    /// user's rows are in the working copy, the adopted content in `.previous` or an
    /// adopted copy, and nothing hidden or stray is left.
    @Test func aDatabasePutInPlaceIsAdoptedWhereverTheSwapIsKilled() throws {
        let template = CLIHarness()
        let put = try template.shell("mkdir -p '\(template.appData)' && cp '\(CLIHarness.seeds)/v1/levels.sqlite' '\(template.workingCopy)' && chmod 0644 '\(template.workingCopy)'")
        #expect(put.status == 0, "\(put.stderr)")
        try Self.write(template, probe: 1)
        let tallies = try SyscallKillMatrix.killAtEveryCall(of: { ["deploy"] + $0.seedFlags(1) }, from: template, label: "adopting a database put in place") { cli, rerun in
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["version"] as? String != "1" { problems.append("recorded \(entry["version"] ?? "nothing"), expected 1") }
            if entry["interrupted"] != nil { problems.append("the record still says a run is under way") }
            let generation = entry["generation"] as? String
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)
            if link == nil || link != generation { problems.append("the link points at \(link ?? "nothing"), the record names \(generation ?? "nothing")") }
            let listing = cli.list(cli.appData)
            let strays = listing.filter { $0.hasPrefix("levels.sqlite.v") && $0 != generation }
            if !strays.isEmpty { problems.append("generation files left: \(strays)") }
            let hidden = listing.filter { $0.hasPrefix(".") }
            if !hidden.isEmpty { problems.append("hidden files left: \(hidden)") }
            let probes = (try? cli.shell("sqlite3 -readonly '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe'").stdout) ?? ""
            if probes.trimmingCharacters(in: .whitespacesAndNewlines) != "1" { problems.append("the app's rows are \(probes), expected 1") }
            // The adopted content, the user's edit of a seeded row with it: kept whole.
            let keepers = listing.filter { $0 == "levels.sqlite.previous" || $0.hasPrefix("levels.sqlite.adopted-") }
            let edited = keepers.filter { name in
                ((try? cli.shell("sqlite3 -readonly '\(cli.appData)/\(name)' 'SELECT background FROM levels WHERE ix = 1'").stdout) ?? "").hasPrefix("edited by the user")
            }
            if edited.isEmpty { problems.append("the adopted database's edit is in no kept file: \(listing)") }
            return problems
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (adopting a database put in place)", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }

    /// The demo seed version whose rows the database at `path` holds, by its number of
    /// levels (opened read-only, so nothing is created beside it).
    static func seedVersion(_ cli: CLIHarness, of path: String) -> String? {
        let count = (try? cli.shell("sqlite3 -readonly '\(path)' 'SELECT count(*) FROM levels'").stdout)?.trimmingCharacters(in: .whitespacesAndNewlines)
        return ["20": "1", "24": "2"][count ?? ""]
    }

    /// What is wrong with the state a rerun left.
    func check(_ cli: CLIHarness, _ scenario: Scenario, rerun: CLIHarness.Result) -> [String] {
        var problems: [String] = []
        let entry = cli.settingsEntry() ?? [:]
        // A rollback whose first run recorded and cleaned up has nothing left to roll back:
        // 66 is the job done (a rerun finishes a clean-up the kill cut short, exit 0).
        let done = rerun.status == 0 || (Self.rollsBack(scenario) && rerun.status == 66 && entry["heldFrom"] as? String == "2")
        if !done { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
        if entry["version"] as? String != scenario.version { problems.append("recorded \(entry["version"] ?? "nothing"), expected \(scenario.version)") }
        if entry["interrupted"] != nil { problems.append("the record still says a run is under way") }
        let generation = entry["generation"] as? String
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)
        if link == nil || link != generation { problems.append("the link points at \(link ?? "nothing"), the record names \(generation ?? "nothing")") }
        let listing = cli.list(cli.appData)
        if let generation, !listing.contains(generation) { problems.append("the generation file \(generation) is gone") }
        let strays = listing.filter { $0.hasPrefix("levels.sqlite.v") && !$0.hasPrefix(generation ?? "-") }
        if !strays.isEmpty { problems.append("generation files left: \(strays)") }
        let temporary = listing.filter { $0.hasPrefix(".") } + cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix(".") }
        if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
        let previousRecorded = entry["previous"] != nil
        let previousOnDisk = listing.contains("levels.sqlite.previous")
        if previousRecorded != previousOnDisk { problems.append("previous recorded \(previousRecorded), on disk \(previousOnDisk)") }
        if scenario.keepsPrevious && !previousOnDisk { problems.append("no previous generation to roll back to") }
        // Each file holds the version its record names (v1's seed has 20 levels, v2's 24).
        let contents = [("the working copy", cli.workingCopy, entry["version"] as? String),
                        ("the previous generation", cli.appData + "/levels.sqlite.previous", (entry["previous"] as? [String: Any])?["version"] as? String)]
        for (what, path, recorded) in contents where recorded != nil && FileManager.default.fileExists(atPath: path) {
            let held = Self.seedVersion(cli, of: path)
            if held != recorded { problems.append("\(what) holds version \(held ?? "unknown")'s rows, recorded as \(recorded!)") }
        }
        if let base = entry["base"] as? String {
            let digest = (try? FileDigest.sha256(ofFileAt: cli.appData + "/levels.sqlite.base"))?.hex
            if digest != base { problems.append("the base's file (\(digest ?? "missing")) is not the recorded base \(base)") }
        } else if scenario.keepsEdit {
            problems.append("no merge base recorded")
        }
        if scenario.recordsTableDigests, (entry["tableDigests"] as? [String: Any])?["levels"] == nil {
            problems.append("no table digests recorded: \(entry.keys.sorted())")
        }
        let probes = (try? cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe'").stdout) ?? ""
        let expected = scenario.name == "install" ? "" : Self.rollsBack(scenario) ? "1,2" : "1"
        if probes.trimmingCharacters(in: .whitespacesAndNewlines) != expected { problems.append("the app's rows are \(probes.trimmingCharacters(in: .whitespacesAndNewlines)), expected \(expected)") }
        if scenario.keepsEdit {
            let name = (try? cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT background FROM levels WHERE ix = 1'").stdout) ?? ""
            if !name.hasPrefix("edited by the user") { problems.append("the user's edit is gone: \(name)") }
        }
        return problems
    }
}
