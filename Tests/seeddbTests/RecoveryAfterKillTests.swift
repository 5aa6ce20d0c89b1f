import Foundation
import GRDB
import SeedDB
import SeedDBTestSupport
import Testing

/// `deploy` and `reseed` killed with SIGKILL after every named step
/// and at random times; after each kill the working copy is the complete old or new
/// database, the settings are valid with the app's keys, the recorded version is what the
/// file holds, and the next deploy finishes the job and leaves no temporary files.
@Suite(.serialized) struct RecoveryAfterKillTests {
    let cli = CLIHarness()

    @Test func killedDeploysNeverLoseOrMixData() throws {
        let flags = try markedSeeds(["A", "B"], megabytes: 16)
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)

        var random = SplitMix64(seed: 20_261_121)
        let steps = DeployStep.allCases
        let trials = 200
        var killed = 0
        var lost = 0
        var current = "A"
        for trial in 0..<trials {
            let target = current == "A" ? "B" : "A"
            let command = trial % 5 == 4 ? "reseed" : "deploy"
            let result: CLIHarness.Result
            if trial < steps.count * 12 {
                // Every named step, twelve times over.
                result = try cli.run([command] + flags(target), environment: ["SEEDDB_TEST_KILL_AFTER": steps[trial % steps.count].rawValue])
            } else {
                // A random moment of the run.
                let started = try cli.start([command] + flags(target))
                usleep(UInt32.random(in: 0...120_000, using: &random))
                started.signal(SIGKILL)
                result = cli.finish(started)
            }
            if result.killedBy == SIGKILL { killed += 1 }

            // The state a crash left.
            let failure = check(after: "trial \(trial) (\(command) to \(target), status \(result.status))", expecting: [current, target])
            if let failure {
                lost += 1
                Issue.record(Comment(rawValue: failure))
            }

            // The next run finishes the job.
            let recovery = try cli.run(["deploy"] + flags(target))
            #expect(recovery.status == 0, "trial \(trial): recovery failed: \(recovery.stderr)")
            if cli.generation(of: cli.workingCopy) == .generation(target),
               cli.recorded().version == target, cli.temporaryFiles.isEmpty {
                current = target
            } else {
                lost += 1
                Issue.record("trial \(trial): the next deploy did not finish the job: \(cli.generation(of: cli.workingCopy)), recorded \(String(describing: cli.recorded().version)), temporary files \(cli.temporaryFiles)")
                break
            }
        }
        #expect(killed >= trials / 2, "most trials must really be killed mid-run (\(killed))")
        ReliabilityLog.record(suite: "crash", trials: trials, crashes: killed, dataLost: lost)
    }

    /// Issue 11: a merged reseed killed after every step leaves the old copy with the old
    /// base or the merged copy with the new base, recorded consistently; the user's edit
    /// survives every trial, and the next run finishes the job.
    @Test func killedMergedDeploysKeepTheUsersEditAndAConsistentBase() throws {
        let flags = try markedSeeds(["A", "B"], megabytes: 4, extra: ["--merge", "user-wins"])
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)
        // The user's edit: a cell neither seed changes, in a row both seeds have.
        let edit = try DatabaseQueue(path: cli.workingCopy)
        try edit.write { try $0.execute(sql: "UPDATE levels SET map = x'0badc0de' WHERE ix = 1") }
        try edit.close()

        func userEditKept() throws -> Bool {
            let queue = try DatabaseQueue(path: cli.workingCopy)
            defer { try? queue.close() }
            return try queue.read { try Data.fetchOne($0, sql: "SELECT map FROM levels WHERE ix = 1") } == Data([0x0b, 0xad, 0xc0, 0xde])
        }
        func baseMatchesRecord() throws -> Bool {
            let data = try #require(cli.bytes(cli.settingsFile))
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let entry = ((document["seeddb"] as? [String: Any])?["levels.sqlite"] as? [String: Any]) ?? [:]
            guard let recorded = entry["base"] as? String else { return true }
            let digest = try cli.shell("sha256sum '\(cli.workingCopy).base' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return digest == recorded
        }

        var current = "A"
        var lost = 0
        var killed = 0
        for (trial, step) in (DeployStep.allCases + DeployStep.allCases).enumerated() {
            let target = current == "A" ? "B" : "A"
            let result = try cli.run(["reseed"] + flags(target), environment: ["SEEDDB_TEST_KILL_AFTER": step.rawValue])
            if result.killedBy == SIGKILL { killed += 1 }
            var failure = check(after: "merged trial \(trial) (kill after \(step.rawValue), status \(result.status))", expecting: [current, target])
            if failure == nil, try !userEditKept() { failure = "merged trial \(trial): the user's edit is gone" }
            if failure == nil, try !baseMatchesRecord() { failure = "merged trial \(trial): the base does not match its record" }
            if let failure {
                lost += 1
                Issue.record(Comment(rawValue: failure))
            }
            let recovery = try cli.run(["deploy"] + flags(target))
            #expect(recovery.status == 0, "merged trial \(trial): recovery failed: \(recovery.stderr)")
            #expect(cli.generation(of: cli.workingCopy) == .generation(target) && cli.temporaryFiles.isEmpty, "merged trial \(trial)")
            #expect(try userEditKept() && baseMatchesRecord(), "merged trial \(trial): after recovery")
            current = target
        }
        #expect(killed >= DeployStep.allCases.count, "most steps are in a merged reseed's plan (\(killed) kills)")
        ReliabilityLog.record(suite: "crash (merged deploys)", trials: DeployStep.allCases.count * 2, crashes: killed, dataLost: lost)
    }

    /// A swap killed after its switch, the app's row written into the new generation, then
    /// the link removed by hand: the next deploy took the new generation for a staged file
    /// never linked and removed it, with the row. It finishes the killed run instead (the
    /// link put back), and the row stays.
    @Test func aKilledSwapWhoseLinkWasRemovedKeepsWhatTheAppWroteSince() throws {
        let flags = try markedSeeds(["A", "B"], megabytes: 1)
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)
        let killed = try cli.run(["deploy"] + flags("B"), environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL)
        let written = try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)'")
        #expect(written.status == 0, "\(written.stderr)")
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let recovery = try cli.run(["deploy"] + flags("B"))
        #expect(recovery.status == 0, "\(recovery.stderr)")
        #expect(cli.generation(of: cli.workingCopy) == .generation("B"))
        #expect(cli.recorded().version == "B")
        let row = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT body FROM notes'")
        #expect(row.stdout == "1\n", "the row the app wrote after the switch: \(row.stderr)")
        #expect(cli.temporaryFiles.isEmpty)
    }

    /// A rollback killed after its switch, finished by the next rollback: the warning
    /// says what was finished in words (`rolled back`), not the JSON's `rolled-back`.
    @Test func theFinishOfAKilledRollbackSaysSoInWords() throws {
        let flags = try markedSeeds(["A", "B"], megabytes: 1)
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)
        #expect(try cli.run(["deploy"] + flags("B")).status == 0)
        let copy = ["--app", cli.app, "--name", (cli.workingCopy as NSString).lastPathComponent]
        let killed = try cli.run(["rollback"] + copy, environment: ["SEEDDB_TEST_KILL_AFTER": "install"])
        #expect(killed.killedBy == SIGKILL)
        let finish = try cli.run(["rollback"] + copy)
        #expect(finish.stderr.contains("finished a run that was interrupted (rolled back A)"), "\(finish.stderr)")
    }

    /// A run killed before it installed anything, then a run of another version that
    /// replaces its marker with its own: the run (and its dry run first) says so, and
    /// reports the version that was recorded as the one it replaced.
    @Test func aRunThatReplacesAKilledOneSaysSo() throws {
        let flags = try markedSeeds(["A", "B", "C"], megabytes: 1)
        #expect(try cli.run(["deploy"] + flags("A")).status == 0)
        let killed = try cli.run(["deploy"] + flags("B"), environment: ["SEEDDB_TEST_KILL_AFTER": "withdraw"])
        #expect(killed.killedBy == SIGKILL)
        let warning = "a run that was interrupted (installing B; A was recorded)"
        let dryRun = try cli.run(["deploy", "--dry-run"] + flags("C"))
        #expect(dryRun.status == 0 && dryRun.stderr.contains(warning + " would be replaced by this one"), "\(dryRun.stderr)")
        let run = try cli.run(["deploy", "--json"] + flags("C"))
        #expect(run.status == 0 && run.stderr.contains(warning + " is replaced by this one"), "\(run.stderr)")
        let report = try run.seeds().first
        #expect(report?["from"] as? String == "A" && report?["to"] as? String == "C", "\(run.stdout)")
        #expect(cli.settingsEntry()?["interrupted"] == nil && cli.temporaryFiles.isEmpty)
    }

    /// A `reseed --strategy live` killed at each `rename` (strace), then a `deploy` of the
    /// same version: the deploy said `unchanged`, left the marker (`status` said
    /// `not-installed` for good) and removed the previous generation the reseed had set
    /// aside (`rollback`: 66). It does the reseed again: recorded, with a previous
    /// generation to roll back to, and the user's row kept.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aKilledLiveReseedIsDoneAgainByTheNextDeploy() throws {
        let strace = try #require(DurabilityOrderTests.strace)
        var killed = true
        for when in 1...20 where killed {
            let cli: CLIHarness
            (cli, killed) = try liveRunAfterAnUpgrade("reseed", killedAt: "rename", when, strace: strace)
            let deploy = try cli.run(["deploy"] + cli.seedFlags(2))
            #expect(deploy.status == 0, "rename \(when): \(deploy.stderr)")
            #expect(cli.settingsEntry()?["interrupted"] == nil, "rename \(when): \(deploy.stdout)")
            let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
            #expect(try status.seeds().first?["state"] as? String == "up-to-date", "rename \(when): \(status.stdout)")
            #expect(cli.temporaryFiles.isEmpty, "rename \(when): \(cli.list(cli.appData))")
            let rollback = try cli.run(["rollback"] + cli.seedFlags(2))
            #expect(rollback.status == 0, "rename \(when): \(rollback.stderr)")
            let row = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT stars FROM progress WHERE level = 1'")
            #expect(row.stdout == "3\n", "rename \(when): \(row.stdout) \(row.stderr)")
        }
        #expect(!killed, "the reseed was killed at every rename tried")
    }

    /// A `rollback --strategy live` killed at each `rename` (strace), then the app's
    /// `deploy` of the version rolled back from: the deploy said `unchanged` and left the
    /// rollback's marker (`status` said `not-installed` while every deploy said the
    /// same). A rollback that left its marker is done again: restored, recorded and held,
    /// and the user's row kept. Killed at each `rename` and each `fsync`.
    ///
    /// Without the user's row the copy is the seed's own, unwritten: the rollback done again
    /// merges against its checked base all the same (unchecked, it merged without one and
    /// kept the newer seed's rows as the user's).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"), arguments: [true, false])
    func aKilledLiveRollbackIsDoneAgainByTheNextDeploy(userRow: Bool) throws {
        let strace = try #require(DurabilityOrderTests.strace)
        var marked = 0
        for (call, when) in (1...20).map({ ("rename", $0) }) + (1...12).map({ ("fsync", $0) }) {
            let (cli, killed) = try liveRunAfterAnUpgrade("rollback", killedAt: call, when, strace: strace, userRow: userRow)
            guard killed else { continue }
            let rollbackUnderWay = (cli.settingsEntry()?["interrupted"] as? [String: Any])?["rollback"] as? Bool == true
            if rollbackUnderWay { marked += 1 }
            let deploy = try cli.run(["deploy"] + cli.seedFlags(2))
            #expect(deploy.status == 0, "\(call) \(when): \(deploy.stderr)")
            #expect(cli.settingsEntry()?["interrupted"] == nil, "\(call) \(when): \(deploy.stdout) \(deploy.stderr)")
            let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
            #expect(try status.seeds().first?["state"] as? String != "not-installed", "\(call) \(when): \(status.stdout)")
            if rollbackUnderWay {
                #expect(try cli.levelCount() == 20, "\(call) \(when): the rollback was not done again: \(deploy.stderr)")
                #expect(cli.settingsEntry()?["version"] as? String == "1", "\(call) \(when): \(cli.settingsEntry() ?? [:])")
            }
            #expect(cli.temporaryFiles.isEmpty, "\(call) \(when): \(cli.list(cli.appData))")
            let row = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT stars FROM progress WHERE level = 1'")
            #expect(row.stdout == (userRow ? "3\n" : ""), "\(call) \(when): \(row.stdout) \(row.stderr)")
        }
        #expect(marked > 0, "no kill left the rollback's marker")
    }

    /// A working copy with the user's row (level 1, 3 stars) written at version 1 (unless
    /// not `userRow`), then upgraded to 2, and `command --strategy live` of version 2 run
    /// under strace, killed at its `when`th `rename`: the harness, and whether the run was
    /// killed.
    private func liveRunAfterAnUpgrade(_ command: String, killedAt call: String = "rename", _ when: Int, strace: String, userRow: Bool = true) throws -> (CLIHarness, Bool) {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        if userRow { #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' 'INSERT OR REPLACE INTO progress VALUES (1, 3)'").status == 0) }
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let arguments = ([command, "--strategy", "live"] + cli.seedFlags(2)).map { "'\($0)'" }.joined(separator: " ")
        let cut = try cli.shell("\(strace) -f -qq -o /dev/null -e inject=\(call):signal=KILL:when=\(when) '\(CLIHarness.binary)' \(arguments)")
        return (cli, cut.status != 0)
    }

    /// A first install killed after its stage (its staged files left, no marker yet),
    /// then `rollback`: nothing to roll back (66), and the killed run's files are removed
    /// under the lock, as a run with nothing to copy removes them. They were left: the
    /// rollback refused before taking the lock.
    @Test func aRollbackWithNothingToRollBackRemovesAKilledRunsFiles() throws {
        let flags = try markedSeeds(["A"], megabytes: 1)
        let killed = try cli.run(["deploy"] + flags("A"), environment: ["SEEDDB_TEST_KILL_AFTER": "stage"])
        #expect(killed.killedBy == SIGKILL)
        #expect(!cli.temporaryFiles.isEmpty, "the killed run left nothing to remove")
        let rollback = try cli.run(["rollback", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.status == 66 && rollback.stderr.contains("no previous generation"), "\(rollback.status): \(rollback.stderr)")
        #expect(cli.temporaryFiles.isEmpty, "\(cli.temporaryFiles)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy) && cli.settingsEntry() == nil)
    }

    /// Seeds of `megabytes` each, one per marker (`"A"` → `a.sqlite`, marked and versioned
    /// `A`), and the flags that deploy the one a marker names, with `extra`.
    private func markedSeeds(_ markers: [String], megabytes: Int, extra: [String] = []) throws -> (String) -> [String] {
        var seeds: [String: String] = [:]
        for marker in markers { seeds[marker] = try cli.makeSeed(marker.lowercased() + ".sqlite", marker: marker, megabytes: megabytes) }
        return { [cli] marker in ["--app", cli.app, "--seed", seeds[marker]!, "--name", "levels.sqlite", "--version", marker] + extra }
    }

    /// The invariants after a crash; `nil` when they hold.
    private func check(after trial: String, expecting allowed: [String]) -> String? {
        guard case .generation(let marker) = cli.generation(of: cli.workingCopy) else {
            return "\(trial): the working copy is not a complete database: \(cli.generation(of: cli.workingCopy))"
        }
        guard allowed.contains(marker) else { return "\(trial): unexpected content \(marker)" }
        let (version, intact) = cli.recorded()
        guard intact else { return "\(trial): the settings file lost the app's keys or is not JSON" }
        if let version, version != marker {
            return "\(trial): recorded version \(version) but the file holds \(marker)"
        }
        return nil
    }
}
