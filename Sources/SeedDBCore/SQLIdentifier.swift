/// The one way SeedDB quotes a name (table, column, index, trigger, view, schema) in the
/// SQL it builds: in double quotes, each double quote inside doubled, so every name
/// SQLite accepts, `my"t` and SQL keywords included, reads back as itself.
///
/// (GRDB's `quotedDatabaseIdentifier` wraps a name in quotes without doubling the quotes
/// inside it, so it is not used.)
package enum SQLIdentifier {
    /// `name` as an SQL identifier: `levels` → `"levels"`, `my"t` → `"my""t"`.
    package static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

extension String {
    /// This name as an SQL identifier (see ``SQLIdentifier/quoted(_:)``).
    package var quotedSQLIdentifier: String { SQLIdentifier.quoted(self) }
}
