import Testing
@testable import SeedDBCore

/// The suggestions offered for a mistyped command, option or manifest key.
@Suite struct SpellingTests {
    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(Spelling.editDistance("kitten", "sitting") == 3)
        #expect(Spelling.editDistance("", "abc") == 3)
        #expect(Spelling.editDistance("versoin", "version") == 2)
    }

    @Test func closestIsOnlyOfferedWithinASmallDistance() {
        #expect(Spelling.closest(to: "versoin", among: ["source", "version", "name"]) == "version")
        #expect(Spelling.closest(to: "mergeTable", among: ["merge", "mergeTables"]) == "mergeTables")
        #expect(Spelling.closest(to: "frobnicate", among: ["source", "version"]) == nil)
    }
}
