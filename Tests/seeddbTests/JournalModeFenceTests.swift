import Foundation
import Testing

/// No write reported successful is lost, whatever the journal mode: one long-lived
/// connection (Python's `sqlite3`, opened once) in `delete`, `truncate`, `persist`,
/// `memory`, `off` or `wal` mode commits a row into a table of its own every 20 ms while
/// 10 `reseed --strategy swap` and 10 `reseed` (`auto`) runs go by. It logs each id only
/// after its commit returned; a failed write makes it reopen (as an app does after an
/// error). Every logged id must be in the final working copy. (In WAL mode a `swap`
/// refuses, 75, while the connection is open; that changes nothing.)
@Suite(.serialized) struct JournalModeFenceTests {
    static let writer = """
    import os, sqlite3, sys, time
    path, mode, stop, log = sys.argv[1:5]
    def connect():
        c = sqlite3.connect(path, isolation_level=None, timeout=5)
        c.execute('PRAGMA journal_mode=' + mode).fetchone()
        return c
    c = connect()
    c.execute('CREATE TABLE IF NOT EXISTS writes(id INTEGER PRIMARY KEY)')
    out = open(log, 'w', buffering=1)
    print('ready', flush=True)
    i, errors = 0, {}
    while not os.path.exists(stop):
        i += 1
        try:
            c.execute('INSERT INTO writes VALUES (?)', (i,))
            out.write('C\\t%d\\n' % i)
        except sqlite3.Error as e:
            errors[getattr(e, 'sqlite_errorname', type(e).__name__)] = errors.get(getattr(e, 'sqlite_errorname', type(e).__name__), 0) + 1
            try:
                c.close()
            except sqlite3.Error:
                pass
            c = connect()
        time.sleep(0.02)
    c.close()
    out.write('E\\t%s\\n' % ' '.join('%s=%d' % kv for kv in sorted(errors.items())))
    """

    @Test(arguments: ["delete", "truncate", "persist", "memory", "off", "wal"])
    func everyReportedCommitIsInTheWorkingCopy(journalMode: String) throws {
        let cli = CLIHarness()
        let first = try cli.run(["deploy"] + cli.seedFlags(1))
        try #require(first.status == 0, "status \(first.status), killed by \(first.killedBy.map(String.init) ?? "nothing"): \(first.stderr)")
        try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE writes(id INTEGER PRIMARY KEY)'")
        let stop = cli.root + "/stop"
        let log = cli.root + "/writes.log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.writer, cli.workingCopy, journalMode, stop, log]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        _ = output.fileHandleForReading.availableData  // "ready"

        var failed: [String] = []
        for run in 0..<20 {
            let strategy = run < 10 ? ["--strategy", "swap"] : []
            let result = try cli.run(["reseed", "--wait", "2"] + strategy + cli.seedFlags(1))
            // A swap cannot have a WAL database another connection keeps open: it refuses
            // (75) and changes nothing, as documented; `auto` then goes live.
            let refusedSwap = journalMode == "wal" && !strategy.isEmpty && result.status == 75
            if result.status != 0 && !refusedSwap { failed.append(result.stderr) }
            usleep(60_000)
        }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        process.waitUntilExit()

        let lines = String(decoding: cli.bytes(log) ?? Data(), as: UTF8.self).split(separator: "\n")
        let committed = lines.filter { $0.hasPrefix("C\t") }.compactMap { Int($0.dropFirst(2)) }
        let errors = lines.first { $0.hasPrefix("E\t") }.map { String($0.dropFirst(2)) } ?? ""
        let found = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT id FROM writes'").stdout
            .split(separator: "\n").compactMap { Int($0) }
        let lost = Set(committed).subtracting(found)
        print("journal mode \(journalMode): committed \(committed.count), found \(committed.count - lost.count), client errors [\(errors)], failed reseeds \(failed.count)")
        #expect(process.terminationStatus == 0)
        #expect(committed.count > 50, "the writer committed \(committed.count) rows")
        #expect(failed.isEmpty, "\(failed.prefix(3))")
        #expect(lost.isEmpty, "\(lost.count) of \(committed.count) rows reported committed are gone, e.g. \(lost.sorted().prefix(10))")
        ReliabilityLog.record(
            suite: "long-lived writer (\(journalMode))", trials: 20, dataLost: lost.count, clients: 1, deploys: 20,
            refused: failed.count, errors: Dictionary(uniqueKeysWithValues: errors.split(separator: " ").compactMap { pair -> (String, Int)? in
                let parts = pair.split(separator: "=")
                return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? 0) : nil
            }), transactions: committed.count, rowsCommitted: committed.count, rowsFound: committed.count - lost.count)
    }
}
