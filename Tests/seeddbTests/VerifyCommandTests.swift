import Foundation
import Testing

/// `verify` checks what the manifest promises (the seed's SHA-256) and writes nothing,
/// not even SQLite's `-shm` beside a working copy in WAL mode; `version: auto` is the
/// database's digest whether it ships plain, `.zst` or `.gz`.
@Suite struct VerifyCommandTests {
    let cli = CLIHarness()

    @Test func aWrongChecksumFailsNamingBothDigests() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let zeros = String(repeating: "0", count: 64)
        let result = try cli.run(["verify", "--manifest", try manifest(sha256: zeros)])
        #expect(result.status == 65, "\(result.stdout) \(result.stderr)")
        let actual = try cli.shell("sha256sum '\(CLIHarness.seeds)/v1/levels.sqlite' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(result.stderr.contains(zeros) && result.stderr.contains(actual), "\(result.stderr)")
        let right = try cli.run(["verify", "--manifest", try manifest(sha256: actual)])
        #expect(right.status == 0, "\(right.stderr)")
    }

    /// A manifest for the demo seed 1 promising `sha256`.
    private func manifest(sha256: String) throws -> String {
        let path = cli.root + "/seeds.json"
        let text = #"{"app": "\#(cli.app)", "seeds": [{"source": "\#(CLIHarness.seeds)/v1/levels.sqlite", "version": "1", "sha256": "\#(sha256)"}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A seed file gone is that seed's failure (66), and the other seeds are checked and
    /// listed: verify stopped at it and listed none (found by a contract probe).
    @Test func aMissingSeedFileIsOneSeedsFailureAndTheOthersAreChecked() throws {
        let folder = cli.root + "/release"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["a.sqlite", "b.sqlite"] {
            try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v1/levels.sqlite", toPath: folder + "/" + name)
        }
        let manifest = folder + "/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "a.sqlite", "version": "1"}, {"source": "b.sqlite", "version": "1"}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["deploy", "--manifest", manifest]).status == 0)
        try FileManager.default.removeItem(atPath: folder + "/a.sqlite")
        let result = try cli.run(["verify", "--json", "--manifest", manifest])
        #expect(result.status == 66, "\(result.stderr)")
        let seeds = try result.seeds().map { "\($0["name"] as? String ?? "?") \($0["seed"] as? String ?? "?") \($0["workingCopy"] as? String ?? "?")" }
        #expect(seeds == ["a.sqlite missing ok", "b.sqlite ok ok"], "\(result.stdout)")
        let error = try result.json()["error"] as? [String: Any]
        #expect(error?["seed"] as? String == "a.sqlite" && error?["code"] as? Int == 66, "\(result.stdout)")
        let text = try cli.run(["verify", "--manifest", manifest])
        #expect(text.status == 66 && text.stderr == "seeddb: error: seed not found: \(folder)/a.sqlite\n", "\(text.stderr)")
    }

    @Test func verifyWritesNothingBesideAWALWorkingCopy() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        try cli.shell("sqlite3 '\(cli.workingCopy)' 'PRAGMA journal_mode=WAL; CREATE TABLE mine(x); INSERT INTO mine VALUES (1);'")
        let before = cli.list(cli.appData)
        let settings = cli.bytes(cli.settingsFile)
        let result = try cli.run(["verify"] + cli.seedFlags(1))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(cli.list(cli.appData) == before)
        #expect(cli.bytes(cli.settingsFile) == settings)
    }

    @Test func versionAutoIsTheDatabasesDigestPlainOrCompressed() throws {
        let plain = try cli.copySeed(1, to: "t.sqlite")
        try cli.shell("zstd -q '\(plain)' -o '\(plain).zst' && gzip -k '\(plain)'")
        var versions: [String] = []
        for (index, source) in [plain, plain + ".zst", plain + ".gz"].enumerated() {
            let result = try cli.run(["deploy", "--json", "--app", cli.app + "\(index)", "--seed", source, "--version", "auto", "--name", "t.sqlite"])
            #expect(result.status == 0, "\(result.stderr)")
            versions.append(try #require(try result.seeds().first?["to"] as? String))
        }
        let digest = try cli.shell("sha256sum '\(plain)' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(versions == [digest, digest, digest])
    }
}
