import Foundation
import GRDB
@testable import SeedDB
import Testing

/// What an app sees of SeedDB's errors and values: its own one line, in words.
@Suite struct SeedDBErrorTests {
    @Test func localizedDescriptionIsTheOneLine() {
        let error: any Error = SeedDBError(.inUse, "cannot replace /x/levels.sqlite: database in use by another process")
        #expect(error.localizedDescription == "cannot replace /x/levels.sqlite: database in use by another process")
    }

    @Test func anSQLiteErrorIsDescribedByItsOwnCode() {
        // GRDB reads the connection's message after the fact: a busy step reads "no more rows".
        let read = DatabaseError(resultCode: .SQLITE_BUSY, message: "no more rows available")
        #expect(SQLiteFile.inItsOwnWords(read).description == "SQLite error 5: database is locked")
        #expect(SQLiteFile.inItsOwnWords(read).resultCode == .SQLITE_BUSY)
    }

    @Test func valuesPrintAsTheCLIsWords() {
        #expect("\(DeployAction.rolledBack)" == "rolled back")
        #expect("\(DeployAction.restored)" == "restored")
        #expect("\(MergeConflict.Kept.user)" == "kept the user's")
        #expect("\(MergeConflict.Kept.seed)" == "kept the seed's")
        #expect(DeployAction.rolledBack.rawValue == "rolled-back", "the JSON keeps its value")
    }

    @Test func eachFailureHasItsOwnCode() {
        let codes = SeedDBError.Code.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        #expect(codes.contains("merge-refused") && codes.contains("invalid-configuration") && codes.contains("in-use") && codes.contains("invalid-seed"))
    }
}
