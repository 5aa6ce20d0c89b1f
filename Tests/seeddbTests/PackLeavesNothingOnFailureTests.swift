import Foundation
import Testing

/// `seeddb pack` is all or nothing: a pack that fails (a bad script, a signature that
/// cannot be made) leaves no output, no directory it created, and the manifest and its
/// signature byte for byte; `--location` sets the manifest entry's location.
@Suite struct PackLeavesNothingOnFailureTests {
    let cli = CLIHarness()

    private func write(_ name: String, _ text: String) throws -> String {
        let path = cli.root + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFailingScriptLeavesNoOutputAndNoDirectoryItCreated() throws {
        let script = try write("bad.sql", "CREATE TABLE t(x); INSERT INTO nowhere VALUES (1);")
        let manifest = try write("seeds.json", #"{"app": "com.example.levels", "seeds": []}"#)
        let before = cli.bytes(manifest)
        let output = cli.root + "/dist/v3/levels.sqlite"
        let result = try cli.run(["pack", script, "--output", output, "--version", "3", "--manifest", manifest])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/dist"))
        #expect(cli.bytes(manifest) == before)
    }

    @Test func aSignatureThatCannotBeMadeLeavesTheManifestAndNoSeed() throws {
        let script = try write("good.sql", "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        // Another seed without a sha256: the manifest cannot be signed (78), after the
        // pack has recorded its own entry.
        let manifest = try write("seeds.json", #"{"app": "com.example.levels", "seeds": [{"source": "other.sqlite", "version": "1"}]}"#)
        let signature = try write("seeds.json.minisig", "untouched\n")
        let before = (cli.bytes(manifest), cli.bytes(signature))
        let output = cli.root + "/out/levels.sqlite"
        let result = try cli.run(["pack", script, "--output", output, "--version", "3", "--manifest", manifest,
                                  "--sign", CLIHarness.seeds + "/keys/demo-secret.key"])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/out"))
        #expect(cli.bytes(manifest) == before.0)
        #expect(cli.bytes(signature) == before.1)
    }

    @Test func locationIsWrittenToTheManifestEntry() throws {
        let script = try write("good.sql", "CREATE TABLE t(x);")
        let manifest = cli.root + "/seeds.json"
        let output = cli.root + "/tiles.sqlite"
        func entry() throws -> [String: Any]? {
            let object = try JSONSerialization.jsonObject(with: try #require(cli.bytes(manifest))) as? [String: Any]
            return (object?["seeds"] as? [[String: Any]])?.first
        }
        var result = try cli.run(["pack", script, "--output", output, "--version", "1", "--manifest", manifest, "--app", cli.app, "--location", "cache"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try entry()?["location"] as? String == "cache")
        result = try cli.run(["pack", script, "--output", output, "--version", "2", "--manifest", manifest])
        #expect(try entry()?["location"] as? String == "cache", "kept when not given")
        result = try cli.run(["pack", script, "--output", output, "--version", "3", "--manifest", manifest, "--location", "data"])
        #expect(try entry()?["location"] == nil, "data is the default: no key")
        let usage = try cli.run(["pack", script, "--output", output, "--version", "4", "--location", "cache"])
        #expect(usage.status == 64)
    }
}
