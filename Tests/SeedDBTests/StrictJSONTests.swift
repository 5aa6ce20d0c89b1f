@testable import SeedDB
import Testing

/// The strict JSON check manifests go through before Foundation decodes them.
@Suite struct StrictJSONTests {
    func problem(_ text: String) -> String? {
        do {
            try StrictJSON.validate(Array(text.utf8)[...])
            return nil
        } catch {
            #expect(error.code == .invalidManifest)
            #expect(!error.message.contains("\n"))
            return error.message
        }
    }

    @Test(arguments: [
        #"{}"#, #"[]"#, #" {"a": [1, -2.5e3, 0, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} "#,
        #"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}"#, "{\"é\": 1, \"e\": 2}",
    ])
    func acceptsJSON(_ text: String) {
        #expect(problem(text) == nil)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "not valid JSON: line 1, column 9: trailing comma before '}'"),
        ("[1, 2,\n]", "not valid JSON: line 2, column 1: trailing comma before ']'"),
        ("{\"a\": 1, \"a\": 2}", "line 1, column 10: duplicate key \"a\""),
        ("{\"app\": 1, \"\\u0061pp\": 2}", "duplicate key \"app\""),
        ("{\"seeds\": [{\"v\": 1,\n  \"v\": 2}]}", "line 2, column 3: duplicate key \"seeds[0].v\""),
        ("", "not valid JSON: line 1, column 1: expected a value, found end of file"),
        ("{\"a\" 1}", "expected ':' after a key"),
        ("{'a': 1}", "expected a key in quotes, found '''"),
        ("[01]", "expected ',' or ']', found '1'"),
        ("[1.]", "expected a digit after '.'"),
        ("{\"a\": tru}", "expected true"),
        ("{} {}", "unexpected '{' after the JSON value"),
        ("[\"a\tb\"]", "control character in a string"),
        ("[\"\\x\"]", "invalid escape \\x"),
        ("{\"é\": [1,,]}", "line 1, column 10: expected a value, found ','"),
    ])
    func refuses(_ text: String, _ message: String) {
        let found = problem(text)
        #expect(found?.contains(message) == true, "\(text): \(found ?? "accepted")")
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: StrictJSON.maximumDepth + 1) + String(repeating: "]", count: StrictJSON.maximumDepth + 1)
        #expect(problem(deep)?.contains("nested more than") == true)
    }

    @Test func aManifestMaySkipAByteOrderMark() throws {
        let manifest = try Manifest(parsing: [0xEF, 0xBB, 0xBF] + Array(#"{"app": "a", "seeds": [{"source": "x.db", "version": "1"}]}"#.utf8), folder: "/pkg")
        #expect(manifest.seeds.count == 1)
    }
}
