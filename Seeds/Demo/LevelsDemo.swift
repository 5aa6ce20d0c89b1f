import Foundation
import GRDB
import Logging
import SeedDB

/// One level of the demo game, decoded from a row of `levels`.
struct Level: FetchableRecord {
    var index: Int
    var background: String?
    var map: Data

    init(row: Row) {
        index = row["ix"]
        background = row["background"]
        map = row["map"]
    }
}

/// The level-loading example: deploy at startup (merging the user's changes into a new
/// seed), run the app's migrations, then fetch levels with one cached, prepared statement
/// bound to `?`.
///
///     swift run levels-demo [MANIFEST] [LEVEL...]
@main
enum LevelsDemo {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let manifest = arguments.isEmpty ? "Seeds/v2/seeds.json" : arguments.removeFirst()
        let wanted = arguments.isEmpty ? [1, 2, 3] : arguments.compactMap(Int.init)
        let logger = Logger(label: "levels-demo")

        // 1. At startup: deploy if needed, then open the working copy. Two lines.
        let seed = try Manifest.load(URL(fileURLWithPath: manifest).path).seeds[0]
        let database = try SeedDatabase.open(seed, deployer: Deployer(logger: logger), configuration: configuration(), migrator: migrator())
        print("deploy: \(database.deployment.action.rawValue) \(database.deployment.to) at \(database.deployment.workingCopy)")
        if let merge = database.deployment.merge {
            print("merge: \(merge.inserted) inserted, \(merge.updated) updated, \(merge.deleted) deleted, \(merge.conflicts) conflicts")
        }

        // 2. Serial-queue access: every read and write goes through one DatabaseQueue.
        var statements: Set<ObjectIdentifier> = []
        for index in wanted {
            let (level, statement) = try database.writer.read { db in try fetchLevel(index, db) }
            statements.insert(statement)
            if let level {
                print("level \(level.index): background \(level.background ?? "none"), map \(level.map.count) bytes")
            } else {
                print("level \(index): not found")
            }
        }
        print("prepared statements used: \(statements.count)")

        // 3. Nestable transactions: savepoints inside one transaction.
        try database.writer.write { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT OR REPLACE INTO progress(level, stars) VALUES (1, 3)")
                return .commit
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT OR REPLACE INTO progress(level, stars) VALUES (2, 1)")
                return .rollback   // undone; level 1's progress stays
            }
        }
        let progress = try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM progress") ?? 0 }
        print("levels with progress: \(progress)")

        // 4. A custom SQL function registered on the connection.
        let busiest = try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT ix, tile_count(map) AS tiles FROM levels ORDER BY tiles DESC, ix LIMIT 1")
        }
        if let busiest {
            print("busiest level: \(busiest["ix"] as Int) with \(busiest["tiles"] as Int) tiles")
        }

        // 5. What the user changes, which a merged upgrade keeps: a favourite, a note, and a
        //    full-text search over the level backgrounds that follows every change.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE levels SET favorite = 1 WHERE ix = ?", arguments: [wanted[0]])
            try db.execute(sql: "INSERT OR IGNORE INTO notes(level, text) VALUES (?, 'the hard one')", arguments: [wanted[0]])
        }
        let (favorites, notes, matches) = try database.writer.read { db in
            (try Int.fetchAll(db, sql: "SELECT ix FROM levels WHERE favorite = 1 ORDER BY ix"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") ?? 0,
             try Int.fetchAll(db, sql: "SELECT rowid FROM levels_search WHERE levels_search MATCH 'cave' ORDER BY rowid"))
        }
        print("favourites: \(favorites.map(String.init).joined(separator: " ")); notes: \(notes); levels matching 'cave': \(matches.count)")
        try database.close()
    }

    /// The app's own schema on top of the seed's, as migrations (run on every new seed
    /// before the merge, and on the working copy): a `favorite` flag, the user's notes,
    /// and a full-text index of the backgrounds kept by triggers.
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("favorites") { db in
            if try !db.columns(in: "levels").contains(where: { $0.name == "favorite" }) {
                try db.execute(sql: "ALTER TABLE levels ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0")
            }
        }
        migrator.registerMigration("notes") { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, level INTEGER NOT NULL UNIQUE, text TEXT NOT NULL)")
        }
        migrator.registerMigration("search") { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE IF NOT EXISTS levels_search USING fts5(background, content='levels', content_rowid='ix');
                CREATE TRIGGER IF NOT EXISTS levels_search_insert AFTER INSERT ON levels BEGIN
                  INSERT INTO levels_search(rowid, background) VALUES (new.ix, new.background);
                END;
                CREATE TRIGGER IF NOT EXISTS levels_search_delete AFTER DELETE ON levels BEGIN
                  INSERT INTO levels_search(levels_search, rowid, background) VALUES ('delete', old.ix, old.background);
                END;
                CREATE TRIGGER IF NOT EXISTS levels_search_update AFTER UPDATE OF background ON levels BEGIN
                  INSERT INTO levels_search(levels_search, rowid, background) VALUES ('delete', old.ix, old.background);
                  INSERT INTO levels_search(rowid, background) VALUES (new.ix, new.background);
                END;
                INSERT INTO levels_search(levels_search) VALUES ('rebuild');
                """)
        }
        return migrator
    }

    /// Fetches one level with the connection's cached statement (GRDB prepares it once).
    static func fetchLevel(_ index: Int, _ db: Database) throws -> (Level?, ObjectIdentifier) {
        let statement = try db.cachedStatement(sql: "SELECT ix, background, map FROM levels WHERE ix = ?")
        return (try Level.fetchOne(statement, arguments: [index]), ObjectIdentifier(statement))
    }

    /// Registers `tile_count(map)`: the number of non-empty tiles (non-zero bytes) in a map.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("tile_count", argumentCount: 1, pure: true) { values in
                guard let map = Data.fromDatabaseValue(values[0]) else { return nil }
                return map.reduce(0) { $0 + ($1 == 0 ? 0 : 1) }
            })
        }
        return configuration
    }
}
