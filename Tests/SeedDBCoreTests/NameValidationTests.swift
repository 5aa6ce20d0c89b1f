import SeedDBCore
import Testing

@Suite struct NameValidationTests {
    static let validIdentifiers = ["a", "com.example.levels", "A-Z_0.9", String(repeating: "x", count: 128)]
    static let invalidIdentifiers = ["", ".hidden", "..", "a/b", "../etc", "a\nb", "a\0b", String(repeating: "x", count: 256)]
    static let invalidAppIdentifiers = ["a b", "é", String(repeating: "x", count: 129), "~user"]

    @Test(arguments: validIdentifiers)
    func acceptsIdentifier(_ text: String) throws {
        #expect(try AppIdentifier(text).rawValue == text)
        #expect(try SeedName(text).rawValue == text)
    }

    @Test(arguments: invalidIdentifiers)
    func rejectsIdentifier(_ text: String) {
        #expect(throws: SeedDBError.self) { try AppIdentifier(text) }
        #expect(throws: SeedDBError.self) { try SeedName(text) }
    }

    @Test(arguments: invalidAppIdentifiers)
    func appIdentifiersKeepTheirStrictRule(_ text: String) {
        #expect(throws: SeedDBError.self) { try AppIdentifier(text) }
    }

    @Test(arguments: ["my levels.sqlite", "niveaux é.sqlite", "レベル.db", "a b", "~user", "levels.v2.sqlite", "x.v", String(repeating: "x", count: 255),
                      "levels.sqlite.adopted-mine", "levels.adopted-20261126T071500Z.sqlite", "levels.zst"])
    func acceptsAnyPlainFileNameAsAWorkingCopyName(_ text: String) throws {
        #expect(try SeedName(text).rawValue == text)
    }

    @Test(arguments: ["", ".", "..", ".hidden", "a/b", "a\0b", "a\nb", String(repeating: "x", count: 256),
                      "levels.sqlite-wal", "levels.sqlite-shm", "levels.sqlite-journal", "levels.sqlite.lock",
                      "levels.sqlite.previous", "levels.sqlite.base", "levels.sqlite.conflicts.json", "x.tmp", "levels.sqlite.v7",
                      "levels.sqlite.seeddb-abc", "settings.json", "settings.json.lock",
                      "levels.sqlite.adopted-20261126T071500Z", "levels.sqlite.adopted-20261126T071500Z-3", "levels.sqlite.previous.base.xor.zst",
                      // The marker's bytes, with a combining accent after them (one character
                      // with the `-`, which a comparison of characters does not see).
                      "a.seeddb-\u{301}x"])
    func rejectsWorkingCopyName(_ text: String) {
        #expect(throws: SeedDBError.self) { try SeedName(text) }
    }

    @Test(arguments: ["1", "2.3.0-beta+7", "build 42", String(repeating: "v", count: 256)])
    func acceptsVersion(_ text: String) throws {
        #expect(try SeedVersion(text).rawValue == text)
    }

    @Test(arguments: ["", "1\n2", "a\0b", "tab\there", String(repeating: "v", count: 257), String(repeating: "v", count: 10_240)])
    func rejectsVersion(_ text: String) {
        #expect(throws: SeedDBError.self) { try SeedVersion(text) }
    }

    @Test func errorsAreOneLineAndNameTheProblem() {
        do {
            _ = try AppIdentifier("bad\nname/../x")
            Issue.record("expected a throw")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(!error.message.contains("\n"))
            #expect(error.message.contains("app id"))
        }
    }

    @Test func digestsAreValidatedAndFolded() throws {
        let upper = String(repeating: "AB", count: 32)
        #expect(try SHA256Digest(hex: upper).hex == String(repeating: "ab", count: 32))
        #expect(throws: SeedDBError.self) { try SHA256Digest(hex: "abc") }
        #expect(throws: SeedDBError.self) { try SHA256Digest(hex: String(repeating: "g", count: 64)) }
        #expect(throws: SeedDBError.self) { try SHA256Digest(hex: String(repeating: "a", count: 63)) }
        #expect(throws: SeedDBError.self) { try SHA256Digest(hex: String(repeating: "a", count: 65)) }
        // 64 bytes of UTF-8, one of them not a hexadecimal digit.
        #expect(throws: SeedDBError.self) { try SHA256Digest(hex: String(repeating: "a", count: 62) + "é") }
        #expect(try SHA256Digest(hex: String(repeating: "aF", count: 32)).hex == String(repeating: "af", count: 32))
        #expect(SHA256Digest(bytes: [0x00, 0xFF, 0x1A] + Array(repeating: 0x5C, count: 29)).hex == "00ff1a" + String(repeating: "5c", count: 29))
    }

    @Test func seedNameDefaultsToTheSourceFileName() throws {
        let seed = try Seed(app: AppIdentifier("app"), source: "/usr/share/app/levels.sqlite", version: SeedVersion("1"))
        #expect(seed.name.rawValue == "levels.sqlite")
        #expect(seed.location == .data)
        #expect(throws: SeedDBError.self) {
            try Seed(app: AppIdentifier("app"), source: "/usr/share/app/.hidden", version: SeedVersion("1"))
        }
    }

    /// A read-only seed is a link: preserved tables or a merge policy would apply to
    /// nothing, and are refused rather than taken silently.
    @Test func aReadOnlySeedDescriptionTakesNoCarry() throws {
        let app = try AppIdentifier("com.example.levels")
        #expect(throws: SeedDBError.self) { try Seed(app: app, source: "/usr/share/levels.sqlite", version: SeedVersion("1"), preservedTables: ["progress"], readOnly: true) }
        #expect(throws: SeedDBError.self) { try Seed(app: app, source: "/usr/share/levels.sqlite", version: SeedVersion("1"), merge: MergePolicies(default: .off), readOnly: true) }
        #expect(try Seed(app: app, source: "/usr/share/levels.sqlite", version: SeedVersion("1"), readOnly: true).readOnly)
    }
}
