import Foundation
import PropertyBased
@testable import SeedDB
import SeedDBCore
import Testing

/// A settings entry is decoded straight from the file's bytes (`SettingsEntry+Reading`):
/// whatever SeedDB writes reads back the same, in any order of its members, and the
/// rules of the text come first.
@Suite struct SettingsEntryReadingTests {
    static let codes = Gen.int(in: 0...1_000_000).array(of: 1...80)

    /// An entry with every field chosen from `codes`: present or not, and its values.
    static func entry(codes: inout ArraySlice<Int>) throws -> SettingsEntry {
        func next() -> Int { codes.popFirst() ?? 0 }
        func chance() -> Bool { next() % 2 == 0 }
        func digest() throws -> SHA256Digest { try SHA256Digest(hex: String(format: "%064x", next())) }
        func text() -> String { ["a", "levels", "é", "e\u{301}", "tab\t\"quote\"", "😀", "x/y"][next() % 7] + String(next() % 100) }
        func version() throws -> SeedVersion { try SeedVersion(String(next() % 50 + 1)) }
        func number() -> Int64 { [0, 1, -1, Int64.max, Int64.min, Int64(next()) * 1_000_000_007][next() % 6] }
        func identity() -> FileIdentity {
            FileIdentity(device: UInt64(bitPattern: number()), inode: UInt64(bitPattern: number()), size: number(), modifiedNanoseconds: number(), changedNanoseconds: number())
        }
        func tables() -> [String] { (0..<next() % 4).map { _ in text() } }
        func tableDigests() throws -> [String: SHA256Digest] {
            var digests: [String: SHA256Digest] = [:]
            for _ in 0..<next() % 3 { digests["t" + String(next() % 1000)] = try digest() }
            return digests
        }
        func signature() -> SeedSignature {
            SeedSignature(keyID: String(format: "%016X", next()), serial: [0, 1, UInt64.max, UInt64(next())][next() % 4])
        }
        func record() throws -> DeployRecord {
            var record = DeployRecord(
                version: try version(), sha256: chance() ? try digest() : nil, size: Int64(next()), deployedAt: text(),
                seedTables: chance() ? tables() : nil)
            if chance() { record.tableDigests = try tableDigests() }
            return record
        }

        var entry = SettingsEntry(record: chance() ? try record() : nil)
        if chance() {
            entry.previous = try record()
            if chance() { entry.previous?.base = try digest() }
            if chance() { entry.previous?.signature = signature() }
        }
        if chance() { entry.maintainedAt = text() }
        if chance() {
            entry.checked = ValidationMemo(sha256: try digest(), integrity: IntegrityLevel.allCases[next() % 3], tables: chance() ? tables() : nil)
            if chance() { entry.checked?.tableDigests = try tableDigests() }
        }
        if chance() { entry.source = SourceDigest(identity: identity(), sha256: try digest()) }
        if chance() {
            entry.base = try digest()
            if chance() { entry.baseIdentity = identity() }
        }
        if chance() { entry.location = SeedLocation.allCases[next() % 2] }
        if chance() { entry.generation = text() }
        if chance() { entry.pristine = identity() }
        if chance() { entry.heldFrom = try version() }
        if chance() { entry.seedLink = "/usr/share/" + text() }
        if chance() {
            var run = SettingsEntry.InterruptedRun(
                version: try version(), generation: chance() ? text() : nil, replacing: chance() ? try record() : nil,
                base: chance() ? try digest() : nil, seedTables: chance() ? tables() : nil, isRollback: chance())
            if chance() { run.snapshot = try digest() }
            if chance() { run.replacingGeneration = text() }
            run.adopting = chance()
            // A reseed is never a rollback.
            run.isReseed = !run.isRollback && chance()
            run.runSignature = [.unknown, .unsigned, .signed(signature())][next() % 3]
            if chance() { run.release = try (0..<next() % 3).map { _ in SettingsEntry.ReleaseSeed(name: text(), version: try version()) } }
            if chance() { run.tableDigests = try tableDigests() }
            // A read-only deploy's marker names a seed, never a generation.
            if run.generation == nil, chance() { run.seedLink = "/usr/share/" + text() }
            if chance() {
                var merge: MergeSummary?
                if chance() {
                    merge = MergeSummary(inserted: next(), updated: next(), deleted: next(), conflicts: next())
                    merge?.withoutBase = chance()
                }
                run.carry = SettingsEntry.CarryOutcome(carried: tables(), merge: merge, discarded: chance() ? tables() : nil)
            }
            entry.interrupted = run
        }
        if chance() { entry.signature = signature() }
        return entry
    }

    /// `value` as compact JSON text with each object's members in an order chosen from
    /// `codes` (SeedDB's writer sorts them; a hand or another tool may not).
    static func shuffledText(_ value: JSONValue, codes: inout ArraySlice<Int>) -> String {
        switch value {
        case .object(let members):
            var keys = members.keys.sorted()
            for index in keys.indices.reversed() { keys.swapAt(index, (codes.popFirst() ?? 0) % (index + 1)) }
            return "{" + keys.map { key in
                String(decoding: JSONValue.string(key).prettyPrinted, as: UTF8.self) + ":" + shuffledText(members[key]!, codes: &codes)
            }.joined(separator: ",") + "}"
        case .array(let elements):
            return "[" + elements.map { shuffledText($0, codes: &codes) }.joined(separator: ",") + "]"
        default:
            return String(decoding: value.prettyPrinted, as: UTF8.self)
        }
    }

    @Test func whatSeedDBWritesReadsBackTheSameInAnyOrderOfItsMembers() async {
        await propertyCheck(count: 400, input: Self.codes) { codes in
            var slice = codes[...]
            let entry = try Self.entry(codes: &slice)
            let written = SettingsSnapshot().bytes(with: ["levels.sqlite": entry, "other.sqlite": SettingsEntry()])
            for only in [nil, "levels.sqlite"] {
                let read = SettingsSnapshot(parsing: written, only: only)
                #expect(read.problem == nil)
                #expect(read.entries["levels.sqlite"] == entry)
            }
            let shuffled = Self.shuffledText(try JSONValue.parse(written[...], rules: .lenient), codes: &slice)
            let reordered = SettingsSnapshot(parsing: Array(shuffled.utf8), only: "levels.sqlite")
            #expect(reordered.problem == nil, "\(shuffled)")
            #expect(reordered.entries["levels.sqlite"] == entry, "\(shuffled)")
        }
    }

    static let digest = String(repeating: "ab", count: 32)

    /// A member of the wrong type is the entry's problem, named; a syntax error anywhere
    /// in the file wins over it, before or after it; another entry's members are only
    /// checked as JSON when one entry is read.
    @Test func aSyntaxErrorWinsOverAFieldOfTheWrongType() {
        let mistyped = #""levels.sqlite": {"version": "1", "sha256": "\#(Self.digest)", "size": "big", "deployedAt": "t"}"#
        let snapshot = SettingsSnapshot(parsing: Array("{\"seeddb\": {\(mistyped)}}".utf8))
        #expect(snapshot.problem == .badSeedDBValue(#"entry "levels.sqlite": "size" is missing or has the wrong type"#))
        for broken in ["{\"seeddb\": {\(mistyped)}, \"app\": [1,,2]}", "{\"app\": tru, \"seeddb\": {\(mistyped)}}", "{\"seeddb\": {\(mistyped), \"b\": {\"x\": }}}"] {
            guard case .notAnObject = SettingsSnapshot(parsing: Array(broken.utf8), only: "levels.sqlite").problem else {
                Issue.record("\(broken): not read as a syntax error")
                continue
            }
        }
        let sibling = SettingsSnapshot(parsing: Array("{\"seeddb\": {\(mistyped), \"b.sqlite\": {}}}".utf8), only: "b.sqlite")
        #expect(sibling.problem == nil)
        #expect(sibling.entries == ["b.sqlite": SettingsEntry()])
    }

    /// Numbers as `JSONSerialization` wrote them read as it read them: an integer written
    /// with an exponent or a zero fraction is that integer; one that does not fit, or has a
    /// fraction, is the wrong type, and so is a negative size. (Identities hold negative
    /// numbers down to `Int64.min`: the property above.)
    @Test(arguments: [("8192", Int64?(8192)), ("8.192e3", 8192), ("-0", 0), ("8192.0", 8192), ("9223372036854775807", .max),
                      ("9223372036854775808", nil), ("10000000000000000000e-1", 1_000_000_000_000_000_000), ("-1", nil),
                      ("81.5", nil), ("true", nil), ("\"8192\"", nil)])
    func sizesAreReadAsJSONSerializationWroteThem(_ written: String, _ size: Int64?) {
        let text = #"{"seeddb": {"a": {"version": "1", "sha256": "\#(Self.digest)", "size": \#(written), "deployedAt": "t"}}}"#
        let snapshot = SettingsSnapshot(parsing: Array(text.utf8))
        if let size {
            #expect(snapshot.problem == nil)
            #expect(snapshot.entries["a"]?.record?.size == size)
        } else {
            #expect(snapshot.problem == .badSeedDBValue(#"entry "a": "size" is missing or has the wrong type"#), "\(written)")
        }
    }

    /// A digest is read straight from its 64 digits, or as any string when an escape is
    /// among them; upper case is folded. Anything else (63 or 65 digits, a letter past
    /// `f`, a number) is the wrong type, named.
    @Test(arguments: [
        (Self.digest, true), (Self.digest.uppercased(), true), (#"\u0061"# + Self.digest.dropFirst(), true),
        (String(Self.digest.dropLast()), false), (Self.digest + "a", false), ("g" + Self.digest.dropFirst(), false),
    ])
    func digestsAreReadAsWritten(_ written: String, _ isDigest: Bool) {
        for member in ["sha256", "checked"] {
            let value = member == "sha256" ? "\"\(written)\"" : #"{"sha256": "\#(written)", "integrity": "quick"}"#
            let text = #"{"seeddb": {"a": {"version": "1", "sha256": "\#(Self.digest)", "size": 1, "deployedAt": "t", "\#(member)": \#(value)}}}"#
            let snapshot = SettingsSnapshot(parsing: Array(text.utf8))
            if isDigest {
                #expect(snapshot.problem == nil, "\(written)")
                let read = member == "sha256" ? snapshot.entries["a"]?.record?.sha256 : snapshot.entries["a"]?.checked?.sha256
                #expect(read?.hex == Self.digest, "\(written)")
            } else {
                let field = member == "sha256" ? "sha256" : "checked"
                #expect(snapshot.problem == .badSeedDBValue(#"entry "a": "\#(field)" is missing or has the wrong type"#), "\(written)")
            }
        }
        let number = SettingsSnapshot(parsing: Array(#"{"seeddb": {"a": {"version": "1", "sha256": 5, "size": 1, "deployedAt": "t"}}}"#.utf8))
        #expect(number.problem == .badSeedDBValue(#"entry "a": "sha256" is missing or has the wrong type"#))
    }

    /// Every object in an entry refuses a key that only looks like an earlier one (`é` and
    /// `e` + U+0301, `K` and the Kelvin sign U+212A), as when the entry was read as JSON
    /// values kept whole: the file is damaged, whatever the keys are and wherever they are.
    /// An entry that is not read (another working copy's) is only checked as JSON.
    @Test(arguments: [
        #"{"x": {"\u00e9": 1, "e\u0301": 2}}"#,
        #"{"checked": {"sha256": "\#(Self.digest)", "integrity": "quick", "\u00e9": 1, "e\u0301": 2}}"#,
        #"{"interrupted": {"version": "1", "rollback": false, "release": [{"name": "a", "version": "1", "\u00e9": 1, "e\u0301": 2}]}}"#,
        #"{"signature": {"keyId": "0123456789ABCDEF", "serial": 1, "publicKey": "x", "public\u212Aey": "y"}}"#,
        #"{"readOnly": {"\u00e9": 1, "e\u0301": 2}}"#,
        #"{"checked": {"sha256": "\#(Self.digest)", "integrity": "quick", "tableDigests": {"\u00e9": 5, "e\u0301": "\#(Self.digest)"}}}"#,
    ])
    func aKeyThatOnlyLooksLikeAnEarlierOneDamagesTheFile(_ entry: String) {
        for only in [nil, "a"] {
            guard case .notAnObject(let reason) = SettingsSnapshot(parsing: Array(#"{"seeddb": {"a": \#(entry)}}"#.utf8), only: only).problem else {
                Issue.record("\(entry): not refused")
                continue
            }
            #expect(reason.contains("looks like the earlier"), "\(reason)")
        }
        let sibling = SettingsSnapshot(parsing: Array(#"{"seeddb": {"a": \#(entry), "b": {}}}"#.utf8), only: "b")
        #expect(sibling.problem == nil)
    }

    /// A key is matched by its bytes when it is ASCII, and as text otherwise, as all keys
    /// were: one written with an escape is the member it spells, and so is one equal to
    /// it as text with other bytes (the Kelvin sign U+212A for `K`; here a public key
    /// that is not one, so the member is seen to be read).
    @Test func aKeyIsTheMemberItSpells() {
        let escaped = SettingsSnapshot(parsing: Array(#"{"seeddb": {"a": {"\u0076ersion": "1", "sha256": "\#(Self.digest)", "size": 1, "deployedAt": "t"}}}"#.utf8))
        #expect(escaped.problem == nil)
        #expect(escaped.entries["a"]?.record?.version.description == "1")
        let kelvin = SettingsSnapshot(parsing: Array(#"{"seeddb": {"a": {"signature": {"keyId": "0123456789ABCDEF", "serial": 1, "public\u212Aey": "x"}}}}"#.utf8))
        #expect(kelvin.problem == .badSeedDBValue(#"entry "a": "signature.publicKey" is missing or has the wrong type"#))
    }

    /// A table written twice in `tableDigests` counts the last time, as any repeated key.
    @Test func aRepeatedTableDigestCountsTheLastTime() {
        let text = #"{"seeddb": {"a": {"checked": {"sha256": "\#(Self.digest)", "integrity": "quick", "tableDigests": {"t": 5, "t": "\#(Self.digest)"}}}}}"#
        let snapshot = SettingsSnapshot(parsing: Array(text.utf8))
        #expect(snapshot.problem == nil)
        #expect(snapshot.entries["a"]?.checked?.tableDigests == ["t": try! SHA256Digest(hex: Self.digest)])
    }

    /// An entry written twice counts the last time, even when the first was damaged; a
    /// name of another's bytes that only looks the same is refused as the file's problem.
    @Test func theLastOfARepeatedEntryCountsAndALookalikeIsRefused() {
        let repeated = #"{"seeddb": {"a": {"version": 1}, "a": {"maintainedAt": "2"}}}"#
        let snapshot = SettingsSnapshot(parsing: Array(repeated.utf8))
        #expect(snapshot.problem == nil)
        #expect(snapshot.entries["a"]?.maintainedAt == "2")
        let digests = #"{"seeddb": {"a": {"checked": {"sha256": "\#(Self.digest)", "integrity": "quick", "tableDigests": {"\u00e9": "\#(Self.digest)", "e\u0301": "\#(Self.digest)"}}}}}"#
        guard case .notAnObject(let reason) = SettingsSnapshot(parsing: Array(digests.utf8)).problem else {
            Issue.record("two lookalike table names were merged")
            return
        }
        #expect(reason.contains("looks like the earlier"))
    }
}
