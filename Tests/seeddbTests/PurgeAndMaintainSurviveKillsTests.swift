import Foundation
import SeedDBTestSupport
import Testing

/// `purge` and `maintain` killed between two system calls (as
/// `RecoveryAfterSyscallKillTests` does for the commands that replace a copy:
/// `strace -e inject=…:signal=KILL` at each `rename`, `fsync`, `unlink`, `symlink`,
/// `link` and `write` in turn), then run again, as a package's scripts or a timer would:
/// a purge's rerun leaves nothing of SeedDB's, a maintenance's rerun leaves the user's
/// database whole, with its rows, its record and nothing temporary beside it.
@Suite(.serialized, .enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
struct PurgeAndMaintainSurviveKillsTests {
    // The set-up is `RecoveryAfterSyscallKillTests`': its deploys, and the app's row
    // (`probe`, id 1) with the user's edit of seeded row 1.

    /// With `appKeys`, the settings file also holds the app's own `"theme": "dark"`, which
    /// the purge must leave, with the file.
    @Test(arguments: [false, true])
    func aKilledPurgeIsFinishedByItsRerun(appKeys: Bool) throws {
        // Given: an upgraded working copy, with a previous generation, merge bases, a
        // conflicts file, locks and a settings entry.
        let template = CLIHarness()
        if appKeys {
            try FileManager.default.createDirectory(atPath: template.root + "/config/" + template.app, withIntermediateDirectories: true)
            try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: template.settingsFile))
        }
        try RecoveryAfterSyscallKillTests.deploy(template, 1)
        try RecoveryAfterSyscallKillTests.write(template, probe: 1)
        try RecoveryAfterSyscallKillTests.deploy(template, 2)
        #expect(template.list(template.appData).count > 3, "the purge has files to remove: \(template.list(template.appData))")

        // When: the purge is killed at each call, then run again.
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { ["purge", "--app", $0.app, "--name", "levels.sqlite"] }, from: template, label: "purge"
        ) { cli, rerun in
            // Then: the rerun succeeds and nothing of SeedDB's is left; the app's own key
            // and its settings file are.
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
            let kept = appKeys ? ["settings.json", "settings.json.lock"] : []
            let left = cli.list(cli.appData) + cli.list(cli.root + "/config/" + cli.app).filter { !kept.contains($0) }
            if !left.isEmpty { problems.append("left: \(left)") }
            if cli.settingsEntry() != nil { problems.append("the settings entry is still there") }
            if appKeys, cli.settings()?["theme"] as? String != "dark" { problems.append("the app's key is gone: \(cli.settings() ?? [:])") }
            return problems
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (purge\(appKeys ? ", the app's keys kept" : ""))", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }

    @Test func aKilledMaintenanceKeepsTheUsersDatabaseWhole() throws {
        // Given: a working copy the user wrote in, with free pages in the middle of the
        // file (rows inserted, every other one deleted), so the VACUUM moves pages.
        let template = CLIHarness()
        try RecoveryAfterSyscallKillTests.deploy(template, 1)
        try RecoveryAfterSyscallKillTests.write(template, probe: 1)
        let filler = try template.shell("""
            sqlite3 '\(template.workingCopy)' "CREATE TABLE filler(id INTEGER PRIMARY KEY, data BLOB); \
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) INSERT INTO filler SELECT i, randomblob(3000) FROM n; \
            DELETE FROM filler WHERE id % 2 = 0;"
            """)
        #expect(filler.status == 0, "\(filler.stderr)")
        let generation = template.generationFile

        // When: `maintain` (a VACUUM) is killed at each call, then run again.
        let tallies = try SyscallKillMatrix.killAtEveryCall(
            of: { ["maintain", "--app", $0.app, "--name", "levels.sqlite", "--every", "0"] }, from: template, label: "maintain"
        ) { cli, rerun in
            // Then: the rerun succeeds, and the database is whole, the same generation,
            // with the user's rows and edit and nothing temporary beside it.
            var problems: [String] = []
            if rerun.status != 0 { problems.append("the rerun exited \(rerun.status): \(rerun.stderr)") }
            let entry = cli.settingsEntry() ?? [:]
            if entry["version"] as? String != "1" { problems.append("recorded \(entry["version"] ?? "nothing"), expected 1") }
            if entry["interrupted"] != nil { problems.append("the record says a run is under way") }
            if entry["maintainedAt"] == nil { problems.append("no maintenance recorded") }
            if cli.generationFile != generation || entry["generation"] as? String != generation {
                problems.append("the link names \(cli.generationFile), the record \(entry["generation"] ?? "nothing"), expected \(generation)")
            }
            // Looked at before SQLite opens the copy (which would roll a hot journal back).
            let temporary = cli.list(cli.appData).filter { $0.hasPrefix(".") || $0.hasSuffix("-journal") || $0.hasSuffix("-wal") }
                + cli.list(cli.root + "/config/" + cli.app).filter { $0.hasPrefix(".") }
            if !temporary.isEmpty { problems.append("temporary files left: \(temporary)") }
            let query = "PRAGMA integrity_check; SELECT group_concat(id) FROM probe; SELECT background FROM levels WHERE ix = 1; SELECT count(*) FROM levels; SELECT count(*) FROM filler;"
            let found = ((try? cli.shell("sqlite3 -readonly '\(cli.workingCopy)' '\(query)'").stdout) ?? "").split(separator: "\n").map(String.init)
            if found != ["ok", "1", "edited by the user", "20", "30"] { problems.append("the working copy reads \(found), expected [ok, 1, edited by the user, 20, 30]") }
            return problems
        }
        let total = SyscallKillMatrix.total(tallies)
        #expect(total.killed > 0, "no kill took effect: \(tallies)")
        ReliabilityLog.record(suite: "syscall kills (maintain)", trials: total.trials, crashes: total.killed, dataLost: total.failures)
    }
}
