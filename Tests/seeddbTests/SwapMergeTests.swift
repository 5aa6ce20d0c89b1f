import Foundation
import Testing

/// Issue 30, item 5: a swap's merge into its staged copy. The `seeddb` tool turns SQLite's
/// allocation count off, so the merge searches a large table's keys in two halves on two
/// connections at once: every change the user made in either half is kept (that the split
/// finds what one connection finds is `MergePropertyTests`'; its speed, the benchmark's).
/// The merge writes without a rollback journal unless something in it rolls back and goes
/// on: an index of the app's that no longer fits is left out and leaves nothing behind.
@Suite struct SwapMergeTests {
    let cli = CLIHarness()

    /// A row the user inserted with a `NULL` key (`id INT PRIMARY KEY` allows it) matches no
    /// row: the merge cannot carry it, and says so, naming the table as one whose changes
    /// were replaced (the old copy, kept as the previous generation, holds the row).
    @Test func aRowWithANullKeyIsNamedNotSilentlyDropped() throws {
        let seeds = cli.root + "/nullkey"
        try FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
        for (version, beta) in [(1, "beta"), (2, "BETA")] {
            #expect(try cli.shell("""
                sqlite3 '\(seeds)/v\(version).sqlite' "CREATE TABLE words(id INT PRIMARY KEY, word TEXT); INSERT INTO words VALUES (1, 'alpha'), (2, '\(beta)');"
                """).status == 0)
        }
        let flags = { (version: Int) in ["--app", cli.app, "--seed", "\(seeds)/v\(version).sqlite", "--name", "levels.sqlite", "--version", "\(version)"] }
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        #expect(try cli.shell("sqlite3 '\(cli.workingCopy)' \"INSERT INTO words(word) VALUES ('my word')\"").status == 0)
        let upgrade = try cli.run(["deploy", "--json"] + flags(2))
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try upgrade.seeds().first?["discarded"] as? [String] == ["words"], "\(upgrade.stdout)")
        #expect(upgrade.stderr.contains("whose primary key holds a NULL cannot be merged"), "\(upgrade.stderr)")
        let kept = try cli.shell("sqlite3 '\(cli.workingCopy).previous' \"SELECT count(*) FROM words WHERE id IS NULL AND word = 'my word'\"")
        #expect(kept.stdout == "1\n")
    }

    /// A seed whose keys span 1 to 300,000 (a split at 150,000) in six rows; `changed`
    /// gives rows 1 and 300,000 the version's value.
    func makeSeed(_ version: Int) throws -> String {
        let path = "\(cli.root)/seeds/v\(version).sqlite"
        let made = try cli.shell("""
            mkdir -p '\(cli.root)/seeds' && sqlite3 '\(path)' "
            CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO items VALUES (1, 'v\(version)'), (2, 'seed'), (100000, 'seed'), (200000, 'seed'), (250000, 'seed'), (300000, 'v\(version)');"
            """)
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test func theUsersChangesInBothHalvesOfTheKeysAreKept() throws {
        func deploy(_ version: Int) throws -> CLIHarness.Result {
            try cli.run(["deploy", "--app", cli.app, "--seed", try makeSeed(version), "--version", "\(version)", "--name", "levels.sqlite", "--merge", "user-wins"])
        }
        #expect(try deploy(1).status == 0)
        // An edit, a deletion and an insert below the split, and the same above it.
        let edit = try cli.shell("""
            sqlite3 '\(cli.workingCopy)' "UPDATE items SET v = 'mine' WHERE id IN (2, 250000);
            DELETE FROM items WHERE id IN (100000, 200000); INSERT INTO items VALUES (50, 'new'), (280000, 'new');"
            """)
        #expect(edit.status == 0, "\(edit.stderr)")
        let upgrade = try deploy(2)
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let rows = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT id, v FROM items ORDER BY id'")
        #expect(rows.stdout == "1|v2\n2|mine\n50|new\n250000|mine\n280000|new\n300000|v2\n")
    }

    @Test func anAppsIndexThatNoLongerFitsIsLeftOutWithNothingOfItInTheFile() throws {
        // Given v1 deployed, and the app's unique index on a seed table with the user's edit
        func seed(_ version: Int, _ rows: String) throws -> String {
            let path = "\(cli.root)/seeds/w\(version).sqlite"
            let made = try cli.shell("mkdir -p '\(cli.root)/seeds' && sqlite3 '\(path)' \"CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT); INSERT INTO words VALUES \(rows);\"")
            #expect(made.status == 0, "\(made.stderr)")
            return path
        }
        func deploy(_ version: Int, _ seed: String) throws -> CLIHarness.Result {
            try cli.run(["deploy", "--app", cli.app, "--seed", seed, "--version", "\(version)", "--name", "levels.sqlite", "--merge", "user-wins"])
        }
        #expect(try deploy(1, try seed(1, "(1, 'a'), (2, 'b'), (3, 'c')")).status == 0)
        let edit = try cli.shell("sqlite3 '\(cli.workingCopy)' \"CREATE UNIQUE INDEX my_words ON words (word); UPDATE words SET word = 'mine' WHERE id = 3;\"")
        #expect(edit.status == 0, "\(edit.stderr)")
        // When v2 makes two words the same
        let upgrade = try deploy(2, try seed(2, "(1, 'a'), (2, 'a'), (3, 'c')"))
        // Then the upgrade merges, says the index was left out, and the file holds no part of it
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stderr.contains("my_words"), "\(upgrade.stderr)")
        let check = try cli.shell("sqlite3 '\(cli.workingCopy)' 'PRAGMA integrity_check; SELECT count(*) FROM sqlite_master WHERE name = \"my_words\"; SELECT id, word FROM words ORDER BY id'")
        #expect(check.stdout == "ok\n0\n1|a\n2|a\n3|mine\n", "\(check.stdout)\(check.stderr)")
    }
}
