import Foundation
import Testing

/// The system calls of a deploy, recorded with strace, happen
/// in the order that makes a crash at any point safe.
@Suite struct DurabilityOrderTests {
    let cli = CLIHarness()

    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `seeddb arguments` under strace and returns the trace's lines.
    func trace(_ arguments: [String]) throws -> [String] {
        let output = cli.root + "/trace-\(UUID().uuidString).txt"
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let calls = "openat,write,pwrite64,copy_file_range,ioctl,fsync,fdatasync,rename,renameat,renameat2,link,unlink"
        let result = try cli.shell("\(Self.strace!) -f -y -qq -o '\(output)' -e trace=\(calls) '\(CLIHarness.binary)' \(quoted)")
        #expect(result.status == 0, "\(result.stderr)")
        return String(decoding: cli.bytes(output) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The index of the first line at or after `start` matching `predicate`.
    func index(in lines: [String], after start: Int, _ what: String, _ predicate: (String) -> Bool) -> Int? {
        let found = lines.indices.first { $0 >= start && predicate(lines[$0]) }
        if found == nil { Issue.record("no \(what) after line \(start) in the trace") }
        return found
    }

    func isTemporary(_ line: String, stem: String) -> Bool {
        line.contains("/.\(stem).seeddb-") && line.contains(".tmp")
    }

    func assertOrder(_ lines: [String]) {
        let data = cli.appData
        let config = cli.root + "/config/\(cli.app)"
        var at = 0
        let steps: [(String, (String) -> Bool)] = [
            ("temp file written", { ($0.hasPrefix("copy_file_range(") || $0.contains(" copy_file_range(") || $0.contains("write(")) && self.isTemporary($0, stem: "levels.sqlite") }),
            ("temp file fsynced", { $0.contains("fsync(") && self.isTemporary($0, stem: "levels.sqlite") }),
            ("rename over the working copy", { $0.contains("rename") && self.isTemporary($0, stem: "levels.sqlite") && $0.contains("\"\(data)/levels.sqlite\"") }),
            ("directory fsynced", { $0.contains("fsync(") && $0.contains("<\(data)>") }),
            ("settings temp written", { $0.contains("write(") && self.isTemporary($0, stem: "settings.json") }),
            ("settings temp fsynced", { $0.contains("fsync(") && self.isTemporary($0, stem: "settings.json") }),
            ("settings renamed", { $0.contains("rename") && self.isTemporary($0, stem: "settings.json") && $0.contains("\"\(config)/settings.json\"") }),
            ("settings directory fsynced", { $0.contains("fsync(") && $0.contains("<\(config)>") }),
        ]
        for (what, predicate) in steps {
            guard let found = index(in: lines, after: at, what, predicate) else { return }
            at = found + 1
        }
    }

    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aFirstDeployAndAnUpgradeFlushBeforeTheyRecord() throws {
        let first = try trace(["deploy"] + cli.seedFlags(1))
        assertOrder(first)
        let upgrade = try trace(["deploy"] + cli.seedFlags(2))
        assertOrder(upgrade)
        // On an upgrade the old version is withdrawn (settings renamed) before the swap.
        let withdraw = upgrade.firstIndex { $0.contains("rename") && isTemporary($0, stem: "settings.json") }
        let swap = upgrade.firstIndex { $0.contains("rename") && isTemporary($0, stem: "levels.sqlite") && $0.contains("\"\(cli.appData)/levels.sqlite\"") }
        #expect(withdraw != nil && swap != nil && withdraw! < swap!, "the old record is withdrawn before the swap")
        ReliabilityLog.record(suite: "durability order", trials: 2, dataLost: 0)
    }

    /// The merge base is flushed after its last write and before the marker names it (a
    /// run killed after the switch is finished with that file) and before it takes its
    /// name, and the directory after that, before the settings name its digest.
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func theMergeBaseIsDurableBeforeTheRecordNamesIt() throws {
        #expect(try cli.run(["deploy", "--merge", "user-wins"] + cli.seedFlags(1)).status == 0)
        _ = try cli.shell("sqlite3 '\(cli.workingCopy)' \"UPDATE levels SET background = 'mine' WHERE ix = 1\"")
        let lines = try trace(["deploy", "--merge", "user-wins"] + cli.seedFlags(2))
        let data = cli.appData
        let config = cli.root + "/config/\(cli.app)"
        let isBase = { (line: String) in line.contains(".base.tmp") && self.isTemporary(line, stem: "levels.sqlite") }
        let written = lines.lastIndex { ($0.contains("copy_file_range(") || $0.contains("write(")) && isBase($0) }
        let flushed = lines.lastIndex { $0.contains("fsync(") && isBase($0) }
        let renamed = lines.firstIndex { $0.contains("rename") && isBase($0) && $0.contains("\"\(data)/levels.sqlite.base\"") }
        guard let written, let flushed, let renamed else {
            Issue.record("no write, flush or rename of the staged base in the trace")
            return
        }
        #expect(written < flushed && flushed < renamed, "the base is renamed before it is flushed")
        let marked = lines.firstIndex { $0.contains("rename") && self.isTemporary($0, stem: "settings.json") && $0.contains("\"\(config)/settings.json\"") }
        #expect(marked != nil && flushed < marked!, "the marker names a base that is not flushed")
        let directory = lines[renamed...].firstIndex { $0.contains("fsync(") && $0.contains("<\(data)>") }
        let recorded = lines[renamed...].firstIndex { $0.contains("rename") && self.isTemporary($0, stem: "settings.json") && $0.contains("\"\(config)/settings.json\"") }
        #expect(directory != nil && recorded != nil && directory! < recorded!, "the base's name is not durable before the record")
    }

    /// The generation file and its name are durable before the link names it: the staged
    /// copy's rename to `levels.sqlite.vN`, then a flush of the directory, then the rename
    /// of the new link over the working copy (then another flush).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func theGenerationIsDurableBeforeTheLinkNamesIt() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        for arguments in [["deploy"] + cli.seedFlags(2), ["reseed"] + cli.seedFlags(2), ["rollback"] + cli.seedFlags(2)] {
            let lines = try trace(arguments)
            let data = cli.appData
            let generation = lines.firstIndex { $0.contains("rename") && isTemporary($0, stem: "levels.sqlite") && $0.range(of: "\"\(data)/levels.sqlite.v[0-9]+\"", options: .regularExpression) != nil }
            let link = lines.firstIndex { $0.contains("rename") && $0.contains(".link.tmp") && $0.contains("\"\(data)/levels.sqlite\"") }
            guard let generation, let link else {
                Issue.record("\(arguments[0]): no rename to a generation file or of the link in the trace")
                continue
            }
            let flushes = lines[generation..<link].filter { $0.contains("fsync(") && $0.contains("<\(data)>") }
            #expect(generation < link && !flushes.isEmpty, "\(arguments[0]): no directory flush between the generation's rename and the link's")
        }
    }
}
