import Foundation
import GRDB
import Testing

/// Clients nobody on the project wrote (Python's `sqlite3` module, in real
/// processes) reading and writing while deploys and reseeds run. What they must never
/// see: a malformed or unreadable database (`SQLITE_CORRUPT`, `SQLITE_IOERR`), a
/// transaction mixing two versions, a committed row gone after a reseed, or a refused run
/// that changed something.
///
/// The clients are the scripts in `Clients/`; each logs every event to its own file,
/// which these tests read back. Figures go to RELIABILITY.md through ``ReliabilityLog``.
@Suite(.serialized) struct NoLostRowsTests {
    let cli = CLIHarness()

    /// The client scripts, beside this file.
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Clients"

    // MARK: Seeds that say which version they are

    /// A small seed (about 250 KB) whose every table can tell its version: `meta(version,
    /// levels)` names it and the number of levels, each row of `levels` carries it as
    /// `marker`. v1 has 40 levels, v2 has 48. `events` (written by per-request clients)
    /// and `progress` (preserved) start empty.
    func seed(_ version: Int) throws -> String {
        let path = cli.root + "/seed-v\(version).sqlite"
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE meta(version INTEGER NOT NULL, levels INTEGER NOT NULL);
                CREATE TABLE levels(ix INTEGER PRIMARY KEY, marker INTEGER NOT NULL, data BLOB NOT NULL);
                CREATE TABLE events(id INTEGER PRIMARY KEY, client TEXT NOT NULL, version INTEGER NOT NULL, at REAL);
                CREATE TABLE progress(id INTEGER PRIMARY KEY, level INTEGER NOT NULL, stars INTEGER, note TEXT);
                """)
            let levels = 32 + 8 * version
            try db.execute(sql: "INSERT INTO meta VALUES (?, ?)", arguments: [version, levels])
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO levels SELECT i, ?, randomblob(6000) FROM n
                """, arguments: [levels, version])
        }
        try queue.close()
        return path
    }

    /// `--app … --seed … --name levels.sqlite --version N` for seed `version`.
    func flags(_ version: Int, preserve: Bool = false) throws -> [String] {
        ["--app", cli.app, "--seed", try seed(version), "--name", "levels.sqlite", "--version", "\(version)"]
            + (preserve ? ["--preserve", "progress"] : [])
    }

    /// The version the working copy holds (`meta.version`), or `nil` when it cannot be read
    /// (waiting up to 10 s for a client's lock).
    func contentVersion() -> Int? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        guard let queue = try? DatabaseQueue(path: cli.workingCopy, configuration: configuration) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { try Int.fetchOne($0, sql: "SELECT version FROM meta") }
    }

    /// `PRAGMA integrity_check` of the working copy, or the error opening it.
    func integrityCheck() -> String {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: cli.workingCopy, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "no result" }
        } catch {
            return "\(error)"
        }
    }

    /// The ids in `table` of the working copy; empty when the table does not exist.
    func ids(in table: String) throws -> Set<Int> {
        let queue = try DatabaseQueue(path: cli.workingCopy)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(table) else { return [] }
            return Set(try Int.fetchAll(db, sql: "SELECT id FROM \(table)"))
        }
    }

    /// The version `seeddb status --json` reports as recorded.
    func recordedVersion(current version: Int) throws -> String? {
        let status = try cli.run(["status", "--json"] + flags(version))
        return try status.seeds().first?["recordedVersion"] as? String
    }

    // MARK: Client processes and their logs

    /// One SQLite error a client logged.
    struct SQLiteFailure {
        var phase: String
        /// The extended result code (`sqlite_errorcode`), -1 when Python gave none.
        var code: Int
        /// `sqlite_errorname`, e.g. `SQLITE_IOERR_SHORT_READ`.
        var name: String
        var message: String

        var isCorrupt: Bool { code & 0xFF == 11 }
        var isIOError: Bool { code & 0xFF == 10 }
        var isBusy: Bool { code & 0xFF == 5 }
        /// `SQLITE_READONLY_DBMOVED` (the connection's file is no longer the database at
        /// its path) or `SQLITE_READONLY` (the fence on the old generation): the documented
        /// outcomes for a write on a connection opened before a swap.
        var isDatabaseMoved: Bool { code == 1032 || code == 8 }
    }

    /// What one client's log says (the line formats are in each script's docstring).
    struct ClientLog {
        var name: String
        /// The process's exit status, and what it wrote on standard error (a traceback).
        var status: Int32 = 0
        var stderr = ""
        /// Transactions completed: consistent reads and commits.
        var transactions = 0
        /// The versions consistent reads saw.
        var versionsSeen: Set<Int> = []
        /// Ids logged after their commit returned: `events` for a per-request writer,
        /// `progress` for the long-lived one.
        var committed: [Int] = []
        /// Ids the long-lived writer committed into `user_notes`, the table it created.
        var committedNotes: [Int] = []
        /// Mixed-version reads, as logged.
        var mixed: [String] = []
        var errors: [SQLiteFailure] = []
        /// Times the long-lived writer reopened after `SQLITE_READONLY_DBMOVED`.
        var reopened = 0
        /// Whether the client saw the stop file and ended normally.
        var finished = false

        init(name: String, text: String) {
            self.name = name
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                let number = fields.count > 1 ? Int(fields[1]) : nil
                switch fields[0] {
                case "R":
                    transactions += 1
                    if let number { versionsSeen.insert(number) }
                case "C", "P":
                    transactions += 1
                    if let number { committed.append(number) }
                case "N":
                    transactions += 1
                    if let number { committedNotes.append(number) }
                case "M": mixed.append(fields.dropFirst().joined(separator: " "))
                case "E" where fields.count >= 5:
                    errors.append(SQLiteFailure(phase: fields[1], code: Int(fields[2]) ?? -1, name: fields[3], message: fields[4...].joined(separator: " ")))
                case "REOPEN": reopened += 1
                case "DONE": finished = true
                default: break
                }
            }
        }

        /// Errors other than busy and database-moved: none is acceptable.
        var unexpected: [SQLiteFailure] { errors.filter { !$0.isBusy && !$0.isDatabaseMoved } }
    }

    /// Client processes running one of the scripts, stopped together by a stop file.
    final class Clients {
        private var processes: [(name: String, process: Process, log: String)] = []
        private let stopFile: String

        init(root: String) {
            stopFile = root + "/stop-clients-\(UUID().uuidString)"
        }

        /// Starts `script` with `arguments`, where `"{stop}"` and `"{log}"` stand for the
        /// stop file and this client's log; returns once it printed "ready".
        func start(_ name: String, _ script: String, _ arguments: [String], root: String) throws {
            let log = root + "/client-\(name)-\(UUID().uuidString).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            _ = FileManager.default.createFile(atPath: log + ".stderr", contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", NoLostRowsTests.clients + "/" + script] + arguments.map {
                $0 == "{stop}" ? stopFile : $0 == "{log}" ? log : $0
            }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle(forWritingAtPath: log + ".stderr")
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            processes.append((name, process, log))
            #expect(ready.hasPrefix("ready"), "client \(name) did not start: \(ready) \(String(decoding: FileManager.default.contents(atPath: log + ".stderr") ?? Data(), as: UTF8.self))")
        }

        /// Stops every client (killing one still running after 30 s) and reads its log.
        func stop() -> [ClientLog] {
            _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
            let deadline = Date().addingTimeInterval(30)
            return processes.map { name, process, log in
                while process.isRunning && Date() < deadline { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                var result = ClientLog(name: name, text: String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))
                result.status = process.terminationStatus
                result.stderr = String(decoding: FileManager.default.contents(atPath: log + ".stderr") ?? Data(), as: UTF8.self)
                return result
            }
        }
    }

    /// A process holding a lock or transaction on the working copy (`Clients/holder.py`).
    final class Holder {
        private let process: Process
        private let input: Pipe
        private let output: Pipe

        /// Starts `holder.py mode path seconds` and returns once it holds.
        init(_ mode: String, on path: String, seconds: Double) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", NoLostRowsTests.clients + "/holder.py", mode, path, "\(seconds)"]
            input = Pipe()
            output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            try #require(ready.hasPrefix("ready"), "the holder (\(mode)) did not start: \(ready)")
        }

        var isHolding: Bool { process.isRunning }

        /// Releases what it holds (it commits a write) and returns what it printed last:
        /// `committed <id>`, `released` or `error …`.
        ///
        /// - Parameter early: Release now; otherwise wait for the holder's own time to end.
        @discardableResult
        func release(early: Bool = true) -> String {
            if early { try? input.fileHandleForWriting.close() }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        deinit {
            if process.isRunning { _ = release() }
        }
    }

    /// Errors of `logs` counted by SQLite error name.
    static func errorsByKind(_ logs: [ClientLog]) -> [String: Int] {
        logs.flatMap(\.errors).reduce(into: [:]) { $0[$1.name, default: 0] += 1 }
    }

    /// Errors of `logs` counted by client, phase and name (`reader1 open SQLITE_CORRUPT`),
    /// for the failure message.
    static func errorsByPlace(_ logs: [ClientLog]) -> [String: Int] {
        logs.flatMap { log in log.errors.map { "\(log.name) \($0.phase) \($0.name)" } }.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    // MARK: 1. Per-request clients

    /// Two readers and two writers open the database for every transaction (2 ms apart)
    /// through 30 alternating `swap` deploys, then 30 `auto` deploys.
    ///
    /// In WAL mode a swap must see every connection closed at once to leave WAL, and
    /// writers opening back to back can keep it from ever seeing that moment within its
    /// `--wait` (on a slow disk more than a fast one): such a swap is refused as in use
    /// (exit 75), which is what the documentation promises, and must have changed
    /// nothing. Every other exit is a failure, and most swaps must go through.
    @Test(arguments: ["delete", "wal"])
    func perRequestClientsNeverReadABrokenOrMixedDatabase(journalMode: String) throws {
        // Given: v1 deployed, then 2 readers and 2 writers opening per transaction.
        try #require(try cli.run(["deploy"] + flags(1)).status == 0)
        let clients = Clients(root: cli.root)
        for role in ["reader", "writer"] {
            for index in 1...2 {
                let name = "\(role)\(index)"
                try clients.start(name, "per_request_client.py", [role, journalMode, cli.workingCopy, "{stop}", "{log}", name], root: cli.root)
            }
        }

        // When: 30 swap deploys, then 30 auto deploys, alternating v2 and v1.
        var exits: [String: [Int32: Int]] = [:]
        var strategies: [String: Int] = [:]
        var failures: [String] = []
        var refusedSwaps: [String] = []
        var changingRefusals: [String] = []
        let started = Date()
        for strategy in ["swap", "auto"] {
            for round in 0..<30 {
                let version = round % 2 == 0 ? 2 : 1
                let refusable = strategy == "swap" && journalMode == "wal"
                // What a refused run must leave as it was (the clients touch neither the
                // settings nor the link).
                let before = refusable ? (settings: cli.bytes(cli.settingsFile), link: cli.generationFile, content: contentVersion()) : nil
                let result = try cli.run(["deploy", "--strategy", strategy, "--wait", "30", "--json"] + flags(version))
                exits[strategy, default: [:]][result.status, default: 0] += 1
                if result.status == 0, let used = try? result.seeds().first?["strategy"] as? String {
                    strategies["\(strategy)->\(used)", default: 0] += 1
                }
                let run = "\(strategy) #\(round) -> v\(version): exit \(result.status): \(result.stderr)"
                if let before, result.status == 75, result.stderr.contains("database in use by another process") {
                    refusedSwaps.append(run)
                    if cli.bytes(cli.settingsFile) != before.settings || cli.generationFile != before.link || contentVersion() != before.content || before.content == nil {
                        changingRefusals.append(run)
                    }
                } else if result.status != 0 {
                    failures.append(run)
                }
                usleep(20_000)
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let logs = clients.stop()

        // Then: no client read a broken or mixed database, writes failed only as documented.
        let readers = logs.filter { $0.name.hasPrefix("reader") }
        let writers = logs.filter { $0.name.hasPrefix("writer") }
        let all = logs.flatMap(\.errors)
        let corrupt = all.filter(\.isCorrupt).count
        let ioErrors = all.filter(\.isIOError).count
        let mixed = logs.flatMap(\.mixed)
        let writeErrors = writers.flatMap(\.errors)
        // A refused swap that changed something is also counted as data lost.
        let refused = failures.count + refusedSwaps.count
        ReliabilityLog.record(
            suite: "per-request clients (\(journalMode))", trials: 60, dataLost: corrupt + ioErrors + mixed.count + changingRefusals.count,
            clients: logs.count, deploys: 60, refused: refused, errors: Self.errorsByKind(logs),
            transactions: logs.map(\.transactions).reduce(0, +), mixed: mixed.count,
            rowsCommitted: writers.map(\.committed.count).reduce(0, +))
        let summary = """
            \(journalMode): \(String(format: "%.1f", elapsed)) s; exits \(exits); strategies used \(strategies); refused swaps \(refusedSwaps.count); \
            transactions \(logs.map { "\($0.name)=\($0.transactions)" }); errors [\(Self.errorsByPlace(logs).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))]; \
            mixed \(mixed.count); writes committed \(writers.map(\.committed.count).reduce(0, +)), \
            failed busy \(writeErrors.filter(\.isBusy).count), moved \(writeErrors.filter(\.isDatabaseMoved).count)
            """
        print(summary)

        #expect(failures.count == 0, "every deploy exits 0, or 75 for a swap starved in WAL mode: \(failures.prefix(3))")
        #expect(changingRefusals.isEmpty, "a refused swap changed the settings, the link or the working copy's content: \(changingRefusals.prefix(3))")
        #expect(refusedSwaps.count <= 5, "most swaps go through: \(refusedSwaps.count) of 30 refused: \(refusedSwaps.prefix(3))")
        #expect(corrupt == 0, "SQLITE_CORRUPT: \(all.filter(\.isCorrupt).prefix(3).map(\.message)) — \(summary)")
        #expect(ioErrors == 0, "SQLITE_IOERR: \(all.filter(\.isIOError).prefix(3).map { "\($0.name) \($0.message)" }) — \(summary)")
        #expect(mixed.count == 0, "mixed-version transactions (meta, min, max, count, expected): \(mixed.prefix(3))")
        let unexpected = logs.flatMap(\.unexpected)
        #expect(unexpected.count == 0, "errors other than SQLITE_BUSY, SQLITE_READONLY_DBMOVED and SQLITE_READONLY: \(unexpected.prefix(5).map { "\($0.phase) \($0.name) \($0.message)" })")
        for log in logs {
            #expect(log.status == 0 && log.finished, "client \(log.name) exited \(log.status): \(log.stderr)")
            #expect(log.transactions > 0, "client \(log.name) completed no transaction")
        }
        for reader in readers {
            #expect(reader.versionsSeen == [1, 2], "reader \(reader.name) saw versions \(reader.versionsSeen.sorted()): the deploys were visible")
        }
        #expect(contentVersion() == 1, "the last deploy installed v1")
        #expect(try recordedVersion(current: 1) == "1")
        #expect(integrityCheck() == "ok")
    }

    // MARK: 2. Lost rows

    /// One long-lived connection commits about 75 rows a second into the preserved table
    /// `progress` and into `user_notes`, a table the app created (not in the seed), through
    /// 10 `auto` and 10 `live` reseeds. Every row it committed must be in the final copy.
    @Test(arguments: ["delete", "wal"], [false, true])
    func everyCommittedRowSurvivesAutoAndLiveReseeds(journalMode: String, merged: Bool) throws {
        // Given: v1 deployed with progress preserved (and, merged, the user's edits merged
        // into every new seed), and an app writing through one connection.
        // A data seed merges by default: the unmerged case asks for the plain replace.
        let merge = merged ? ["--merge", "user-wins"] : ["--merge", "off"]
        #expect(try cli.run(["deploy"] + flags(1, preserve: true) + merge).status == 0)
        let clients = Clients(root: cli.root)
        try clients.start("writer", "long_lived_writer.py", [journalMode, cli.workingCopy, "{stop}", "{log}", "75"], root: cli.root)
        usleep(300_000)

        // When: 10 auto and 10 live reseeds, alternating v2 and v1.
        var failures: [String] = []
        for strategy in ["auto", "live"] {
            for round in 0..<10 {
                let version = round % 2 == 0 ? 2 : 1
                let result = try cli.run(["reseed", "--strategy", strategy, "--wait", "30"] + flags(version, preserve: true) + merge)
                if result.status != 0 { failures.append("\(strategy) #\(round): exit \(result.status): \(result.stderr)") }
                usleep(150_000)
            }
        }
        usleep(300_000)
        let log = try #require(clients.stop().first)

        // Then: every id logged after a commit is in the final working copy.
        let progress = try ids(in: "progress")
        let notes = try ids(in: "user_notes")
        let lostProgress = log.committed.filter { !progress.contains($0) }
        let lostNotes = log.committedNotes.filter { !notes.contains($0) }
        let committed = log.committed.count + log.committedNotes.count
        let found = committed - lostProgress.count - lostNotes.count
        ReliabilityLog.record(
            suite: "lost rows (\(journalMode)\(merged ? ", merged" : ""))", trials: 20, dataLost: lostProgress.count + lostNotes.count,
            clients: 1, deploys: 20, refused: failures.count, errors: Self.errorsByKind([log]),
            transactions: committed, rowsCommitted: committed, rowsFound: found)
        print("""
            lost rows (\(journalMode)\(merged ? ", merged" : "")): progress committed \(log.committed.count), found \(log.committed.count - lostProgress.count); \
            user_notes committed \(log.committedNotes.count), found \(log.committedNotes.count - lostNotes.count); \
            reopened \(log.reopened); errors \(Self.errorsByKind([log])); failed reseeds \(failures.count)
            """)

        #expect(failures.count == 0, "every reseed exits 0: \(failures.prefix(3))")
        #expect(log.status == 0 && log.finished, "the writer exited \(log.status): \(log.stderr)")
        #expect(log.committed.count > 100, "the writer committed \(log.committed.count) progress rows")
        #expect(lostProgress.count == 0, "\(lostProgress.count) of \(log.committed.count) committed progress rows lost, e.g. \(lostProgress.prefix(10))")
        #expect(lostNotes.count == 0, "\(lostNotes.count) of \(log.committedNotes.count) committed user_notes rows lost, e.g. \(lostNotes.prefix(10))")
        #expect(log.errors.filter { $0.isCorrupt || $0.isIOError }.count == 0, "\(log.errors.filter { $0.isCorrupt || $0.isIOError }.prefix(3).map(\.message))")
        #expect(log.unexpected.count == 0, "writer errors other than busy and moved: \(log.unexpected.prefix(5).map { "\($0.phase) \($0.name) \($0.message)" })")
    }

    // MARK: 3. The carry waiting for a lock

    /// What a refused run must leave exactly as it was.
    struct Scene: Equatable {
        var settings: Data?
        var workingCopy: Data?
        var listing: [String]
    }

    func scene() -> Scene {
        Scene(settings: cli.bytes(cli.settingsFile), workingCopy: cli.bytes(cli.workingCopy), listing: cli.list(cli.appData))
    }

    /// A writer holds a transaction for 3 s; a deploy with `--wait 10` waits for it and
    /// carries its row.
    @Test(arguments: ["delete", "wal"])
    func theCarryWaitsForAWriterWithinWait(journalMode: String) throws {
        #expect(try cli.run(["deploy"] + flags(1, preserve: true)).status == 0)
        let holder = try Holder(journalMode == "wal" ? "write-wal" : "write", on: cli.workingCopy, seconds: 3)

        let started = Date()
        let result = try cli.run(["deploy", "--wait", "10", "--json"] + flags(2, preserve: true))
        let elapsed = Date().timeIntervalSince(started)
        let held = holder.release(early: false)

        let carried = result.status == 0 && held.hasPrefix("committed") ? try ids(in: "progress").contains(777001) : false
        ReliabilityLog.record(suite: "carry waits for a writer (\(journalMode))", trials: 1,
                              dataLost: held.hasPrefix("committed") && !carried ? 1 : 0)
        #expect(result.status == 0, "exit \(result.status) after \(String(format: "%.2f", elapsed)) s: \(result.stderr)")
        #expect(held.hasPrefix("committed"), "the holder's commit: \(held)")
        if held.hasPrefix("committed") && result.status == 0 {
            #expect(carried, "the row the holder committed while the deploy waited was carried into v2")
        }
        #expect(contentVersion() == 2)
        #expect(try recordedVersion(current: 2) == "2")
    }

    /// The same writer, held past `--wait 1`: exit 75 naming the table, nothing changed.
    @Test(arguments: ["delete", "wal"])
    func theCarryGivesUpAfterWaitNamingTheTable(journalMode: String) throws {
        #expect(try cli.run(["deploy"] + flags(1, preserve: true)).status == 0)
        // Holds for at least 3 s, and until the comparison below is made.
        let holder = try Holder(journalMode == "wal" ? "write-wal" : "write", on: cli.workingCopy, seconds: 60)
        let before = scene()

        let started = Date()
        let result = try cli.run(["deploy", "--wait", "1"] + flags(2, preserve: true))
        let elapsed = Date().timeIntervalSince(started)
        let after = scene()
        let stillHolding = holder.isHolding
        usleep(UInt32(max(0, 3 - Date().timeIntervalSince(started)) * 1_000_000))
        let held = holder.release()

        ReliabilityLog.record(suite: "carry waits for a writer (\(journalMode))", trials: 1, dataLost: after == before ? 0 : 1)
        #expect(stillHolding, "the holder still held its transaction when the deploy ended")
        #expect(result.status == 75, "exit \(result.status) after \(String(format: "%.2f", elapsed)) s: \(result.stderr)")
        #expect(result.stderr.contains("progress"), "stderr names the table the carry waited for: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(elapsed >= 0.9, "it waited the --wait second, not \(String(format: "%.2f", elapsed)) s")
        #expect(after.settings == before.settings, "settings bytes unchanged")
        #expect(after.workingCopy == before.workingCopy, "working copy bytes unchanged")
        #expect(after.listing == before.listing, "directory unchanged: \(before.listing) -> \(after.listing)")
        #expect(held.hasPrefix("committed"), "the holder's commit: \(held)")
        #expect(try recordedVersion(current: 2) == "1")
    }

    // MARK: 4. Refused runs change nothing

    /// Under every strategy and every way an app can hold the database, a `deploy --wait 1`
    /// that gives up (75) leaves the settings bytes, the directory and the recorded
    /// version as they were; one that goes ahead (0) deploys v2.
    @Test(arguments: ["auto", "swap", "live"], ["read-rollback", "open-wal", "write"])
    func aRefusedDeployChangesNothing(strategy: String, holding: String) throws {
        #expect(try cli.run(["deploy"] + flags(1)).status == 0)
        let holder = try Holder(holding, on: cli.workingCopy, seconds: 60)
        let before = scene()
        #expect(cli.list(cli.appData).allSatisfy { !$0.hasSuffix(".previous") })

        let result = try cli.run(["deploy", "--strategy", strategy, "--wait", "1"] + flags(2))
        let after = scene()
        let recorded = try recordedVersion(current: 2)
        let held = holder.release()
        let version = contentVersion()

        print("refused run: \(strategy) / \(holding): exit \(result.status) \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        if result.status == 0 {
            ReliabilityLog.record(suite: "refused runs", trials: 1, dataLost: recorded == "2" && version == 2 ? 0 : 1)
            #expect(recorded == "2", "\(strategy) / \(holding): exit 0, recorded \(recorded ?? "nothing")")
            #expect(version == 2, "\(strategy) / \(holding): exit 0, the working copy holds v\(version.map(String.init) ?? "?")")
            return
        }
        let intact = after.settings == before.settings && after.listing == before.listing && recorded == "1" && version == 1
        ReliabilityLog.record(suite: "refused runs", trials: 1, dataLost: intact ? 0 : 1)
        #expect(result.status == 75, "\(strategy) / \(holding): exit \(result.status): \(result.stderr)")
        #expect(after.settings == before.settings, "\(strategy) / \(holding): settings bytes unchanged")
        #expect(after.listing == before.listing, "\(strategy) / \(holding): directory \(before.listing) -> \(after.listing)")
        #expect(!after.listing.contains("levels.sqlite.previous"), "\(strategy) / \(holding): no previous generation appeared")
        #expect(recorded == "1", "\(strategy) / \(holding): status reports recorded \(recorded ?? "nothing")")
        #expect(version == 1, "\(strategy) / \(holding): the working copy holds v\(version.map(String.init) ?? "?")")
        #expect(!held.hasPrefix("error"), "\(strategy) / \(holding): the holder: \(held)")
    }
}
