import Foundation
import Testing
@testable import seeddb

/// What a demanding new user hit in their first hour (issue 14), each as the built binary
/// answers it now: exit code, the one stderr line, what stdout holds and what is on disk.
@Suite struct FirstHourTests {
    let cli = CLIHarness()

    /// Expects `seeddb arguments` to fail with `status`, one error line starting
    /// `seeddb: error: ` (and containing `text`), and nothing on stdout; returns the line.
    @discardableResult
    func expectError(_ arguments: [String], status: Int32, _ text: String, environment: [String: String] = [:]) throws -> String {
        let result = try cli.run(arguments, environment: environment)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(lines.first?.hasPrefix("seeddb: error: ") == true, "\(arguments): \(result.stderr)")
        #expect(text.isEmpty || lines.first?.contains(text) == true, "\(arguments): \(result.stderr)")
        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        return String(lines.first ?? "")
    }

    /// Writes `text` to `name` under the harness root and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let path = cli.root + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Overwrites a page in the middle of the file at `path` with garbage.
    func damage(_ path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
    }

    // MARK: 1. Usage errors

    @Test func usageErrorsSuggestTheFlagOrCommandMeant() throws {
        #expect(try expectError(["deploy", "--manfest", "x"], status: 64, "")
            == "seeddb: error: unknown option `--manfest`; did you mean `--manifest`?")
        #expect(try expectError(["deploi", "--manifest", "x"], status: 64, "")
            == "seeddb: error: unknown command `deploi`; did you mean `deploy`?")
        try expectError(["help", "nosuch"], status: 64, "unknown command `nosuch`")
        try expectError(["deploy", "--wait", "-1"] + cli.seedFlags(1), status: 64, "--wait must be a number of seconds from 0 to 86400")
        try expectError(["status", "--app", "a b", "--seed", "s", "--version", "1"], status: 64, "app id")
        try expectError(["verify", "--version"], status: 64, "missing value")
        // Nothing was created by any of them.
        #expect(cli.list(cli.root).isEmpty)
        // Help is still help.
        let help = try cli.run(["help", "deploy"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Deploy each seed"))
    }

    @Test func runtimeErrorsAreOneLineToo() throws {
        try expectError(["deploy"] + cli.seedFlags(1, source: cli.root + "/nope.sqlite"), status: 66, "seed not found")
        try expectError(["rollback"] + cli.seedFlags(1), status: 66, "")
    }

    // MARK: 2. What a killed run left

    @Test func statusMentionsWhatAKilledRunLeft() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        let leftover = cli.appData + "/.levels.sqlite.seeddb-killed.tmp"
        _ = FileManager.default.createFile(atPath: leftover, contents: Data("half a copy".utf8))
        let human = try cli.run(["status"] + cli.seedFlags(1))
        #expect(human.status == 0)
        #expect(human.stdout.contains("\n  left by a killed run (the next deploy removes it): \(leftover)\n"), "\(human.stdout)")
        let json = try cli.run(["status", "--json"] + cli.seedFlags(1))
        #expect(try json.seeds().first?["leftovers"] as? [String] == [leftover])
        #expect(FileManager.default.fileExists(atPath: leftover), "status changes nothing")

        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try cli.run(["status", "--json"] + cli.seedFlags(1)).seeds().first?["leftovers"] == nil)
    }

    // MARK: 3. Progress

    @Test func progressFitsTheTerminalWidth() throws {
        for columns in [30, 50, 80, 200] {
            let line = ProgressBar.render(copied: 100 << 20, total: 300 << 20, elapsed: 0.5, columns: columns)
            #expect(line.count < columns, "\(columns): \(line)")
            #expect(ProgressBar.renderPhase("checking", frame: 3, elapsed: 12.5, columns: columns).count < columns)
        }
        #expect(ProgressBar.render(copied: 100 << 20, total: 300 << 20, elapsed: 0.5, columns: 80).hasPrefix("[#"))
        #expect(ProgressBar.renderPhase("checking", frame: 0, elapsed: 1.25, columns: 80) == "| checking  1.2s")
        // A labelled bar (a live replace), and one without a total (a .gz seed).
        #expect(ProgressBar.render(copied: 100 << 20, total: 300 << 20, elapsed: 0.5, columns: 80, label: "live replace").hasPrefix("live replace [#"))
        #expect(ProgressBar.render(copied: 100 << 20, total: 0, elapsed: 0.5, columns: 80, label: "copying") == "copying 100.0 MiB  200.0 MiB/s")

        // On a 40-column terminal (a pty), no line the deploy draws is wider than 39.
        let seed = try cli.makeSeed("big.sqlite", marker: "big", megabytes: 72)
        let result = try cli.shell("""
            COLUMNS=40 script -qfec "stty cols 40; '\(CLIHarness.binary)' deploy --app \(cli.app) --seed '\(seed)' --version 1 --integrity full" /dev/null
            """)
        #expect(result.status == 0, "\(result.stdout)")
        let escape = try Regex("\u{1B}\\[[0-9;]*[A-Za-z]")
        let drawn = result.stdout.replacing(escape, with: "").split(whereSeparator: { $0 == "\r" || $0 == "\n" })
        #expect(drawn.contains { $0.contains("MiB / ") && $0.hasSuffix(" left") }, "the bar was drawn: \(drawn)")
        for line in drawn where line.contains("MiB / ") || line.contains("checking") {
            #expect(line.count < 40, "\(line)")
        }
    }

    // MARK: 4. verify

    @Test func verifyPrintsTheFirstProblemInOneLine() throws {
        try cli.run(["deploy"] + cli.seedFlags(2))
        try damage(cli.workingCopy)
        let result = try cli.run(["verify"] + cli.seedFlags(2))
        #expect(result.status == 65)
        #expect(result.stdout.split(separator: "\n").count == 1, "\(result.stdout)")
        #expect(result.stdout.hasPrefix("levels.sqlite: seed ok; working copy "))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("seeddb: error: integrity check failed for working copy \(cli.workingCopy): "))

        let json = try cli.run(["verify", "--json"] + cli.seedFlags(2))
        #expect(json.status == 65)
        let seed = try #require(try json.seeds().first)
        let problems = try #require(seed["workingCopyProblems"] as? [String])
        #expect(!problems.isEmpty)
        #expect(seed["workingCopy"] as? String == problems.first)
        #expect(seed["seedProblems"] as? [String] == [])

        let verbose = try cli.run(["verify", "--verbose"] + cli.seedFlags(2))
        #expect(verbose.status == 65)
        #expect(verbose.stdout.split(separator: "\n").count == 1 + problems.count)
    }

    @Test func verifyReportsADeletedWorkingCopyAsMissing() throws {
        // Never deployed: not a failure.
        let fresh = try cli.run(["verify"] + cli.seedFlags(1))
        #expect(fresh.status == 0)
        #expect(fresh.stdout == "levels.sqlite: seed ok; working copy not deployed\n")

        try cli.run(["deploy"] + cli.seedFlags(1))
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        let missing = try cli.run(["verify"] + cli.seedFlags(1))
        #expect(missing.status == 66)
        #expect(missing.stdout == "levels.sqlite: seed ok; working copy missing\n")
        #expect(missing.stderr == "seeddb: error: working copy missing: \(cli.workingCopy) is recorded as deployed but does not exist; a deploy restores it\n")
        let json = try cli.run(["verify", "--json"] + cli.seedFlags(1))
        #expect(json.status == 66)
        #expect(try json.seeds().first?["workingCopy"] as? String == "missing")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy), "verify changes nothing")

        // Something SeedDB did not make in its place: refused as a deploy refuses it (73),
        // not called missing with the advice to deploy; `maintain` alike.
        try FileManager.default.createDirectory(atPath: cli.workingCopy, withIntermediateDirectories: false)
        for command in ["verify", "maintain"] {
            let blocked = try cli.run([command] + cli.seedFlags(1))
            #expect(blocked.status == 73, "\(command): \(blocked.stderr)")
            #expect(blocked.stderr == "seeddb: error: cannot \(command) \(cli.workingCopy): it is a directory, not a regular file or SeedDB's link, and SeedDB never replaces it; nothing was changed; move it away (or put back SeedDB's link to its generation file) and run again\n")
        }
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 73)
    }

    // MARK: 5. Several seeds

    /// A manifest is one release: a seed that fails leaves every seed as it was, and the
    /// run lists them.
    @Test func aFailingReleaseInstallsNoSeedAndListsThem() throws {
        let manifest = try write("""
            {"app": "\(cli.app)", "seeds": [
              {"source": "\(CLIHarness.seeds)/v1/levels.sqlite", "version": "1"},
              {"source": "\(cli.root)/nope.sqlite", "name": "b.sqlite", "version": "1"}]}
            """, to: "seeds.json")
        let human = try cli.run(["deploy", "--manifest", manifest])
        #expect(human.status == 66)
        #expect(human.stdout == "levels.sqlite: not installed (\(cli.workingCopy))\n")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        #expect(human.stderr == "seeddb: error: seed not found: \(cli.root)/nope.sqlite\n")

        let json = try cli.run(["deploy", "--manifest", manifest, "--json"])
        #expect(json.status == 66)
        let object = try json.json()
        let seeds = try json.seeds()
        #expect(seeds.map { $0["name"] as? String } == ["levels.sqlite"])
        #expect(seeds.first?["action"] as? String == "unchanged")
        // Nothing installed: it holds no version (the release's would be "1").
        #expect(seeds.first?["from"] is NSNull && seeds.first?["to"] is NSNull, "\(json.stdout)")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["seed"] as? String == "b.sqlite")
        #expect(error["code"] as? Int == 66)
        #expect(error["message"] as? String == "seed not found: \(cli.root)/nope.sqlite")

        // And its dry run says the same: the release would install none of its seeds
        for format in [["--json"], []] {
            let dry = try cli.run(["deploy", "--manifest", manifest, "--dry-run"] + format)
            let run = try cli.run(["deploy", "--manifest", manifest] + format)
            #expect(dry.status == 66 && run.status == 66)
            if format.isEmpty {
                #expect(dry.stdout == run.stdout, "\(dry.stdout)")
            } else {
                #expect(NSArray(array: try dry.seeds()).isEqual(to: try run.seeds()), "\(dry.stdout)")
                let (dryError, runError) = (try dry.json()["error"] as? [String: Any], try run.json()["error"] as? [String: Any])
                #expect(NSDictionary(dictionary: try #require(dryError)).isEqual(to: try #require(runError)))
            }
        }
    }

    @Test func verifyJSONWithOneBadSeedIsStillJSON() throws {
        let bad = try cli.copySeed(2, to: "bad.sqlite")
        try damage(bad)
        let manifest = try write("""
            {"app": "\(cli.app)", "seeds": [
              {"source": "\(CLIHarness.seeds)/v1/levels.sqlite", "version": "1"},
              {"source": "\(bad)", "version": "1"}]}
            """, to: "seeds.json")
        let result = try cli.run(["verify", "--json", "--manifest", manifest])
        #expect(result.status == 65)
        let seeds = try result.seeds()
        #expect(seeds.count == 2)
        #expect(seeds.first?["seed"] as? String == "ok")
        #expect(seeds.last?["seed"] as? String != "ok")
        #expect((try result.json()["error"] as? [String: Any])?["seed"] as? String == "bad.sqlite")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    // MARK: 6. Manifests

    @Test func manifestsAreStrictJSON() throws {
        let trailing = try write("{\"app\": \"\(cli.app)\",\n  \"seeds\": [{\"source\": \"a.sqlite\", \"version\": \"1\"},]}", to: "trailing.json")
        try expectError(["deploy", "--manifest", trailing], status: 78, "invalid manifest \(trailing): not valid JSON: line 2, column 52: trailing comma before ']'")
        let duplicate = try write("{\"app\": \"\(cli.app)\",\n \"app\": \"com.example.other\", \"seeds\": []}", to: "duplicate.json")
        try expectError(["deploy", "--manifest", duplicate], status: 78, "line 2, column 2: duplicate key \"app\"")
        let nested = try write("{\"app\": \"\(cli.app)\", \"seeds\": [{\"source\": \"a\", \"version\": \"1\", \"version\": \"2\"}]}", to: "nested.json")
        try expectError(["deploy", "--manifest", nested], status: 78, "duplicate key \"seeds[0].version\"")
        let broken = try write("{\"app\": \"\(cli.app)\",\n\n   \"seeds\": [}", to: "broken.json")
        try expectError(["status", "--manifest", broken], status: 78, "not valid JSON: line 3, column 14: expected a value, found '}'")
        #expect(!FileManager.default.fileExists(atPath: cli.appData))

        // A byte-order mark is skipped.
        let bom = try write("\u{FEFF}{\"app\": \"\(cli.app)\", \"seeds\": [{\"source\": \"\(CLIHarness.seeds)/v1/levels.sqlite\", \"version\": \"1\"}]}", to: "bom.json")
        #expect(try cli.run(["deploy", "--manifest", bom]).status == 0)
    }

    @Test func aManifestThroughASymlinkIsRead() throws {
        let folder = cli.root + "/alternatives"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/seeds.json", withDestinationPath: CLIHarness.seeds + "/v1/seeds.json")
        let result = try cli.run(["deploy", "--manifest", folder + "/seeds.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.levelCount() == 20)

        // A link that leads nowhere is a missing manifest.
        try FileManager.default.createSymbolicLink(atPath: folder + "/gone.json", withDestinationPath: cli.root + "/nope.json")
        try expectError(["status", "--manifest", folder + "/gone.json"], status: 66, "manifest not found: \(folder)/gone.json is a symbolic link to a missing file")
    }

    @Test func aSymlinkedSettingsFileIsReadAndWrittenThroughTheLink() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try FileManager.default.createDirectory(atPath: cli.root + "/dotfiles", withIntermediateDirectories: true)
        let real = cli.root + "/dotfiles/real-settings.json"
        try FileManager.default.moveItem(atPath: cli.settingsFile, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: cli.settingsFile, withDestinationPath: "../../dotfiles/real-settings.json")
        let status = try cli.run(["status", "--json"] + cli.seedFlags(1))
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try status.seeds().first?["state"] as? String == "up-to-date")
        let result = try cli.run(["deploy"] + cli.seedFlags(2))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cli.settingsFile) == "../../dotfiles/real-settings.json", "the link stays")
        #expect(cli.settingsEntry(real)?["version"] as? String == "2", "the link's target holds the new record")
        #expect(cli.list(cli.root + "/dotfiles") == ["real-settings.json"], "no temporary file is left beside the target")
        #expect(try cli.levelCount() == 24)
    }

    // MARK: 7. pack

    @Test func packRefusesToOverwriteItsInput() throws {
        let script = try write("CREATE TABLE t(x); INSERT INTO t VALUES (1);\n", to: "schema.sql")
        try expectError(["pack", script, "--output", script, "--version", "1"], status: 64, "the output is one of the input scripts")
        try expectError(["pack", "schema.sql", "--output", "./schema.sql", "--version", "1"], status: 64, "the output is one of the input scripts")
        #expect(cli.bytes(script) == Data("CREATE TABLE t(x); INSERT INTO t VALUES (1);\n".utf8))
        #expect(cli.list(cli.root) == ["schema.sql"])
    }

    @Test func packCreatesTheOutputDirectoryAndChecksTheSuffix() throws {
        let script = try write("CREATE TABLE t(x); INSERT INTO t VALUES (1);\n", to: "schema.sql")
        let result = try cli.run(["pack", script, "--output", "dist/sub/levels.sqlite.zst", "--version", "3", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.list(cli.root + "/dist/sub") == ["levels.sqlite.zst"])
        // `size` is the database's size, uncompressed.
        let size = try #require(try result.json()["size"] as? Int)
        let unpacked = try cli.shell("zstd -dc '\(cli.root)/dist/sub/levels.sqlite.zst' | wc -c")
        #expect(Int(unpacked.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == size)

        // A failed pack removes the directories it created.
        let bad = try write("CREATE TABLE;\n", to: "bad.sql")
        try expectError(["pack", bad, "--output", "out/levels.sqlite", "--version", "1"], status: 65, "SQL error")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/out"))

        try expectError(["pack", script, "--output", "x.sqlite.zst", "--compress", "none", "--version", "1"], status: 64, "--compress none")
        try expectError(["pack", script, "--output", "x.sqlite.gz", "--compress", "none", "--version", "1"], status: 64, ".gz")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/x.sqlite.zst"))
    }

    @Test func packAddsTheFirstSeedToAnEmptyManifest() throws {
        let script = try write("CREATE TABLE t(x); INSERT INTO t VALUES (1);\n", to: "schema.sql")
        let manifest = try write("{\"app\": \"\(cli.app)\", \"seeds\": []}\n", to: "seeds.json")
        let result = try cli.run(["pack", script, "--output", cli.root + "/levels.sqlite", "--version", "1", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try #require(cli.bytes(manifest))
        let document = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let seeds = try #require(document["seeds"] as? [[String: Any]])
        #expect(seeds.map { $0["source"] as? String } == ["levels.sqlite"])
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
    }

    // MARK: 11. Names and values

    @Test func workingCopyNamesAreAnyPlainFileName() throws {
        let seed = try cli.copySeed(1, to: "my levels é.sqlite")
        let result = try cli.run(["deploy", "--app", cli.app, "--seed", seed, "--version", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.appData + "/my levels é.sqlite"))
        for name in [
            "x.lock", "levels.sqlite-wal", "levels.sqlite.previous", "levels.sqlite.conflicts.json", "levels.sqlite.v3", ".hidden", "..", "a/b",
            "levels.sqlite.adopted-20261126T071500Z", "levels.sqlite.adopted-20261126T071500Z-2", "levels.sqlite.previous.base.xor.zst",
        ] {
            try expectError(["deploy", "--name", name] + cli.seedFlags(1), status: 64, "invalid name")
        }
        try expectError(["deploy", "--name", String(repeating: "n", count: 256)] + cli.seedFlags(1), status: 64, "longer than 255 bytes")
        try expectError(["deploy", "--app", "my app"] + ["--seed", seed, "--version", "1"], status: 64, "invalid app id")
    }

    @Test func unsafeModesAreUsageErrors() throws {
        try expectError(["deploy", "--mode", "0777"] + cli.seedFlags(1), status: 64, #"invalid --mode "0777": a mode that lets the group or others write is refused"#)
        try expectError(["deploy", "--mode", "4755"] + cli.seedFlags(1), status: 64, #"invalid --mode "4755": set-user-ID"#)
        try expectError(["deploy", "--mode", "0664"] + cli.seedFlags(1), status: 64, "--mode")
        try expectError(["deploy", "--mode", "rw"] + cli.seedFlags(1), status: 64, "octal")
        #expect(cli.list(cli.root).isEmpty)
        #expect(try cli.run(["deploy", "--mode", "0640"] + cli.seedFlags(1)).status == 0)
    }

    @Test func anEmptyHomeIsAUsageError() throws {
        try expectError(["deploy"] + cli.seedFlags(1), status: 64, "HOME is not an absolute path",
                        environment: ["HOME": "", "XDG_DATA_HOME": ""])
        #expect(cli.list(cli.root).isEmpty)
    }

    // MARK: 10, 12. Dry runs say so

    @Test func rollbackPurgeAndMaintainHaveDryRunsThatSaySo() throws {
        try cli.run(["deploy"] + cli.seedFlags(1))
        try cli.run(["deploy"] + cli.seedFlags(2))
        let before = cli.list(cli.appData)
        let settings = cli.bytes(cli.settingsFile)

        let rollback = try cli.run(["rollback", "--dry-run", "--json"] + cli.seedFlags(2))
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try rollback.json()["dryRun"] as? Bool == true)
        #expect(try rollback.seeds().first?["action"] as? String == "rolled-back")
        let human = try cli.run(["rollback", "--dry-run"] + cli.seedFlags(2))
        #expect(human.stdout.hasPrefix("levels.sqlite: would be rolled back 2 -> 1"), "\(human.stdout)")

        let maintain = try cli.run(["maintain", "--dry-run", "--json", "--every", "0"] + cli.seedFlags(2))
        #expect(maintain.status == 0, "\(maintain.stderr)")
        #expect(try maintain.json()["dryRun"] as? Bool == true)

        let purge = try cli.run(["purge", "--dry-run", "--json", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(try purge.json()["dryRun"] as? Bool == true)
        #expect(try (purge.seeds().first?["removed"] as? [String])?.contains(cli.workingCopy) == true)

        #expect(cli.list(cli.appData) == before)
        #expect(cli.bytes(cli.settingsFile) == settings)
        #expect(try cli.levelCount() == 24)
        #expect(try cli.run(["rollback", "--json"] + cli.seedFlags(2)).json()["dryRun"] == nil)
    }

    /// In system mode the app's directory holds the working copy and the settings: a dry
    /// run of `purge` lists what the purge then removes, that directory once.
    @Test func aSystemPurgesDryRunListsWhatThePurgeRemoves() throws {
        let system = ["--system", "--root", cli.root + "/image"]
        #expect(try cli.run(["deploy"] + system + cli.seedFlags(1)).status == 0)
        let purge = ["purge", "--json"] + system + ["--app", cli.app, "--name", "levels.sqlite"]
        let dry = try cli.run(purge + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let listed = try #require(try dry.seeds().first?["removed"] as? [String])
        #expect(Set(listed).count == listed.count, "\(listed)")
        let done = try cli.run(purge)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try done.seeds().first?["removed"] as? [String] == listed)
    }

    // MARK: 12. Small things

    @Test func smallThings() throws {
        let help = try cli.run(["maintain", "--help"], environment: ["COLUMNS": "200"])
        #expect(help.stdout.contains("(default 7; 0 runs now)"))
        #expect(!help.stdout.contains("default: 7"))

        let dry = try cli.run(["deploy", "--dry-run", "--json"] + cli.seedFlags(1))
        #expect(try dry.json()["dryRun"] as? Bool == true)
        let real = try cli.run(["deploy", "--json"] + cli.seedFlags(1))
        #expect(try real.json()["dryRun"] == nil)

        let reseed = try cli.run(["reseed", "--version", "auto", "--app", cli.app, "--seed", CLIHarness.seeds + "/v2/levels.sqlite"])
        let digest = try #require(try cli.run(["status", "--json", "--version", "auto", "--app", cli.app, "--seed", CLIHarness.seeds + "/v2/levels.sqlite"]).seeds().first?["recordedVersion"] as? String)
        #expect(digest.count == 64)
        #expect(reseed.stdout == "levels.sqlite: reseeded 1 -> \(digest.prefix(12)) by swap; nothing to merge: the working copy was the seed's own, unwritten (\(cli.workingCopy))\n")
        let status = try cli.run(["status", "--version", "auto", "--app", cli.app, "--seed", CLIHarness.seeds + "/v2/levels.sqlite"])
        #expect(status.stdout.split(separator: "\n").allSatisfy { $0.count <= 200 })
        #expect(status.stdout.contains("recorded version: \(digest.prefix(12))\n"))

        try Data("garbage".utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        let damaged = try cli.run(["status"] + cli.seedFlags(1))
        #expect(damaged.status == 0)
        #expect(damaged.stderr.hasPrefix("seeddb: warning: settings file is corrupt ("), "\(damaged.stderr)")
        #expect(damaged.stderr.hasSuffix(") in \(cli.settingsFile); a deploy would set it aside\n"), "\(damaged.stderr)")
    }
}
