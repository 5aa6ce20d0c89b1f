import Foundation
import PropertyBased
@testable import SeedDB
import Testing

/// SeedDB's JSON: the strict check manifests go through, the lenient reading of the
/// settings store, and the writer.
@Suite struct JSONValueTests {
    func problem(_ text: String) -> String? {
        do {
            _ = try JSONValue.parse(Array(text.utf8)[...], rules: .strict)
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
        let deep = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        #expect(problem(deep)?.contains("nested more than") == true)
    }

    @Test func aManifestMaySkipAByteOrderMark() throws {
        let manifest = try Manifest(parsing: [0xEF, 0xBB, 0xBF] + Array(#"{"app": "a", "seeds": [{"source": "x.db", "version": "1"}]}"#.utf8), folder: "/pkg")
        #expect(manifest.seeds.count == 1)
    }

    @Test func aLoneSurrogateIsRefusedAndAPairIsOneCharacter() throws {
        #expect(problem(#"["\ud800"]"#)?.contains("line 1, column 3: a lone surrogate") == true)
        #expect(problem(#"["\ud800\u0041"]"#)?.contains("a lone surrogate") == true)
        #expect(try JSONValue.parse(Array(#"["\ud83d\ude00"]"#.utf8)[...], rules: .strict) == .array([.string("😀")]))
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        #expect(throws: SeedDBError.self) { try JSONValue.parse([0x22, 0xFF, 0x22][...], rules: .lenient) }
    }

    @Test func parsesValuesAndKeepsNumbersAsWritten() throws {
        let text = #"{"n": [1.50, -0, 2e3, 12345678901234567890], "s": "a\/\"\u00e9\n", "b": [true, false, null], "o": {}}"#
        let value = try JSONValue.parse(Array(text.utf8)[...], rules: .strict)
        #expect(value == .object([
            "n": .array([.number("1.50"), .number("-0"), .number("2e3"), .number("12345678901234567890")]),
            "s": .string("a/\"é\n"), "b": .array([.bool(true), .bool(false), .null]), "o": .object([:]),
        ]))
        #expect(value.object?["n"]?.array?.map(\.integer) == [nil, 0, 2000, nil])
        #expect(JSONValue.number("3.0").integer == 3)
        #expect(JSONValue.bool(true).integer == nil)
    }

    /// The settings store is read as `JSONSerialization` read it.
    @Test func theLenientRulesTakeWhatJSONSerializationTook() throws {
        for text in ["\u{FEFF}{\"a\": 1}", #"{"a": [1,],}"#, #"{"a": 0, "a": 1}"#] {
            let value = try JSONValue.parse(Array(text.utf8)[...], rules: .lenient)
            #expect(value.object?["a"] != nil, "\(text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(text)")
        }
        #expect(try JSONValue.parse(Array(#"{"a": 0, "a": 1}"#.utf8)[...], rules: .lenient) == .object(["a": .number("1")]))
        #expect(throws: SeedDBError.self) { try JSONValue.parse(Array(#"{"a": 1,}"#.utf8)[...], rules: .strict) }
    }

    @Test func onlyKeepsThePathAndChecksTheRest() throws {
        let text = #"{"app": {"big": [1, 2, 3]}, "seeddb": {"a": {"version": "1"}, "b": {"version": "2"}}}"#
        let value = try JSONValue.parse(Array(text.utf8)[...], rules: .lenient, only: ["seeddb", "b"])
        #expect(value == .object(["seeddb": .object(["b": .object(["version": .string("2")])])]))
        let broken = #"{"app": {"big": [1, 2,, 3]}, "seeddb": {}}"#
        #expect(throws: SeedDBError.self) { try JSONValue.parse(Array(broken.utf8)[...], rules: .lenient, only: ["seeddb", "b"]) }
    }

    @Test func writesTheLayoutJSONSerializationWrote() throws {
        let value = JSONValue.object([
            "seeddb": .object(["levels.sqlite": .object(["size": JSONValue(8192), "tables": .array([.string("a/b")]), "e": .object([:])])]),
            "app": .array([]), "text": .string("\u{1}\u{8}\u{C}\t\r\n\"\\é\u{7F}"), "on": .bool(false), "none": .null,
        ])
        let foundation = try JSONSerialization.data(withJSONObject: Self.foundationObject(value), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: value.prettyPrinted, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
    }

    /// Values built from generated codes: any tree of every kind, with keys of lowercase
    /// letters (so `JSONSerialization`'s key order is plain byte order) and any text.
    static let codes = Gen.int(in: 0...1000).array(of: 1...60)
    static let texts = Gen.unicodeScalar(in: "\u{0}"..."\u{2FF}").array(of: 0...6)
        .map { String(String.UnicodeScalarView($0)) }.array(of: 1...8)

    static func value(codes: inout ArraySlice<Int>, texts: [String], depth: Int = 0) -> JSONValue {
        let code = codes.popFirst() ?? 0
        let text = texts[code % texts.count]
        switch depth > 4 ? code % 5 : code % 7 {
        case 0: return .null
        case 1: return .bool(code % 2 == 0)
        case 2: return JSONValue(Int64(code) * (code % 3 == 0 ? -1 : 1) * 1_000_003)
        case 3, 4: return .string(text)
        case 5: return .array((0..<(codes.popFirst() ?? 0) % 4).map { _ in value(codes: &codes, texts: texts, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<(codes.popFirst() ?? 0) % 4 {
                let key = String((text.unicodeScalars.map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0.value % 26))) }))
                members[key] = value(codes: &codes, texts: texts, depth: depth + 1)
            }
            return .object(members)
        }
    }

    @Test func whatIsWrittenReadsBackAsTheSameValueAndAsFoundationWroteIt() async {
        await propertyCheck(count: 300, input: Self.codes, Self.texts) { codes, texts in
            var slice = codes[...]
            let value = Self.value(codes: &slice, texts: texts)
            let written = value.prettyPrinted
            #expect(try JSONValue.parse(written[...], rules: .strict) == value)
            if value.object != nil || value.array != nil {
                let foundation = try JSONSerialization.data(withJSONObject: Self.foundationObject(value), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                #expect(written == Array(foundation))
            }
        }
    }

    /// `value` as the objects `JSONSerialization` takes.
    static func foundationObject(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let text): return Int64(text)!
        case .string(let text): return text
        case .array(let elements): return elements.map(foundationObject)
        case .object(let members): return members.mapValues(foundationObject)
        }
    }
}
