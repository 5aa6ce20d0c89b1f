import Foundation
import GRDB
import Testing

/// Every command from every state SeedDB can find on disk: the working copy's link
/// removed or replaced (a directory, a regular file, a foreign link, a dangling link), the
/// settings truncated, wrong-typed, missing or a link, a record naming a generation that
/// is gone, a link to a generation the record does not name. Before each state is made,
/// the app committed a probe row into a table of its own. After each command: the probe
/// row is in the working copy or the previous generation (or the run failed and changed
/// nothing: the directory listing and the settings bytes are identical), and a dry run
/// exits as the run does.
@Suite(.serialized) struct HostileStateTests {
    /// A starting state, made from a deployed v1 → v2 upgrade with probe rows.
    struct State: CustomTestStringConvertible, Sendable {
        var name: String
        /// Makes the state in the harness's directories.
        var make: @Sendable (CLIHarness) throws -> Void
        var testDescription: String { name }
    }

    static let states: [State] = [
        State(name: "as deployed") { _ in },
        State(name: "link removed") { cli in try FileManager.default.removeItem(atPath: cli.workingCopy) },
        State(name: "link replaced by a directory") { cli in
            try FileManager.default.removeItem(atPath: cli.workingCopy)
            try FileManager.default.createDirectory(atPath: cli.workingCopy, withIntermediateDirectories: false)
        },
        State(name: "link replaced by a regular file") { cli in
            let content = cli.contentFile
            try FileManager.default.removeItem(atPath: cli.workingCopy)
            try FileManager.default.copyItem(atPath: content, toPath: cli.workingCopy)
        },
        State(name: "link replaced by a foreign link") { cli in
            let elsewhere = cli.root + "/elsewhere.sqlite"
            try FileManager.default.copyItem(atPath: cli.contentFile, toPath: elsewhere)
            try FileManager.default.removeItem(atPath: cli.workingCopy)
            try FileManager.default.createSymbolicLink(atPath: cli.workingCopy, withDestinationPath: elsewhere)
        },
        State(name: "a dangling link") { cli in
            try FileManager.default.removeItem(atPath: cli.workingCopy)
            try FileManager.default.createSymbolicLink(atPath: cli.workingCopy, withDestinationPath: "levels.sqlite.v99")
        },
        State(name: "settings truncated") { cli in
            let handle = try #require(FileHandle(forWritingAtPath: cli.settingsFile))
            try handle.truncate(atOffset: 100)
            try handle.close()
        },
        State(name: "settings wrong-typed") { cli in
            let text = String(decoding: cli.bytes(cli.settingsFile) ?? Data(), as: UTF8.self)
            let changed = text.replacingOccurrences(of: #""size" : [0-9]+"#, with: #""size" : "big""#, options: .regularExpression)
            #expect(changed != text)
            try Data(changed.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        },
        State(name: "settings missing") { cli in try FileManager.default.removeItem(atPath: cli.settingsFile) },
        State(name: "settings a link") { cli in
            let real = cli.root + "/dotfiles-settings.json"
            try FileManager.default.moveItem(atPath: cli.settingsFile, toPath: real)
            try FileManager.default.createSymbolicLink(atPath: cli.settingsFile, withDestinationPath: real)
        },
        State(name: "record names a generation that is gone") { cli in
            let content = cli.contentFile
            try FileManager.default.moveItem(atPath: content, toPath: cli.appData + "/levels.sqlite.v7")
            try FileManager.default.removeItem(atPath: cli.workingCopy)
            try FileManager.default.createSymbolicLink(atPath: cli.workingCopy, withDestinationPath: "levels.sqlite.v7")
        },
    ]

    /// A command and whether it has a dry run.
    struct Command: Sendable {
        var name: String
        var arguments: @Sendable (CLIHarness) -> [String]
        var dryRun: Bool
        /// Whether a success may remove the probe (purge removes what it is asked to).
        var removes = false
    }

    static let commands: [Command] = [
        Command(name: "deploy", arguments: { ["deploy"] + $0.seedFlags(2) }, dryRun: true),
        Command(name: "deploy a new version", arguments: { ["deploy"] + $0.seedFlags(1, source: nil).dropLast(1) + ["3"] }, dryRun: true),
        Command(name: "reseed", arguments: { ["reseed"] + $0.seedFlags(2) }, dryRun: true),
        Command(name: "rollback", arguments: { ["rollback"] + $0.seedFlags(2) }, dryRun: true),
        Command(name: "status", arguments: { ["status"] + $0.seedFlags(2) }, dryRun: false),
        Command(name: "verify", arguments: { ["verify"] + $0.seedFlags(2) }, dryRun: false),
        Command(name: "purge", arguments: { ["purge", "--app", $0.app, "--name", "levels.sqlite"] }, dryRun: true, removes: true),
    ]

    /// v1 deployed, the app's table `probe` with row 1, v2 deployed (v1 kept as the
    /// previous generation), then row 2: the row written since the upgrade.
    func deployed() throws -> CLIHarness {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try cli.shell("sqlite3 '\(cli.workingCopy)' 'CREATE TABLE probe(id INTEGER PRIMARY KEY); INSERT INTO probe VALUES (1);'")
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        try cli.shell("sqlite3 '\(cli.workingCopy)' 'INSERT INTO probe VALUES (2);'")
        return cli
    }

    /// The probe rows in the database at `path` (none when it is not a database).
    func probes(_ path: String) -> Set<Int> {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return [] }
        defer { try? queue.close() }
        return Set((try? queue.read { try Int.fetchAll($0, sql: "SELECT id FROM probe") }) ?? [])
    }

    @Test(arguments: states)
    func everyCommandFrom(_ state: State) throws {
        var failures = 0
        var trials = 0
        let template = try deployed()
        for command in Self.commands {
            // The dry run first, from its own copy of the state.
            var dryStatus: Int32?
            if command.dryRun {
                let cli = try template.clone()
                try state.make(cli)
                let before = cli.state()
                let dry = try cli.run(command.arguments(cli) + ["--dry-run"])
                dryStatus = dry.status
                #expect(cli.state() == before, "\(state.name), \(command.name) --dry-run changed something")
            }
            let cli = try template.clone()
            try state.make(cli)
            let before = cli.state()
            let result = try cli.run(command.arguments(cli))
            trials += 1
            if let dryStatus {
                #expect(dryStatus == result.status, "\(state.name), \(command.name): the dry run exits \(dryStatus), the run \(result.status): \(result.stderr)")
            }
            if result.status != 0 {
                failures += 1
                #expect(cli.state() == before, "\(state.name), \(command.name) failed (\(result.status)) and changed something: \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count <= 2, "\(state.name), \(command.name): \(result.stderr)")
                continue
            }
            if command.removes { continue }
            // Where the user's rows are now: the working copy, the previous generation,
            // or, after a command that wrote nothing, wherever the state put them.
            var found = probes(cli.workingCopy).union(probes(cli.appData + "/levels.sqlite.previous"))
            if cli.state() == before {
                found.formUnion(cli.list(cli.appData).filter { $0.hasPrefix("levels.sqlite.v") && !$0.contains("-") }.flatMap { probes(cli.appData + "/" + $0) })
                found.formUnion(probes(cli.root + "/elsewhere.sqlite"))
            }
            #expect(found.contains(2), "\(state.name), \(command.name): the row written since the upgrade is gone (\(result.stdout) \(result.stderr))")
            #expect(cli.temporaryFiles.isEmpty, "\(state.name), \(command.name) left \(cli.temporaryFiles)")
        }
        ReliabilityLog.record(suite: "hostile states (\(state.name))", trials: trials, faults: failures, dataLost: 0)
    }

    /// A directory where the link was: every command that would write refuses with 73
    /// naming what is there, and `status` does not call the generation a leftover.
    @Test func aDirectoryAtTheLinkIsRefusedAndTheGenerationIsNotALeftover() throws {
        let cli = try deployed()
        let generation = cli.contentFile
        try Self.states[2].make(cli)
        let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(status.status == 0)
        let entry = try #require(try status.seeds().first)
        #expect(entry["leftovers"] == nil, "\(status.stdout)")
        #expect((entry["blocked"] as? String)?.contains("directory") == true, "\(status.stdout)")
        for command in [["deploy"], ["reseed"], ["rollback"], ["deploy", "--dry-run"]] {
            let result = try cli.run(command + cli.seedFlags(2))
            #expect(result.status == 73, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("a directory"), "\(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: generation))
        #expect(probes(generation) == [1, 2])
    }

    /// A link SeedDB did not make, to a database: `status` said `"exists": false`, though
    /// the app opens a database there; it says what the app finds, and why SeedDB will
    /// not touch it.
    @Test func aForeignLinkToADatabaseIsReportedAsThere() throws {
        let cli = try deployed()
        let elsewhere = cli.root + "/elsewhere.sqlite"
        try FileManager.default.copyItem(atPath: cli.contentFile, toPath: elsewhere)
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        try FileManager.default.createSymbolicLink(atPath: cli.workingCopy, withDestinationPath: elsewhere)
        let status = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(status.status == 0, "\(status.stderr)")
        let entry = try #require(try status.seeds().first)
        #expect(entry["exists"] as? Bool == true, "\(status.stdout)")
        #expect((entry["blocked"] as? String)?.contains("a symbolic link SeedDB did not make") == true, "\(status.stdout)")
        try FileManager.default.removeItem(atPath: elsewhere)
        let dangling = try cli.run(["status", "--json"] + cli.seedFlags(2))
        #expect(try dangling.seeds().first?["exists"] as? Bool == false, "\(dangling.stdout)")
    }

    /// Settings damaged: the database found is adopted (kept as the previous generation,
    /// its app tables carried) and `rollback` restores it.
    @Test func aDatabaseWithNoRecordIsAdopted() throws {
        let cli = try deployed()
        try Self.states[6].make(cli)
        let result = try cli.run(["deploy", "--json"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        let entry = try #require(try result.seeds().first)
        #expect(entry["action"] as? String == "replaced")
        #expect(entry["from"] is NSNull)
        #expect(entry["adopted"] as? Bool == true)
        #expect(probes(cli.workingCopy) == [1, 2])
        #expect(probes(cli.appData + "/levels.sqlite.previous") == [1, 2])
        let text = try cli.run(["reseed"] + cli.seedFlags(2))
        #expect(!text.stdout.contains("found was kept"), "a recorded copy is not adopted again: \(text.stdout)")
        let rollback = try cli.run(["rollback"] + cli.seedFlags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(probes(cli.workingCopy) == [1, 2])
    }
}
