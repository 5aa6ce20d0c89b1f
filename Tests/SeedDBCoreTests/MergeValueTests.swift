import SeedDBCore
import Testing

@Suite struct MergeValueTests {
    @Test func storageClassesNeverCompareEqual() {
        let values: [MergeValue] = [.null, .integer(1), .real(1), .text("1"), .blob(Array("1".utf8))]
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                #expect((a == b) == (i == j), "\(a) vs \(b)")
            }
        }
    }

    @Test func equalityIsExactWithinAClass() {
        #expect(MergeValue.text("A") != .text("a"))
        #expect(MergeValue.text("\u{C9}") != .text("E\u{301}"))
        #expect(MergeValue.real(0.1 + 0.2) != .real(0.3))
        #expect(MergeValue.real(0) == .real(-0.0))
        #expect(Set([MergeValue.real(0), .real(-0.0)]).count == 1)
        #expect(Set([MergeValue.text("\u{C9}"), .text("E\u{301}")]).count == 2)
    }

    @Test func jsonKeepsRealsApartFromIntegers() {
        #expect(MergeValue.integer(3).json == "3")
        #expect(MergeValue.real(3).json == "3.0")
        #expect(MergeValue.real(2.5).json == "2.5")
        #expect(MergeValue.real(1e-7).json == "1e-07")
        #expect(MergeValue.real(.infinity).json == "1e999")
        #expect(MergeValue.null.json == "null")
        #expect(MergeValue.text("a\"b\\c\n\u{1}é").json == "\"a\\\"b\\\\c\\n\\u0001é\"")
        #expect(MergeValue.blob([0x00, 0xAB, 0x10]).json == "{\"hex\":\"00ab10\"}")
    }

    @Test func conflictJSONHasTheDocumentedShape() {
        let cell = MergeConflict(table: "levels", key: [MergeField("id", .integer(3))], column: "name",
                                 base: .value(.text("a")), user: .value(.text("b")), seed: .value(.null), kept: .user)
        #expect(cell.json == "{\"table\":\"levels\",\"key\":{\"id\":3},\"column\":\"name\",\"base\":\"a\",\"user\":\"b\",\"seed\":null,\"kept\":\"user\"}")
        let row = MergeConflict(table: "t", key: [MergeField("a", .text("x")), MergeField("b", .integer(2))], column: nil,
                                base: .absent, user: .row([MergeField("a", .text("x")), MergeField("v", .real(1))]),
                                seed: .row([MergeField("a", .text("x")), MergeField("v", .blob([1]))]), kept: .none)
        #expect(row.json == "{\"table\":\"t\",\"key\":{\"a\":\"x\",\"b\":2},\"column\":null,\"base\":null,\"user\":{\"a\":\"x\",\"v\":1.0},\"seed\":{\"a\":\"x\",\"v\":{\"hex\":\"01\"}},\"kept\":\"none\"}")
        #expect(row.location == "table \"t\", key [a=\"x\",b=2] (whole row)")
        #expect(MergeConflict.document(seeds: [(name: "levels.sqlite", conflicts: [cell]), (name: "b", conflicts: [])])
            == "{\"seeds\":[{\"name\":\"levels.sqlite\",\"conflicts\":[\(cell.json)]},{\"name\":\"b\",\"conflicts\":[]}]}")
        #expect(MergeSummary(inserted: 1, updated: 2, deleted: 3, conflicts: 4).json == "{\"inserted\":1,\"updated\":2,\"deleted\":3,\"conflicts\":4}")
    }

    @Test func policiesUseTheManifestSpelling() {
        #expect(MergePolicy.allCases.map(\.rawValue) == ["off", "seed-wins", "user-wins", "fail"])
        #expect(MergePolicy(rawValue: "user-wins") == .userWins)
        #expect(MergePolicy(rawValue: "userWins") == nil)
    }

    @Test func perTablePoliciesMatchNamesAsSQLiteDoes() {
        let policies = MergePolicies(default: .userWins, tables: ["Levels": .seedWins, "catalogue": .off])
        #expect(policies.policy(for: "levels") == .seedWins)
        #expect(policies.policy(for: "LEVELS") == .seedWins)
        #expect(policies.policy(for: "catalogue") == .off)
        #expect(policies.policy(for: "notes") == .userWins)
        #expect(policies.explicitPolicy(for: "notes") == nil)
        #expect(MergePolicies().policy(for: "x") == .off)
        #expect(!MergePolicies().mergesAnything)
        #expect(MergePolicies(tables: ["t": .fail]).mergesAnything)
    }
}
