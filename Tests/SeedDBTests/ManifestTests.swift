import Foundation
@testable import SeedDB
import Testing

@Suite struct ManifestTests {
    func parse(_ text: String) throws(SeedDBError) -> Manifest {
        try Manifest(parsing: Array(text.utf8), folder: "/pkg/share")
    }

    @Test func parsesAFullEntryAndResolvesTheSource() throws {
        let manifest = try parse(#"{"app": "com.example.levels", "seeds": [{"source": "levels.sqlite", "name": "work.db", "version": "2", "location": "cache", "sha256": "\#(String(repeating: "a", count: 64))"}]}"#)
        #expect(manifest.app.rawValue == "com.example.levels")
        let seed = try #require(manifest.seeds.first)
        #expect(seed.source == "/pkg/share/levels.sqlite")
        #expect(seed.name.rawValue == "work.db")
        #expect(seed.location == .cache)
        #expect(seed.version.rawValue == "2")
        #expect(seed.expectedSHA256?.hex == String(repeating: "a", count: 64))
    }

    @Test func appliesDefaults() throws {
        let seed = try #require(try parse(#"{"app": "a", "seeds": [{"source": "/abs/x.db", "version": "1"}]}"#).seeds.first)
        #expect(seed.source == "/abs/x.db")
        #expect(seed.name.rawValue == "x.db")
        #expect(seed.location == .data)
        #expect(seed.expectedSHA256 == nil)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var json: String
        var mentions: String
        var testDescription: String { mentions }
    }

    static let bad: [Bad] = [
        Bad(json: "", mentions: "not valid JSON"),
        Bad(json: "[]", mentions: "not a JSON object"),
        Bad(json: #"{"seeds": []}"#, mentions: "\"app\""),
        Bad(json: #"{"app": "a"}"#, mentions: "\"seeds\""),
        Bad(json: #"{"app": "a", "seeds": []}"#, mentions: "empty"),
        Bad(json: #"{"app": "", "seeds": [{"source": "x", "version": "1"}]}"#, mentions: "app"),
        Bad(json: #"{"app": ".a", "seeds": [{"source": "x", "version": "1"}]}"#, mentions: "app"),
        Bad(json: #"{"app": "a", "extra": 1, "seeds": [{"source": "x", "version": "1"}]}"#, mentions: "\"extra\""),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "colour": "red"}]}"#, mentions: "seeds[0].colour"),
        Bad(json: #"{"app": "a", "seeds": [{"version": "1"}]}"#, mentions: "seeds[0].source"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x"}]}"#, mentions: "seeds[0].version"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": 2}]}"#, mentions: "seeds[0].version"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": ""}]}"#, mentions: "seeds[0].version"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "name": "../x"}]}"#, mentions: "seeds[0].name"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "name": "/etc/passwd"}]}"#, mentions: "seeds[0].name"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "location": "tmp"}]}"#, mentions: "seeds[0].location"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "sha256": "zz"}]}"#, mentions: "seeds[0].sha256"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1"}, {"source": "y/x", "version": "1"}]}"#, mentions: "seeds[0] and seeds[1] both name"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "x", "version": "1", "name": "\u00e9.db"}, {"source": "y", "version": "1", "name": "e\u0301.db"}]}"#,
            mentions: #"seeds[0] and seeds[1] both name their working copy "é.db": "\u{E9}.db" and "e\u{301}.db" look alike"#),
        Bad(json: #"{"app": "a", "seeds": [5]}"#, mentions: "seeds[0]"),
        Bad(json: #"{"app": "a", "seeds": [{"source": "", "version": "1"}]}"#, mentions: "seeds[0].source"),
    ]

    @Test(arguments: bad)
    func rejectsWithTheKeyNamed(_ bad: Bad) {
        do {
            _ = try parse(bad.json)
            Issue.record("expected \(bad.json) to be rejected")
        } catch {
            #expect(error.code == .invalidManifest)
            #expect(error.message.contains(bad.mentions), "\(error.message)")
        }
    }

    @Test func rejectsTooManySeeds() {
        let entries = (0...Manifest.maximumSeeds).map { #"{"source": "s\#($0).db", "version": "1"}"# }.joined(separator: ",")
        #expect(throws: SeedDBError.self) { try parse(#"{"app": "a", "seeds": [\#(entries)]}"#) }
    }

    @Test func missingFileIsUnavailable() {
        do {
            _ = try Manifest.load("/nonexistent/seeds.json")
            Issue.record("expected a throw")
        } catch {
            #expect(error.code == .seedUnavailable)
        }
    }
}
