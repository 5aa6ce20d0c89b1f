import Foundation
import Testing

/// Issue 30, item 5: the `seeddb` tool turns SQLite's allocation count off, so a merged
/// swap searches a large table's keys in two halves on two connections at once. Every
/// change the user made in either half is kept.
@Suite struct MergeOnTwoCoresTests {
    let cli = CLIHarness()

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
}
