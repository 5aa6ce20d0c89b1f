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

/// The level-loading example: deploy at startup, then fetch levels with one cached,
/// prepared statement bound to `?`.
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
        let database = try SeedDatabase.open(seed, deployer: Deployer(logger: logger), configuration: configuration())
        print("deploy: \(database.deployment.action.rawValue) \(database.deployment.to) at \(database.deployment.workingCopy)")

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
        try database.close()
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
