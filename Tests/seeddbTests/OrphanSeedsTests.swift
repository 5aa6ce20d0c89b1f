import Foundation
import Testing

/// "Fleets and people", item 5: a deploy from a manifest warns, once, about the working
/// copies recorded for its app that it no longer lists, and `purge --orphans` removes
/// exactly those.
@Suite struct OrphanSeedsTests {
    let cli = CLIHarness()

    /// A manifest for the harness's app listing `seeds` (name, location), each the demo's v1 seed.
    private func manifest(_ file: String, _ seeds: [(String, String)]) throws -> String {
        let path = cli.root + "/" + file
        let entries = seeds.map { #"{"source": "\#(CLIHarness.seeds)/v1/levels.sqlite", "name": "\#($0.0)", "version": "1", "location": "\#($0.1)"}"# }
        try Data(#"{"app": "\#(cli.app)", "seeds": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Given three working copies deployed (two data, one cache), the manifest that lists only `levels.sqlite`.
    private func renamed() throws -> String {
        let old = try manifest("old.json", [("levels.sqlite", "data"), ("old levels.sqlite", "data"), ("tiles.sqlite", "cache")])
        let first = try cli.run(["deploy", "--manifest", old])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        return try manifest("new.json", [("levels.sqlite", "data")])
    }

    @Test func aDeployFromAManifestWarnsOnceAboutWhatItNoLongerLists() throws {
        let new = try renamed()
        let result = try cli.run(["deploy", "--manifest", new, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("seeddb: warning: ") == true)
        #expect(result.stderr.contains("old levels.sqlite (data), tiles.sqlite (cache)") && result.stderr.contains("seeddb purge --orphans --manifest \(new)"), "\(result.stderr)")
        #expect(try result.seeds().count == 1, "stdout stays the deploy's JSON")
        // Flags describe one seed: they say nothing about the others.
        let flags = try cli.run(["deploy"] + cli.seedFlags(1))
        #expect(flags.status == 0 && flags.stderr.isEmpty, "\(flags.stderr)")
    }

    /// `purge --manifest … --location cache` is a usage error (64, nothing removed), as
    /// `--location` beside `--manifest` is for every other command: it was ignored, and
    /// the manifest's data copy purged, the user's rows with it.
    @Test func purgeRefusesALocationBesideAManifest() throws {
        let path = try manifest("m.json", [("levels.sqlite", "data")])
        #expect(try cli.run(["deploy", "--manifest", path]).status == 0)
        let before = cli.list(cli.appData)
        for extra in [["--location", "cache"], ["--location", "data"], ["--orphans", "--location", "cache"]] {
            let purge = try cli.run(["purge", "--manifest", path] + extra)
            #expect(purge.status == 64, "\(extra): \(purge.status) \(purge.stderr)")
            #expect(purge.stderr.contains("--manifest cannot be combined with --location"), "\(extra): \(purge.stderr)")
        }
        #expect(cli.list(cli.appData) == before)
        #expect(cli.settingsEntry()?["version"] as? String == "1")
    }

    @Test func purgeOrphansRemovesExactlyWhatTheManifestNoLongerLists() throws {
        let new = try renamed()
        let kept = cli.bytes(cli.contentFile)
        // A dry run lists the orphans' files and removes nothing.
        let before = cli.list(cli.appData)
        let dry = try cli.run(["purge", "--orphans", "--manifest", new, "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try dry.seeds().compactMap { $0["name"] as? String } == ["old levels.sqlite", "tiles.sqlite"])
        #expect(cli.list(cli.appData) == before)
        // The purge removes them, their records and their lock files, and nothing of levels.sqlite.
        let purge = try cli.run(["purge", "--orphans", "--manifest", new])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(cli.list(cli.appData).allSatisfy { $0.hasPrefix("levels.sqlite") }, "\(cli.list(cli.appData))")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/cache/\(cli.app)"), "the emptied cache directory goes")
        #expect(cli.bytes(cli.contentFile) == kept)
        #expect((cli.settings()?["seeddb"] as? [String: Any])?.keys.sorted() == ["levels.sqlite"])
        // Nothing is left to warn about, or to purge.
        let deploy = try cli.run(["deploy", "--manifest", new])
        #expect(deploy.status == 0 && deploy.stderr.isEmpty, "\(deploy.stderr)")
        let again = try cli.run(["purge", "--orphans", "--manifest", new, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.seeds().isEmpty, "\(again.stdout)")
    }

    @Test func orphansGoWithAManifest() throws {
        let result = try cli.run(["purge", "--orphans", "--app", cli.app, "--name", "levels.sqlite"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--orphans goes with --manifest"), "\(result.stderr)")
    }
}
