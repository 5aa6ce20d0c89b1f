import Foundation
import SeedDBTestSupport
import Testing

/// A read-only seed's deploys killed between two system calls (as
/// `RecoveryAfterSyscallKillTests` does for copies: `strace -e inject=…:signal=KILL`
/// at each `rename`, `fsync`, `unlink`, `symlink`, `link` and `write` in turn), then run
/// again: the link names the seed the record names, the copy a switch replaced is the
/// previous generation with the user's rows, and nothing SeedDB made is left.
@Suite(.serialized, .enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"),
       .enabled(if: getuid() == 0, "a read-only seed the app's user owns is refused: the seeds these tests make are root's only when they run as root"))
struct ReadOnlySwitchSurvivesKillsTests {
    /// Demo seeds v1 and v2 as a package ships them (mode 0444), at paths every cloned
    /// harness shares: a link names an absolute path.
    static let shipped: TemporaryDirectory = {
        let directory = TemporaryDirectory(prefix: "seeddb-readonly-kills")
        for version in [1, 2] {
            let folder = directory.file("v\(version)")
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try? FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v\(version)/levels.sqlite", toPath: folder + "/levels.sqlite")
            try? FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/levels.sqlite")
        }
        return directory
    }()

    static func seed(_ version: Int) -> String { shipped.file("v\(version)/levels.sqlite") }

    static func readOnly(_ cli: CLIHarness, _ version: Int) -> [String] {
        ["deploy", "--read-only", "--app", cli.app, "--seed", seed(version), "--version", "\(version)"]
    }

    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        var setUp: @Sendable (CLIHarness) throws -> Void
        var command: @Sendable (CLIHarness) -> [String]
        /// The version recorded once the job is done.
        var version: String
        /// The seed the working copy links to once the job is done; `nil`: a copy.
        var linksTo: String?
        /// The app's rows (`probe`) the previous generation holds once the job is done,
        /// `nil` when there is none; the working copy's for a copy.
        var probes: String?
        /// The version the previous generation is recorded at once the job is done, when
        /// the scenario says.
        var previousVersion: String? = nil
        var testDescription: String { name }
    }

    static func run(_ cli: CLIHarness, _ arguments: [String]) throws {
        let result = try cli.run(arguments)
        #expect(result.status == 0, "setting up: \(result.stderr)")
    }

    static func probe(_ cli: CLIHarness) throws {
        let result = try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE probe(id INTEGER PRIMARY KEY); INSERT INTO probe VALUES (1)'")
        #expect(result.status == 0, "\(result.stderr)")
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "read-only install", setUp: { _ in }, command: { readOnly($0, 2) }, version: "2", linksTo: seed(2), probes: nil),
        Scenario(name: "copied to read-only", setUp: { cli in try run(cli, ["deploy"] + cli.seedFlags(1)); try probe(cli) },
                 command: { readOnly($0, 2) }, version: "2", linksTo: seed(2), probes: "1"),
        Scenario(name: "read-only to copied", setUp: { cli in try run(cli, readOnly(cli, 1)) },
                 command: { ["deploy"] + $0.seedFlags(2) }, version: "2", linksTo: nil, probes: nil),
        // The copy made in the link's place carries the user's table from the previous
        // generation, which stays recorded as the copy it is.
        Scenario(name: "copied, read-only, copied again",
                 setUp: { cli in try run(cli, ["deploy"] + cli.seedFlags(1)); try probe(cli); try run(cli, readOnly(cli, 2)) },
                 command: { ["deploy"] + $0.seedFlags(2) }, version: "2", linksTo: nil, probes: "1", previousVersion: "1"),
        // A database put at the working-copy path (an install made before generations):
        // the switch holds it under a second name, then makes it the previous generation.
        // Killed in between, it once became an adopted copy instead, which no rollback restores.
        Scenario(name: "a database put in place, to read-only",
                 setUp: { cli in
                     let put = try cli.shell("mkdir -p '\(cli.appData)' && cp '\(CLIHarness.seeds)/v1/levels.sqlite' '\(cli.workingCopy)' && chmod 0644 '\(cli.workingCopy)'")
                     #expect(put.status == 0, "\(put.stderr)")
                     try probe(cli)
                 },
                 command: { readOnly($0, 2) }, version: "2", linksTo: seed(2), probes: "1"),
        Scenario(name: "rollback from read-only",
                 setUp: { cli in try run(cli, ["deploy"] + cli.seedFlags(1)); try probe(cli); try run(cli, readOnly(cli, 2)) },
                 command: { ["rollback", "--app", $0.app, "--name", "levels.sqlite"] }, version: "1", linksTo: nil, probes: "1"),
    ]

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

    /// A switch from a copy to a read-only link killed anywhere, then the app's start with
    /// its copied seed instead of the same command (an older package's app, or one that
    /// ships the seed copied again): the switch is finished (or, killed before its link,
    /// undone) first, never refused as a link SeedDB did not make, and `verify` passes.
    @Test func aKilledSwitchIsFinishedByTheAppsCopiedStart() throws {
        let template = CLIHarness()
        try Self.run(template, ["deploy"] + template.seedFlags(1))
        try Self.probe(template)
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { Self.readOnly($0, 2) }, from: template, label: "copied to read-only, then the app's copied start",
            rerun: { ["deploy"] + $0.seedFlags(1) }
        ) { cli, rerun in
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the app's start exited \(rerun.status): \(rerun.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["version"] as? String != "1" { problems.append("recorded \(entry["version"] ?? "nothing"), expected 1") }
            if entry["interrupted"] != nil { problems.append("the record still says a run is under way") }
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)
            if link == nil || link != entry["generation"] as? String { problems.append("the link points at \(link ?? "nothing"), the record names \(entry["generation"] ?? "nothing")") }
            // The user's rows: still in the copy (undone), or in the previous generation the switch kept.
            let holders = [cli.workingCopy, cli.appData + "/levels.sqlite.previous"].filter { FileManager.default.fileExists(atPath: $0) }
            let rows = holders.map { holder in
                ((try? cli.shell("sqlite3 -readonly '\(holder)' 'SELECT group_concat(id) FROM probe' 2>/dev/null").stdout) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if !rows.contains("1") { problems.append("the user's row is in no file: \(rows)") }
            let temporary = cli.list(cli.appData).filter { $0.hasPrefix(".") }
            if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
            if let verify = try? cli.run(["verify"] + cli.seedFlags(1)), verify.status != 0 { problems.append("verify exited \(verify.status): \(verify.stderr)") }
            return problems
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (copied to read-only, then the app's copied start)", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }

    /// A database put at the working-copy path, its switch to a read-only link killed
    /// anywhere, then `rollback`: the killed switch is finished and rolled back (the
    /// database is the working copy again) or, killed before its link, undone and the
    /// rollback refused (66, nothing to roll back). Either way no marker is left: the
    /// rollback once refused with the killed run's marker still in the record.
    @Test func aKilledSwitchOfAPutDatabaseIsFinishedOrUndoneByARollback() throws {
        let template = CLIHarness()
        let put = try template.shell("mkdir -p '\(template.appData)' && cp '\(CLIHarness.seeds)/v1/levels.sqlite' '\(template.workingCopy)' && chmod 0644 '\(template.workingCopy)'")
        #expect(put.status == 0, "\(put.stderr)")
        try Self.probe(template)
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { Self.readOnly($0, 2) }, from: template, label: "a database put in place, to read-only, then rollback",
            rerun: { ["rollback", "--app", $0.app, "--name", "levels.sqlite"] }
        ) { cli, rerun in
            var problems: [String] = []
            if rerun.status != 0 && rerun.status != 66 { problems.append("the rollback exited \(rerun.status): \(rerun.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["interrupted"] != nil { problems.append("the record still says a run is under way (rollback exited \(rerun.status): \(rerun.stderr))") }
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)) == Self.seed(2) { problems.append("the working copy is still the link to the seed") }
            let rows = ((try? cli.shell("sqlite3 -readonly '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe' 2>&1").stdout) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if rows != "1" { problems.append("the user's rows in the working copy are \(rows.isEmpty ? "gone" : rows)") }
            let temporary = cli.list(cli.appData).filter { $0.hasPrefix(".") } + cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix(".") }
            if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
            return problems
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (a database put in place, to read-only, then rollback)", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }

    /// A switch killed once its link was in place, its seed then spoiled by the package (an
    /// empty file): every run still finishes it first (the seed is not read), a run that
    /// then fails says what it finished, and a rollback brings the user's copy back.
    @Test func aKilledSwitchWhoseSeedWasSpoiledIsStillFinished() throws {
        var reached = 0
        for when in 1...8 {
            let cli = CLIHarness()
            try Self.run(cli, ["deploy"] + cli.seedFlags(1))
            try Self.probe(cli)
            // A seed of this trial's own: it is spoiled below.
            let seed = cli.root + "/shipped/levels.sqlite"
            try FileManager.default.createDirectory(atPath: cli.root + "/shipped", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.seed(2), toPath: seed)
            let linkIt = ["deploy", "--read-only", "--app", cli.app, "--seed", seed, "--version", "2"]
            _ = try SyscallKillMatrix.traced(cli, linkIt, kill: ("rename", when))
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)) == seed, cli.settingsEntry()?["interrupted"] != nil else { continue }
            reached += 1
            // `status` names the run under way, and the text says the next run finishes it.
            let status = try cli.run(["status", "--json", "--app", cli.app, "--seed", seed, "--version", "2"])
            #expect(try status.seeds().first?["interrupted"] as? String == "2", "rename #\(when): \(status.stdout)")
            let text = try cli.run(["status", "--app", cli.app, "--seed", seed, "--version", "2"]).stdout
            #expect(text.contains("(a run installing 2 was interrupted: the next deploy, reseed or rollback finishes or undoes it)"), "rename #\(when): \(text)")
            try FileManager.default.removeItem(atPath: seed)
            #expect(FileManager.default.createFile(atPath: seed, contents: Data(), attributes: [.posixPermissions: 0o444]))
            // A copy of the spoiled seed fails, after the finish, and says so.
            let copy = try cli.run(["deploy", "--app", cli.app, "--seed", seed, "--version", "3"])
            #expect(copy.status == 65 && copy.stderr.contains("a run that was interrupted was finished first (replaced 2)"), "rename #\(when): \(copy.status) \(copy.stderr)")
            #expect(cli.settingsEntry()?["interrupted"] == nil && cli.settingsEntry()?["seedLink"] as? String == seed, "rename #\(when): \(cli.settingsEntry() ?? [:])")
            let rollback = try cli.run(["rollback", "--app", cli.app, "--name", "levels.sqlite"])
            #expect(rollback.status == 0, "rename #\(when): \(rollback.stderr)")
            let rows = try cli.shell("sqlite3 -readonly '\(cli.workingCopy)' 'SELECT group_concat(id) FROM probe'").stdout
            #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "rename #\(when): the user's rows after the rollback: \(rows)")
        }
        #expect(reached > 0, "no kill left the link in place with its marker")
    }

    /// What is wrong with the state a rerun left.
    func check(_ cli: CLIHarness, _ scenario: Scenario, rerun: CLIHarness.Result) -> [String] {
        var problems: [String] = []
        let entry = cli.settingsEntry() ?? [:]
        // A rollback whose killed run had finished has nothing left to roll back (66).
        let done = rerun.status == 0 || (scenario.name.hasPrefix("rollback") && rerun.status == 66 && entry["heldFrom"] as? String == "2")
        if !done { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
        if entry["version"] as? String != scenario.version { problems.append("recorded \(entry["version"] ?? "nothing"), expected \(scenario.version)") }
        if entry["interrupted"] != nil { problems.append("the record still says a run is under way") }
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: cli.workingCopy)
        let listing = cli.list(cli.appData)
        if let seed = scenario.linksTo {
            if link != seed || entry["seedLink"] as? String != seed { problems.append("the link names \(link ?? "nothing"), the record \(entry["seedLink"] ?? "nothing"), expected \(seed)") }
            if let stray = listing.first(where: { $0.hasPrefix("levels.sqlite.v") }) { problems.append("a generation file is left: \(stray)") }
        } else {
            let generation = entry["generation"] as? String
            if link == nil || link != generation { problems.append("the link points at \(link ?? "nothing"), the record names \(generation ?? "nothing")") }
            if entry["seedLink"] != nil { problems.append("the record still names a seed link") }
        }
        let temporary = listing.filter { $0.hasPrefix(".") } + cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix(".") }
        if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
        let previousOnDisk = listing.contains("levels.sqlite.previous")
        if (entry["previous"] != nil) != previousOnDisk { problems.append("previous recorded \(entry["previous"] != nil), on disk \(previousOnDisk)") }
        if let expected = scenario.previousVersion {
            let previous = (entry["previous"] as? [String: Any])?["version"] as? String
            if previous != expected { problems.append("the previous generation is recorded at \(previous ?? "nothing"), expected \(expected)") }
        }
        if let expected = scenario.probes {
            // The user's rows: in the previous generation a switch kept, or back in the copy a rollback restored.
            let holder = scenario.linksTo == nil ? cli.workingCopy : cli.appData + "/levels.sqlite.previous"
            let rows = ((try? cli.shell("sqlite3 -readonly '\(holder)' 'SELECT group_concat(id) FROM probe'").stdout) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if rows != expected { problems.append("the user's rows in \(holder.split(separator: "/").last ?? "") are \(rows.isEmpty ? "gone" : rows), expected \(expected)") }
        }
        // The seeds are the package's: never written.
        for version in [1, 2] where cli.bytes(Self.seed(version)) != cli.bytes("\(CLIHarness.seeds)/v\(version)/levels.sqlite") {
            problems.append("the shipped seed v\(version) changed")
        }
        return problems
    }
}

