import Foundation
import GRDB

extension SeedDBBench {
    /// Issues 11 and 30 (item 5, the target now 1.0×): the whole merged deploy of a 1,000,000-row seed (about 100 MB) where the
    /// user changed 1 % of the rows and the new seed 5 %, beside `sqldiff --primarykey` of
    /// the base against the working copy plus of the base against the new seed (the two
    /// diffs a three-way merge needs), run in the same benchmark; and its peak memory.
    mutating func mergedDeploy() throws {
        let figure = "Merged deploy of a 1,000,000-row seed (user 1 %, seed 5 % changed)"
        guard Measure.has("sqldiff") else {
            add(Result(figure: figure, value: "skipped: sqldiff is missing (apt-get install sqlite3-tools)", reference: "-", ratio: "-", target: "≤ 1.0×, ≤ 64 MiB", met: nil))
            return
        }
        let base = scratch + "/merge-v1.sqlite"
        let user = scratch + "/merge-user.sqlite"
        let new = scratch + "/merge-v2.sqlite"
        try Self.makeMergeSeeds(base: base, user: user, new: new)
        let environment = xdg(scratch + "/merge")
        let flags = ["--quiet", "--app", "bench", "--name", "items.sqlite", "--merge", "user-wins", "--keep-previous", "false"]
        let workingCopy = scratch + "/merge/data/bench/items.sqlite"
        var merged: [Double] = []
        var diffs: [Double] = []
        var peak = 0
        for _ in 0..<max(3, runs / 2) {
            // Given: v1 deployed (its base kept), and the user's 1 % of edits in the working copy.
            try? FileManager.default.removeItem(atPath: scratch + "/merge")
            precondition(Measure.run([seeddb, "deploy", "--seed", base, "--version", "1"] + flags, environment: environment).status == 0, "deploy of v1 failed")
            precondition(Measure.shell("sqlite3 '\(workingCopy)' \"UPDATE items SET score = score + 1 WHERE id % 100 = 0\"").status == 0)
            _ = Measure.shell("sync")
            // When: v2 is deployed, merging; and the two diffs, from the same files.
            let run = Measure.run([seeddb, "deploy", "--seed", new, "--version", "2"] + flags, environment: environment)
            precondition(run.status == 0, "the merged deploy failed")
            merged.append(run.seconds)
            peak = max(peak, run.peakResidentKiB)
            diffs.append(Measure.shell("sqldiff --primarykey '\(base)' '\(user)' > /dev/null").seconds
                + Measure.shell("sqldiff --primarykey '\(base)' '\(new)' > /dev/null").seconds)
        }
        let value = Measure.median(merged)
        let reference = Measure.median(diffs)
        add(Result(
            figure: figure, value: String(format: "%.2f s, peak %.1f MiB", value, Double(peak) / 1024),
            reference: String(format: "two `sqldiff --primarykey`: %.2f s", reference),
            ratio: String(format: "%.2f×", value / reference), target: "≤ 1.0×, ≤ 64 MiB",
            met: value <= reference && peak <= 64 * 1024))
    }

    /// Issue 30, item 2: an upgrade under a merge policy of a working copy nobody wrote to
    /// since its deploy is a plain replace (the merge is skipped), beside the same upgrade
    /// as a plain replace, in the same run: the 1,000,000-row seed, v1 then v2. The
    /// reference is a cache seed (no merge, so no base and no table digests: a `data` seed
    /// merges by default, and one with merging off hashes its tables). In user mode and in
    /// system mode (`--system --root`, where the new base is a hard link to the seed file:
    /// issue 30, item 3).
    mutating func untouchedUpgrade() throws {
        let v1 = scratch + "/merge-v1.sqlite"
        let v2 = scratch + "/merge-v2.sqlite"
        try Self.makeMergeSeeds(base: v1, user: scratch + "/merge-user.sqlite", new: v2)
        let root = scratch + "/untouched"
        for (mode, placement) in [("user mode", ["--quiet"]), ("system mode", ["--quiet", "--system", "--root", root])] {
            func upgrade(_ merge: [String]) -> Double {
                let flags = placement + ["--app", "bench", "--name", "items.sqlite"] + merge
                try? FileManager.default.removeItem(atPath: root)
                try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                precondition(Measure.run([seeddb, "deploy", "--seed", v1, "--version", "1"] + flags, environment: xdg(root)).status == 0, "deploy of v1 failed")
                _ = Measure.shell("sync")
                let run = Measure.run([seeddb, "deploy", "--seed", v2, "--version", "2"] + flags, environment: xdg(root))
                precondition(run.status == 0, "the upgrade failed")
                return run.seconds
            }
            var merged: [Double] = []
            var plain: [Double] = []
            for _ in 0..<max(3, runs) {
                merged.append(upgrade(["--merge", "user-wins"]))
                plain.append(upgrade(["--location", "cache"]))
            }
            let value = Measure.median(merged)
            let reference = Measure.median(plain)
            add(Result(
                figure: "Upgrade of an untouched working copy under `--merge user-wins`, 1,000,000-row seed, \(mode)",
                value: String(format: "%.0f ms", value * 1000),
                reference: String(format: "the same upgrade as a plain replace (cache): %.0f ms", reference * 1000),
                ratio: String(format: "%.2f×", value / reference), target: "≤ 1.1×", met: value <= 1.1 * reference))
        }
    }

    /// v1 (1,000,000 rows of about 100 bytes), the user's copy of it with 1 % of the rows
    /// changed, and v2 with 5 % changed. Built once and kept in the scratch folder.
    static func makeMergeSeeds(base: String, user: String, new: String) throws {
        guard fileSize(base) == 0 || fileSize(user) == 0 || fileSize(new) == 0 else { return }
        for path in [base, user, new] { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: base)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA journal_mode = DELETE;
                CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, payload BLOB NOT NULL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                INSERT INTO items SELECT i, 'item ' || i, i % 1000, randomblob(64) FROM n;
                """)
        }
        try queue.close()
        try FileManager.default.copyItem(atPath: base, toPath: user)
        try FileManager.default.copyItem(atPath: base, toPath: new)
        for (path, sql) in [(user, "UPDATE items SET score = score + 1 WHERE id % 100 = 0"),
                            (new, "UPDATE items SET name = name || ' v2' WHERE id % 20 = 1")] {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
            try queue.close()
        }
    }
}
