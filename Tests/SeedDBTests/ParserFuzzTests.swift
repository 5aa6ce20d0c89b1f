import Foundation
import PropertyBased
@testable import SeedDB
import Testing

/// Issue 6, fuzzing: the settings and manifest parsers on generated input, for a bounded
/// number of cases. Neither may crash; what they accept must be valid, and what they
/// reject must be a one-line error of the right kind.
@Suite struct ParserFuzzTests {
    /// JSON-ish fragments, so generated input reaches deep into the parsers rather than
    /// failing at the first byte.
    static let fragments = [
        "{", "}", "[", "]", ":", ",", " ", "\"", "\"seeddb\"", "\"levels.sqlite\"", "\"version\"", "\"sha256\"",
        "\"size\"", "\"deployedAt\"", "\"previous\"", "\"checked\"", "\"source\"", "\"app\"", "\"seeds\"", "\"name\"",
        "\"location\"", "\"preserve\"", "\"data\"", "\"cache\"", "\"1\"", "\"\"", "\"../x\"", "\"/etc/passwd\"",
        "\"com.example\"", "\"\(String(repeating: "ab", count: 32))\"", "1", "-1", "0", "1e999", "12345678901234567890",
        "true", "false", "null", "\"\\u0000\"", "\"\\n\"", "\u{FF}", "\u{0}", "\"é\"",
    ]

    static let generatedText = Gen<String?>.element(of: fragments).array(of: 0...40).map { $0.compactMap { $0 }.joined() }
    static let generatedBytes = Gen<UInt8>.value(in: 0...255).array(of: 0...64)

    @Test func settingsParserNeverCrashesAndKeepsWhatItAccepts() async {
        let count = LockedCounter()
        await propertyCheck(count: 1500, input: Self.generatedText, Self.generatedBytes) { text, noise in
            count.increment()
            for bytes in [Array(text.utf8), Array(text.utf8) + noise, noise] {
                let snapshot = SettingsSnapshot(parsing: bytes)
                if snapshot.problem != nil {
                    #expect(snapshot.entries.isEmpty)
                } else {
                    // Every record it accepts is valid by construction of its types.
                    for record in snapshot.records.values { #expect(!record.version.rawValue.isEmpty) }
                }
            }
        }
        ReliabilityLog.record(suite: "fuzz: settings parser", badInputs: count.value * 3, dataLost: 0)
    }

    @Test func manifestParserAcceptsOnlySafeSeeds() async {
        let count = LockedCounter()
        await propertyCheck(count: 1500, input: Self.generatedText) { text in
            count.increment()
            for candidate in [text, #"{"app": "a", "seeds": [{"source": "x.db", "version": "1", "name": \#(text)}]}"#] {
                do {
                    let manifest = try Manifest(parsing: Array(candidate.utf8), folder: "/pkg")
                    for seed in manifest.seeds {
                        #expect(!seed.name.rawValue.contains("/"))
                        #expect(!seed.name.rawValue.hasPrefix("."))
                        #expect(!seed.app.rawValue.contains("/"))
                    }
                } catch let error as SeedDBError {
                    #expect(error.code == .invalidManifest)
                    #expect(!error.message.contains("\n"))
                } catch {
                    Issue.record("unexpected error \(error)")
                }
            }
        }
        ReliabilityLog.record(suite: "fuzz: manifest parser", badInputs: count.value * 2, dataLost: 0)
    }
}

/// A counter that property checks (which may run concurrently) can share.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
