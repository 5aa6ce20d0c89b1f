@_exported import SeedDBTestSupport
import Foundation
import GRDB
import Testing

/// Runs the built `seeddb` binary in a private set of XDG directories, as a user would.
final class CLIHarness: @unchecked Sendable {
    /// What one run produced.
    struct Result {
        /// The exit status; the signal number when `killedBy` is set; -1 for a hang.
        var status: Int32
        var stdout: String
        var stderr: String
        /// The signal that ended the process, if one did.
        var killedBy: Int32? = nil

        /// Standard output parsed as the one JSON object `--json` prints.
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "stdout: \(stdout) stderr: \(stderr)")
        }

        /// The `seeds` array of the JSON output.
        func seeds() throws -> [[String: Any]] {
            try #require(try json()["seeds"] as? [[String: Any]])
        }
    }

    /// The harness's own temporary directory (`nil` for one rooted elsewhere).
    private let directory: TemporaryDirectory?
    let root: String
    let app = "com.example.levels"

    init() {
        let directory = TemporaryDirectory(prefix: "seeddb-cli")
        self.directory = directory
        root = directory.path
    }

    /// A harness rooted at `root` (created, and removed with the harness), to run on a
    /// given file system.
    init(root: String) {
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        directory = nil
        self.root = root
    }

    deinit { if directory == nil { try? FileManager.default.removeItem(atPath: root) } }

    /// The folder of the products built with the test bundle (`.build/debug`): the
    /// `seeddb` and `levels-demo` executables.
    static let products: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            Bundle.main.bundleURL.path,
            Bundle.main.bundleURL.deletingLastPathComponent().path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/seeddb") } ?? candidates[0]
    }()

    /// The `seeddb` executable the tests run: `SEEDDB_BINARY` when set (`.ci/run` sets it
    /// to the release binary it packages, which parses a command line in milliseconds
    /// where a debug build spends about 0.6 s of CPU:
    /// swift-argument-parser checks every option group again at each parse in debug
    /// builds), else the one built with the tests.
    static let binary: String = {
        if let chosen = ProcessInfo.processInfo.environment["SEEDDB_BINARY"], !chosen.isEmpty { return chosen }
        return products + "/seeddb"
    }()

    /// The repository's demo seeds.
    static let seeds = DemoSeeds.folder

    var environment: [String: String] {
        [
            "HOME": root + "/home",
            "XDG_DATA_HOME": root + "/data",
            "XDG_CACHE_HOME": root + "/cache",
            "XDG_CONFIG_HOME": root + "/config",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ].merging(Self.backtracer.map { ["SWIFT_BACKTRACE": "enable=yes,interactive=no,threads=all,swift-backtrace=\($0)"] } ?? [:]) { $1 }
    }

    /// The Swift toolchain's backtracer (`swift-backtrace-static` beside the `swift` on
    /// `PATH`), if found: a hung run gets `SIGQUIT` first and prints every
    /// thread's stack on its standard error, so a hang in CI says where it was.
    static let backtracer: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        for directory in directories {
            let swift = URL(fileURLWithPath: String(directory) + "/swift")
            guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
            let tool = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("libexec/swift/linux/swift-backtrace-static").path
            return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil
        }
        return nil
    }()

    var appData: String { root + "/data/" + app }
    var workingCopy: String { appData + "/levels.sqlite" }
    /// The generation file the working copy's link points at (`levels.sqlite.v2`).
    var generationFile: String { (try? FileManager.default.destinationOfSymbolicLink(atPath: workingCopy)) ?? "levels.sqlite" }
    /// The file that holds the working copy's content.
    var contentFile: String { appData + "/" + generationFile }
    var settingsFile: String { root + "/config/" + app + "/settings.json" }

    /// Flags describing the demo seed `version` (1 or 2) from its committed file.
    func seedFlags(_ version: Int, source: String? = nil) -> [String] {
        ["--app", app, "--seed", source ?? "\(Self.seeds)/v\(version)/levels.sqlite", "--version", "\(version)"]
    }

    /// A new harness holding a copy of this one's files (`cp -a`: links stay links), to
    /// start many trials from one state made once.
    func clone() throws -> CLIHarness {
        let copy = CLIHarness()
        let result = try shell("cp -a '\(root)/.' '\(copy.root)/'")
        #expect(result.status == 0, "\(result.stderr)")
        return copy
    }

    /// Starts `seeddb arguments` without waiting for it.
    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> SpawnedProcess {
        try SpawnedProcess(Self.binary, arguments, environment: environment.merging(extra) { $1 }, directory: root)
    }

    /// Waits for a started run and collects its output. A run not done after `timeout`
    /// (its output still open, or its process not ended) is a hang: it is reported with
    /// status -1, its standard error followed by what was found then
    /// (``hangReport(_:timeout:)``) and, with ``backtracer``, every thread's stack (a
    /// stopped run is resumed for it), then killed.
    func finish(_ process: SpawnedProcess, timeout: Double = 60) -> Result {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var report: String?
        if !process.readOutput(until: deadline) || !process.waitUntilEnded(until: deadline) {
            report = Self.hangReport(process, timeout: timeout)
            if Self.backtracer != nil {
                process.signal(SIGQUIT)
                process.signal(SIGCONT)
                // The backtracer lets the process go on after its last line: stop it there.
                process.readOutput(until: .now + .seconds(20)) { !process.errorsText.contains("Backtrace took") }
            }
            process.signal(SIGKILL)
            process.readOutput(until: .now + .seconds(5))
        }
        process.waitUntilExit()
        return Result(
            status: report != nil ? -1 : process.terminationStatus, stdout: process.outputText,
            stderr: process.errorsText + (report.map { "\n" + $0 } ?? ""), killedBy: process.killedBy)
    }

    /// What a run still going after `timeout` seconds was doing, from `/proc`: its state
    /// (`Z`: it ended, and something else keeps its output open) and kernel stack, and
    /// every process that holds its standard output's pipe (the run itself among them).
    private static func hangReport(_ process: SpawnedProcess, timeout: Double) -> String {
        let pid = process.processIdentifier
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "unreadable" }
        var status = stat()
        fstat(process.standardOutput.fileDescriptor, &status)
        let pipe = "pipe:[\(status.st_ino)]"
        let me = getpid()
        var holders: [String] = []
        for other in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(other) != nil && Int32(other) != me {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(other)/fd")) ?? []
            if descriptors.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(other)/fd/\($0)")) == pipe }) {
                holders.append("\(other) (\(read("/proc/\(other)/cmdline").replacingOccurrences(of: "\0", with: " ").prefix(120)))")
            }
        }
        return "[hang] pid \(pid) not done after \(Int(timeout)) s, state \(process.state.map(String.init) ?? "gone"); its stdout \(pipe) is held by \(holders.joined(separator: ", ")); kernel stack:\n\(read("/proc/\(pid)/stack"))"
    }

    /// Runs `seeddb arguments` to completion.
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Result {
        finish(try start(arguments, environment: extra))
    }

    /// Runs a shell command (for fixtures: sqlite3 sessions, python crashers); a command
    /// that `exec`s a process killed by a signal reports it in `killedBy`.
    @discardableResult
    func shell(_ script: String) throws -> Result {
        let process = try SpawnedProcess("/bin/sh", ["-c", script], environment: environment)
        process.readOutput(until: .now + .seconds(86_400))
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: process.outputText, stderr: process.errorsText, killedBy: process.killedBy)
    }

    /// A helper process that holds something (a lock, a transaction) until released.
    final class Holder {
        private let process: SpawnedProcess

        fileprivate init(process: SpawnedProcess) {
            self.process = process
        }

        /// Ends the helper (it exits when its standard input closes) and waits for it.
        func release() {
            try? process.standardInput?.close()
            process.waitUntilExit()
        }

        deinit { release() }
    }

    /// Runs a Python `setup` snippet, then keeps the process alive until released.
    /// Returns once `setup` has run.
    func hold(_ setup: String) throws -> Holder {
        let process = try SpawnedProcess(
            "/usr/bin/env", ["python3", "-c", setup + "\nimport sys\nprint('ready', flush=True)\nsys.stdin.read()\n"],
            environment: ProcessInfo.processInfo.environment, input: true)
        let holder = Holder(process: process)
        let line = String(decoding: process.standardOutput.availableData, as: UTF8.self)
        if !line.hasPrefix("ready") {
            try? process.standardInput?.close()
            process.readOutput(until: .now + .seconds(10))
            Issue.record("the helper failed to start: \(line)\(process.outputText)\(process.errorsText)")
        }
        return holder
    }

    /// A Python reader that queries the demo `levels` table in a loop, in rollback
    /// (`delete`) or WAL mode, until a stop file appears. It exits 3 on a mix of versions,
    /// 4 on any error but busy, and prints `OK <reads> <busy> <versions seen>`.
    static let reader = """
    import os, sqlite3, sys, time
    path, mode, stop = sys.argv[1:4]
    c = sqlite3.connect(path, isolation_level=None, timeout=0)
    if mode == 'wal':
        c.execute('PRAGMA journal_mode=WAL')
    print('ready', flush=True)
    seen, busy, reads = set(), 0, 0
    while not os.path.exists(stop):
        try:
            c.execute('BEGIN')
            count, hd = c.execute("SELECT count(*), total(background LIKE '%-hd' OR background = 'glacier') FROM levels").fetchone()
            c.execute('COMMIT')
        except sqlite3.OperationalError as e:
            if c.in_transaction:
                c.execute('ROLLBACK')
            if 'locked' in str(e) or 'busy' in str(e):
                busy += 1
                continue
            print('ERROR', e, flush=True)
            sys.exit(4)
        except sqlite3.DatabaseError as e:
            print('ERROR', e, flush=True)
            sys.exit(4)
        if (count, hd) == (20, 0):
            seen.add(1)
        elif (count, hd) == (24, 24):
            seen.add(2)
        else:
            print('MIXED', count, hd, flush=True)
            sys.exit(3)
        reads += 1
        time.sleep(0.001)
    print('OK', reads, busy, ' '.join(map(str, sorted(seen))), flush=True)
    """

    /// Starts `count` readers (``reader``) on the working copy; returns a function that
    /// stops them and returns each one's exit status and output.
    func startReaders(_ count: Int, journalMode: String) throws -> () -> [(Int32, String)] {
        let stop = root + "/stop-readers-\(UUID().uuidString)"
        var readers: [SpawnedProcess] = []
        for _ in 0..<count {
            let process = try SpawnedProcess(
                "/usr/bin/env", ["python3", "-c", Self.reader, workingCopy, journalMode, stop], environment: ProcessInfo.processInfo.environment)
            _ = process.standardOutput.availableData // "ready"
            readers.append(process)
        }
        return {
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            return readers.map { process in
                process.readOutput(until: .now + .seconds(60))
                process.waitUntilExit()
                let errors = process.errorsText.isEmpty || process.terminationStatus == 0 ? "" : "; stderr: " + process.errorsText
                return (process.terminationStatus, process.outputText.trimmingCharacters(in: .whitespacesAndNewlines) + errors)
            }
        }
    }

    /// The bytes of a file, or `nil` when it does not exist.
    func bytes(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// A copy of demo seed `version` at `name` under the harness root, for tampering.
    func copySeed(_ version: Int, to name: String) throws -> String {
        let path = root + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: "\(Self.seeds)/v\(version)/levels.sqlite", toPath: path)
        return path
    }

    /// A seed of about `megabytes` MiB whose `generation` table names it (`marker`),
    /// with a `levels` table of blobs. Built once per harness and name.
    func makeSeed(_ name: String, marker: String, megabytes: Int) throws -> String {
        let path = root + "/" + name
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
                CREATE TABLE generation(name TEXT NOT NULL);
                """)
            try db.execute(sql: "INSERT INTO generation VALUES (?)", arguments: [marker])
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO levels SELECT i, ?, randomblob(65536) FROM n
                """, arguments: [megabytes * 16 - 1, marker])
        }
        try queue.close()
        return path
    }

    /// The number of levels in the database at `path` (20 in demo v1, 24 in v2).
    func levelCount(_ path: String? = nil) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path ?? workingCopy, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM levels") ?? -1 }
    }

    /// What a database holds: one complete generation, or something broken.
    enum Content: Equatable {
        case generation(String)
        case broken(String)
    }

    /// The marker of the database at `path` (see ``makeSeed(_:marker:megabytes:)``) after
    /// `PRAGMA integrity_check`, or a description of what is wrong with it.
    func generation(of path: String) -> Content {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                let check = try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no result"
                guard check == "ok" else { return .broken("integrity_check: \(check)") }
                let markers = try String.fetchAll(db, sql: "SELECT name FROM generation")
                let backgrounds = try String.fetchAll(db, sql: "SELECT DISTINCT background FROM levels")
                guard markers.count == 1, backgrounds == markers else {
                    return .broken("mixed content: generation \(markers), levels \(backgrounds)")
                }
                return .generation(markers[0])
            }
        } catch {
            return .broken("\(error)")
        }
    }

    /// The settings file at `path` (default: the harness's) as a JSON object, or `nil`.
    func settings(_ path: String? = nil) -> [String: Any]? {
        bytes(path ?? settingsFile).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    /// SeedDB's entry for working copy `name` in the settings file at `path` (default:
    /// the harness's), or `nil`.
    func settingsEntry(_ path: String? = nil, name: String = "levels.sqlite") -> [String: Any]? {
        (settings(path)?["seeddb"] as? [String: Any])?[name] as? [String: Any]
    }

    /// The version recorded for `levels.sqlite`, and whether the settings file is a JSON
    /// object that still holds the app's `"theme": "dark"`.
    func recorded() -> (version: String?, appKeysIntact: Bool) {
        (settingsEntry()?["version"] as? String, settings()?["theme"] as? String == "dark")
    }

    /// Temporary files left in the app's data directory.
    var temporaryFiles: [String] {
        list(appData).filter { $0.hasSuffix(".tmp") }
    }

    /// Entries of a directory, sorted.
    /// Everything a failed or refused run must leave as it found it: the settings bytes,
    /// the working copy's bytes and link, and the listings of the app's directories.
    struct State: Equatable {
        var settings: Data?
        var workingCopy: Data?
        var data: [String]
        var config: [String]
        var link: String?
    }

    /// The ``State`` of this harness's files now.
    func state() -> State {
        State(
            settings: bytes(settingsFile), workingCopy: bytes(workingCopy),
            data: list(appData), config: list(root + "/config/" + app),
            link: try? FileManager.default.destinationOfSymbolicLink(atPath: workingCopy))
    }

    func list(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}
