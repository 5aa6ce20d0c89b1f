import GRDB
import SeedDBCore

/// The tables a seed's configuration names (``Seed/preservedTables`` and the per-table
/// merge policies, ``MergePolicies/tables``), checked against the tables there are, so
/// that a misspelt name fails at the first deploy, in development, and not at the first
/// upgrade, in the field.
///
/// A name must be a table of the new seed, or, on a replace, of the working copy (a
/// preserved table the new seed dropped, or an app's own table, is carried whole). The
/// error names the closest table there is.
enum ConfiguredTables {
    /// The names a configuration refers to, with what each is: `preserved` or `merge`.
    static func names(preserved: [String], merge: MergePolicies) -> [(name: String, what: String)] {
        preserved.map { ($0, "preserved") } + merge.tables.keys.sorted().map { ($0, "merge") }
    }

    /// Checks the names against the tables of the new copy (`main`) and the working copy
    /// (`old`) attached to `db`, before the merge and the carry (on a replace).
    static func check(_ names: [(name: String, what: String)], in db: Database) throws(SeedDBError) {
        guard !names.isEmpty else { return }
        let tables = try SQLiteFile.mapping("cannot read the tables of", "the working copy") {
            try Array(Set(MergeCatalog.tableNames(in: "main", db: db) + MergeCatalog.tableNames(in: "old", db: db))).sorted()
        }
        try check(names, among: tables, missingFrom: "the working copy or the new seed")
    }

    /// Checks `names` against `tables` (compared as SQLite compares names, ignoring ASCII
    /// case).
    ///
    /// - Parameter place: What lacks a name, for the message (`the seed /…/levels.sqlite`).
    /// - Throws: ``SeedDBError`` `invalidConfiguration`: `preserved table "progres" is not
    ///   in the seed …; did you mean "progress"?`.
    static func check(_ names: [(name: String, what: String)], among tables: [String], missingFrom place: String) throws(SeedDBError) {
        let known = Set(tables.map(MergeNames.folded))
        for (name, what) in names where !known.contains(MergeNames.folded(name)) {
            let hint = Spelling.closest(to: name, among: tables).map { "; did you mean \(NameRules.quoted($0))?" } ?? ""
            throw SeedDBError(.invalidConfiguration, "\(what) table \(NameRules.quoted(name)) is not in \(place)\(hint); nothing was changed")
        }
    }
}
