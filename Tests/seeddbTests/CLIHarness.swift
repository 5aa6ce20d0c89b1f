import Foundation
import Testing

/// Runs the built `seeddb` binary in a private set of XDG directories, as a user would.
final class CLIHarness: @unchecked Sendable {
    /// What one run produced.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Standard output parsed as the one JSON object `--json` prints.
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "stdout: \(stdout) stderr: \(stderr)")
        }

        /// The `seeds` array of the JSON output.
        func seeds() throws -> [[String: Any]] {
            try #require(try json()["seeds"] as? [[String: Any]])
        }
    }

    let root: String
    let app = "com.example.levels"

    init() {
        var template = Array("/tmp/seeddb-cli-XXXXXX".utf8CString)
        root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The `seeddb` executable next to the test bundle.
    static let binary: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            Bundle.main.bundleURL.path,
            Bundle.main.bundleURL.deletingLastPathComponent().path,
        ].map { $0 + "/seeddb" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// The repository's demo seeds.
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Seeds"

    var environment: [String: String] {
        [
            "HOME": root + "/home",
            "XDG_DATA_HOME": root + "/data",
            "XDG_CACHE_HOME": root + "/cache",
            "XDG_CONFIG_HOME": root + "/config",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
    }

    var appData: String { root + "/data/" + app }
    var workingCopy: String { appData + "/levels.sqlite" }
    var settingsFile: String { root + "/config/" + app + "/settings.json" }

    /// Flags describing the demo seed `version` (1 or 2) from its committed file.
    func seedFlags(_ version: Int, source: String? = nil) -> [String] {
        ["--app", app, "--seed", source ?? "\(Self.seeds)/v\(version)/levels.sqlite", "--version", "\(version)"]
    }

    /// Starts `seeddb arguments` without waiting for it.
    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, stdout, stderr)
    }

    /// Waits for a started run and collects its output.
    func finish(_ started: (Process, Pipe, Pipe)) -> Result {
        let (process, stdout, stderr) = started
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs `seeddb arguments` to completion.
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Result {
        finish(try start(arguments, environment: extra))
    }

    /// Runs a shell command (for fixtures: sqlite3 sessions, python crashers).
    @discardableResult
    func shell(_ script: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// A helper process that holds something (a lock, a transaction) until released.
    final class Holder {
        private let process: Process
        private let input: Pipe

        fileprivate init(process: Process, input: Pipe) {
            self.process = process
            self.input = input
        }

        /// Ends the helper (it exits when its standard input closes) and waits for it.
        func release() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        deinit { release() }
    }

    /// Runs a Python `setup` snippet, then keeps the process alive until released.
    /// Returns once `setup` has run.
    func hold(_ setup: String) throws -> Holder {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", setup + "\nimport sys\nprint('ready', flush=True)\nsys.stdin.read()\n"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let holder = Holder(process: process, input: input)
        let line = output.fileHandleForReading.availableData
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("ready"), "the helper failed to start")
        return holder
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

    /// Entries of a directory, sorted.
    func list(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}
