import Foundation
import Testing

/// Malformed settings, manifests, seeds, versions and XDG
/// variables. Each gives a clear one-line error and its exit code, or the documented
/// recovery; never a crash, a hang, or a changed working copy.
@Suite struct BadInputIsRefusedTests {
    /// One malformed input: how to plant it, what to run, which exit codes are right.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var statuses: Set<Int32>
        /// Plants the input; returns the arguments to run.
        var plant: @Sendable (CLIHarness) throws -> [String]
        var environment: @Sendable (CLIHarness) -> [String: String] = { _ in [:] }
        var testDescription: String { name }
    }

    static func settings(_ name: String, _ bytes: @escaping @Sendable () -> Data) -> Case {
        // Documented recovery: set aside, redeploy (same seed, same bytes), exit 0.
        Case(name: "settings: \(name)", statuses: [0]) { cli in
            try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
            try bytes().write(to: URL(fileURLWithPath: cli.settingsFile))
            return ["deploy"] + cli.seedFlags(1)
        }
    }

    static func manifest(_ name: String, _ text: @escaping @Sendable () -> String) -> Case {
        Case(name: "manifest: \(name)", statuses: [78]) { cli in
            let path = cli.root + "/seeds.json"
            try Data(text().utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: cli.root + "/levels.sqlite")
            return ["deploy", "--manifest", path]
        }
    }

    static func seed(_ name: String, status: Int32, _ bytes: @escaping @Sendable (Data) -> Data?) -> Case {
        Case(name: "seed: \(name)", statuses: [status]) { cli in
            let path = cli.root + "/bad.sqlite"
            let original = cli.bytes("\(CLIHarness.seeds)/v2/levels.sqlite") ?? Data()
            if let data = bytes(original) { try data.write(to: URL(fileURLWithPath: path)) }
            return ["reseed", "--name", "levels.sqlite"] + cli.seedFlags(2, source: path)
        }
    }

    static func version(_ name: String, _ value: String) -> Case {
        Case(name: "version: \(name)", statuses: [64]) { cli in
            ["deploy", "--app", cli.app, "--seed", "\(CLIHarness.seeds)/v1/levels.sqlite", "--version", value]
        }
    }

    static func xdg(_ name: String, statuses: Set<Int32>, _ value: @escaping @Sendable (CLIHarness) -> String) -> Case {
        Case(name: "XDG_DATA_HOME \(name)", statuses: statuses, plant: { cli in ["deploy"] + cli.seedFlags(1) },
             environment: { cli in ["XDG_DATA_HOME": value(cli)] })
    }

    static let entry = #"{"source": "levels.sqlite", "version": "1"}"#

    static let cases: [Case] = [
        settings("truncated") { Data(#"{"seeddb": {"levels.sqlite": {"vers"#.utf8) },
        settings("empty") { Data() },
        settings("binary") { Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) }) },
        settings("array") { Data("[1, 2, 3]".utf8) },
        settings("a bare string") { Data(#""seeddb""#.utf8) },
        settings("deep nesting, 10 000 levels") { Data((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8) },
        settings("50 MiB of garbage") { Data(repeating: 0x7B, count: 50 << 20) },
        settings("50 MiB valid object") { Data(("{\"blob\": \"" + String(repeating: "x", count: 50 << 20) + "\"}").utf8) },
        settings("wrong types") { Data(#"{"seeddb": {"levels.sqlite": {"version": 1, "sha256": [], "size": "big", "deployedAt": null}}}"#.utf8) },
        settings("seeddb is a number") { Data(#"{"seeddb": 42, "theme": "dark"}"#.utf8) },
        settings("duplicate keys") { Data(#"{"seeddb": {}, "seeddb": {"levels.sqlite": 5}}"#.utf8) },
        settings("invalid UTF-8") { Data([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]) },
        settings("NUL bytes") { Data([0x7B, 0x00, 0x7D]) },
        manifest("not JSON") { "seeds: [levels.sqlite]" },
        manifest("an array") { "[\(entry)]" },
        manifest("missing app") { #"{"seeds": [\#(entry)]}"# },
        manifest("missing seeds") { #"{"app": "a"}"# },
        manifest("missing source") { #"{"app": "a", "seeds": [{"version": "1"}]}"# },
        manifest("missing version") { #"{"app": "a", "seeds": [{"source": "levels.sqlite"}]}"# },
        manifest("unknown top-level key") { #"{"app": "a", "sedes": [], "seeds": [\#(entry)]}"# },
        manifest("unknown seed key") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "verison": "2"}]}"# },
        manifest("absolute name") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "name": "/etc/passwd"}]}"# },
        manifest("dot-dot name") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "name": ".."}]}"# },
        manifest("name with a path") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "name": "../../x.db"}]}"# },
        manifest("empty app id") { #"{"app": "", "seeds": [\#(entry)]}"# },
        manifest("app id escaping its directory") { #"{"app": "../../etc", "seeds": [\#(entry)]}"# },
        manifest("10 000 seeds") { #"{"app": "a", "seeds": ["# + (0..<10_000).map { #"{"source": "s\#($0).db", "version": "1"}"# }.joined(separator: ",") + "]}" },
        manifest("version with NUL") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1\u0000"}]}"# },
        manifest("version of 10 KiB") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "\#(String(repeating: "9", count: 10_240))"}]}"# },
        manifest("version with a newline") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1\n2"}]}"# },
        manifest("location not data or cache") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "location": "/tmp"}]}"# },
        manifest("sha256 not hex") { #"{"app": "a", "seeds": [{"source": "levels.sqlite", "version": "1", "sha256": "xyz"}]}"# },
        seed("zero bytes", status: 65) { _ in Data() },
        seed("truncated header", status: 65) { $0.prefix(50) },
        seed("valid header, garbage pages", status: 65) { var data = $0; data.replaceSubrange(4096..<8192, with: Data(repeating: 0xA5, count: 4096)); return data },
        seed("wrong page size", status: 65) { var data = $0; data[16] = 0x03; data[17] = 0xE8; return data },
        seed("not SQLite at all", status: 65) { _ in Data("SELECT * FROM levels;\n".utf8) },
        seed("truncated body", status: 65) { $0.prefix(6000) },
        seed("missing", status: 66) { _ in nil },
        Case(name: "seed: a -wal with frames", statuses: [65]) { cli in
            let path = try cli.copySeed(2, to: "walled.sqlite")
            _ = FileManager.default.createFile(atPath: path + "-wal", contents: Data(repeating: 7, count: 4096 + 56))
            return ["reseed", "--name", "levels.sqlite"] + cli.seedFlags(2, source: path)
        },
        Case(name: "seed: a directory", statuses: [66]) { cli in
            try FileManager.default.createDirectory(atPath: cli.root + "/dir.sqlite", withIntermediateDirectories: true)
            return ["reseed", "--name", "levels.sqlite"] + cli.seedFlags(2, source: cli.root + "/dir.sqlite")
        },
        version("empty", ""),
        version("10 KiB", String(repeating: "7", count: 10_240)),
        version("with a newline", "1\n2"),
        version("with a tab", "1\t2"),
        Case(name: "app id: with a slash", statuses: [64]) { cli in
            ["deploy", "--app", "a/b", "--seed", "\(CLIHarness.seeds)/v1/levels.sqlite", "--version", "1"]
        },
        // Relative and empty values are ignored (the XDG spec): the copy goes under $HOME.
        xdg("relative", statuses: [0]) { _ in "relative/data" },
        xdg("empty", statuses: [0]) { _ in "" },
        xdg("pointing at a file", statuses: [73]) { cli in
            _ = FileManager.default.createFile(atPath: cli.root + "/plain-file", contents: Data())
            return cli.root + "/plain-file"
        },
    ]

    @Test(arguments: cases)
    func malformedInput(_ input: Case) throws {
        let cli = CLIHarness()
        // An existing deploy, which no bad input may damage.
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let before = cli.bytes(cli.workingCopy)
        let arguments = try input.plant(cli)
        let result = cli.finish(try cli.start(arguments, environment: input.environment(cli)), timeout: 60)
        #expect(result.status != -1, "\(input.name): hung")
        #expect(result.killedBy == nil, "\(input.name): crashed with signal \(result.killedBy ?? 0)")
        #expect(input.statuses.contains(result.status), "\(input.name): exit \(result.status): \(result.stderr)")
        if result.status != 0 {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("seeddb: error: ") || lines.first?.hasPrefix("Error: ") == true,
                    "\(input.name): one clear line: \(result.stderr.prefix(300))")
        }
        #expect(cli.bytes(cli.workingCopy) == before, "\(input.name): the working copy is unchanged")
        #expect(cli.temporaryFiles.isEmpty)
        let clean = input.statuses.contains(result.status) && cli.bytes(cli.workingCopy) == before && result.killedBy == nil
        ReliabilityLog.record(suite: "bad input: \(input.name)", badInputs: 1, dataLost: clean ? 0 : 1)
    }

    @Test func thereAreAtLeastFortyBadInputs() {
        #expect(Self.cases.count >= 40)
    }
}
