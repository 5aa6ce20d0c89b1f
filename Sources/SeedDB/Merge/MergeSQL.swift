import Foundation
import GRDB
import SeedDBCore

/// The few bits of SQL text a merge builds or reads.
enum MergeSQL {
    /// `ALTER TABLE destination ADD COLUMN …` for `column` as `table` declares it: the text of
    /// its declaration in the table's `CREATE TABLE` statement (its collation, checks,
    /// references and generated expression with it) when `whole` and that text is found,
    /// else its type, `NOT NULL` and default alone.
    static func addColumn(_ column: MergeCatalog.Column, of table: MergeCatalog.Table, to destination: String, whole: Bool = true) -> String {
        if whole, let declared = table.declaration(ofColumn: column.name) {
            return "ALTER TABLE \(destination) ADD COLUMN \(declared)"
        }
        var definition = "\(column.name.quotedSQLIdentifier) \(column.type)"
        if column.notNull { definition += " NOT NULL" }
        if let value = column.defaultSQL { definition += " DEFAULT \(value)" }
        return "ALTER TABLE \(destination) ADD COLUMN \(definition)"
    }

    /// Moves `index` past the SQL comment that starts there (`-- …` to the end of its line,
    /// `/* … */`); `false`, `index` unchanged, when none does.
    static func skipComment(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        guard index + 1 < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "-") {
            while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            return true
        }
        guard bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "*") else { return false }
        index += 2
        while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
        index = min(bytes.count, index + 2)
        return true
    }

    /// The column and constraint definitions of a `CREATE TABLE` statement, each as written
    /// (trimmed): the text between its outer parentheses, split at the commas outside
    /// quotes, comments and nested parentheses. Empty when there are no parentheses.
    static func tableDefinitions(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var index = 0
        var depth = 0
        var start: Int?
        var definitions: [String] = []
        func piece(_ from: Int, _ to: Int) -> String {
            String(decoding: bytes[from..<to], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        while index < bytes.count {
            if skipComment(bytes, &index) { continue }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                let closing = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                index += 1
                while index < bytes.count, bytes[index] != closing { index += 1 }
            case UInt8(ascii: "("):
                depth += 1
                if depth == 1 { start = index + 1 }
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0, let from = start {
                    definitions.append(piece(from, index))
                    return definitions
                }
            case UInt8(ascii: ",") where depth == 1:
                if let from = start { definitions.append(piece(from, index)) }
                start = index + 1
            default:
                break
            }
            index += 1
        }
        return []
    }

    /// Whether `schema` has an `sqlite_sequence` table (it has an `AUTOINCREMENT` table).
    static func hasSequence(_ schema: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(schema.quotedSQLIdentifier).sqlite_master WHERE name = 'sqlite_sequence')") ?? false
    }

    /// Raises `table`'s `AUTOINCREMENT` counter in `schema` to the one `source` has for it,
    /// when that is larger (or the counter is missing), so no id `source` handed out is
    /// handed out again. Does nothing when either schema has no `sqlite_sequence`.
    static func raiseSequence(of table: String, toThatOf source: String, in schema: String, db: Database) throws {
        guard try hasSequence(source, db: db), try hasSequence(schema, db: db),
              let seq = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM \(source.quotedSQLIdentifier).sqlite_sequence WHERE name = ?", arguments: [table])
        else { return }
        let sequence = "\(schema.quotedSQLIdentifier).sqlite_sequence"
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(sequence) WHERE name = ?)", arguments: [table]) ?? false {
            try db.execute(sql: "UPDATE \(sequence) SET seq = ? WHERE name = ? AND seq < ?", arguments: [seq, table, seq])
        } else {
            try db.execute(sql: "INSERT INTO \(sequence) (name, seq) VALUES (?, ?)", arguments: [table, seq])
        }
    }

    /// Whether the rows of `a` and `b` differ, `columns` (`*` for all) compared as sets.
    static func differ(_ a: String, _ b: String, columns: String = "*", db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT \(columns) FROM \(a) EXCEPT SELECT \(columns) FROM \(b))
                OR EXISTS (SELECT \(columns) FROM \(b) EXCEPT SELECT \(columns) FROM \(a))
            """) ?? true
    }

    /// `"schema"."name"`.
    static func qualified(_ schema: String, _ name: String) -> String {
        "\(schema.quotedSQLIdentifier).\(name.quotedSQLIdentifier)"
    }

    /// Exact equality of two SQL expressions, as ``MergeValue`` defines it: same storage
    /// class and same value under the `BINARY` collation (`1`, `1.0` and `'1'` differ;
    /// `'a'` and `'A'` differ whatever the column's collation).
    ///
    /// - Parameter storageClassesMayDiffer: `false` when the two sides cannot hold values
    ///   that `IS` finds equal in different storage classes (see
    ///   ``storageClassesMayDiffer(_:_:)``): the `typeof` comparison, which costs two
    ///   function calls a row, is then left out.
    static func same(_ lhs: String, _ rhs: String, storageClassesMayDiffer: Bool = true) -> String {
        guard storageClassesMayDiffer else { return "((\(lhs)) IS (\(rhs)) COLLATE BINARY)" }
        return "((\(lhs)) IS (\(rhs)) COLLATE BINARY AND typeof(\(lhs)) = typeof(\(rhs)))"
    }

    /// Whether `IS` can find a value of column `a` equal to a value of column `b` in another
    /// storage class (`1` and `1.0`). Not when both columns have the same affinity and it
    /// is `INTEGER`, `NUMERIC`, `REAL` or `TEXT`: SQLite then stores every number the same
    /// way (an integral real as an integer, or every number as a real, or as text), and the
    /// remaining classes (text, blob, `NULL`, a non-integral real) never compare equal to
    /// one another. A column without affinity (`BLOB`, no type, or a `STRICT` table's
    /// `ANY`) keeps what it is given, so it may.
    static func storageClassesMayDiffer(_ a: MergeCatalog.Column, _ b: MergeCatalog.Column) -> Bool {
        let affinity = Affinity(declaredType: a.type)
        return affinity == .blob || affinity != Affinity(declaredType: b.type)
            || MergeNames.folded(a.type) == "any" || MergeNames.folded(b.type) == "any"
    }

    /// A column's type affinity, by SQLite's rules for a declared type ("Datatypes In
    /// SQLite", 3.1), in their order.
    enum Affinity {
        case integer, text, blob, real, numeric

        init(declaredType: String) {
            let type = MergeNames.folded(declaredType)
            if type.contains("int") { self = .integer }
            else if type.contains("char") || type.contains("clob") || type.contains("text") { self = .text }
            else if type.contains("blob") || type.isEmpty { self = .blob }
            else if type.contains("real") || type.contains("floa") || type.contains("doub") { self = .real }
            else { self = .numeric }
        }
    }

    /// A column's declared default as an expression, `NULL` when it has none.
    static func defaultExpression(_ column: MergeCatalog.Column?) -> String {
        column?.defaultSQL.map { "(\($0))" } ?? "NULL"
    }

    /// A `CREATE …` statement as stored in `sqlite_master`, rewritten to create its object
    /// in `schema`: the object's name gets the schema qualifier (the statement's other names
    /// resolve in that schema by SQLite's rules). `main` keeps the text as it is.
    static func create(_ sql: String, in schema: String) -> String {
        guard MergeNames.folded(schema) != "main" else { return sql }
        let bytes = Array(sql.utf8)
        var index = 0
        func skipSpace() {
            while index < bytes.count {
                if bytes[index] == 0x20 || (bytes[index] >= 0x09 && bytes[index] <= 0x0D) {
                    index += 1
                } else if !MergeSQL.skipComment(bytes, &index) {
                    return
                }
            }
        }
        func word() -> String? {
            skipSpace()
            var end = index
            while end < bytes.count, (bytes[end] | 0x20) >= UInt8(ascii: "a"), (bytes[end] | 0x20) <= UInt8(ascii: "z") { end += 1 }
            guard end > index else { return nil }
            return MergeNames.folded(String(decoding: bytes[index..<end], as: UTF8.self))
        }
        func take(_ expected: Set<String>) -> Bool {
            let start = index
            if let next = word(), expected.contains(next) {
                index += next.utf8.count
                return true
            }
            index = start
            return false
        }
        guard take(["create"]) else { return sql }
        _ = take(["temp", "temporary"])
        _ = take(["unique"])
        _ = take(["virtual"])
        guard take(["table", "index", "trigger", "view"]) else { return sql }
        let beforeIf = index
        if !(take(["if"]) && take(["not"]) && take(["exists"])) { index = beforeIf }
        skipSpace()
        let prefix = String(decoding: bytes[..<index], as: UTF8.self)
        let rest = String(decoding: bytes[index...], as: UTF8.self)
        return prefix + schema.quotedSQLIdentifier + "." + rest
    }

    /// A word of an SQL statement: a keyword or a bare identifier (folded), a quoted
    /// identifier (unquoted, folded), or one punctuation character. String literals and
    /// comments give none.
    struct Token: Equatable {
        var text: String
        var quoted = false
    }

    /// The tokens of `sql` (see ``Token``), in order.
    static func tokens(_ sql: String) -> [Token] {
        let bytes = Array(sql.utf8)
        var tokens: [Token] = []
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte.isASCIIDigit
                || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
        }
        /// The text up to the closing byte (a doubled closing byte is one), past it.
        func quoted(closing: UInt8) -> [UInt8] {
            var text: [UInt8] = []
            index += 1
            while index < bytes.count {
                if bytes[index] == closing {
                    guard closing != UInt8(ascii: "]"), index + 1 < bytes.count, bytes[index + 1] == closing else { index += 1; return text }
                    index += 1
                }
                text.append(bytes[index])
                index += 1
            }
            return text
        }
        while index < bytes.count {
            if skipComment(bytes, &index) { continue }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                _ = quoted(closing: byte)
            case UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                let text = quoted(closing: byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte)
                tokens.append(Token(text: MergeNames.folded(String(decoding: text, as: UTF8.self)), quoted: true))
            case _ where isWordByte(byte):
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                tokens.append(Token(text: MergeNames.folded(String(decoding: bytes[start..<index], as: UTF8.self))))
            case _ where byte <= 0x20:
                index += 1
            default:
                tokens.append(Token(text: String(decoding: [byte], as: UTF8.self)))
                index += 1
            }
        }
        return tokens
    }

    /// The tables (folded) a `CREATE TRIGGER` statement's body writes to: the target of each
    /// `INSERT … INTO`, `REPLACE INTO`, `UPDATE [OR …]` and `DELETE FROM`.
    static func tablesWritten(byTrigger sql: String) -> Set<String> {
        let tokens = tokens(sql)
        guard let begin = tokens.firstIndex(where: { !$0.quoted && $0.text == "begin" }) else { return [] }
        var written: Set<String> = []
        var index = begin + 1
        /// The table named at `index` (schema-qualified or not).
        func table(at index: Int) -> String? {
            guard index < tokens.count else { return nil }
            if index + 2 < tokens.count, tokens[index + 1] == Token(text: ".") { return tokens[index + 2].text }
            return tokens[index].text
        }
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            guard !token.quoted else { continue }
            switch token.text {
            case "into":
                if let name = table(at: index) { written.insert(name) }
            case "update":
                // `UPDATE OR <conflict> t`.
                let at = index < tokens.count && !tokens[index].quoted && tokens[index].text == "or" ? index + 2 : index
                if let name = table(at: at) { written.insert(name) }
            case "delete":
                if index < tokens.count, !tokens[index].quoted, tokens[index].text == "from", let name = table(at: index + 1) { written.insert(name) }
            default:
                break
            }
        }
        return written
    }

    /// The `content=` table of an FTS4/FTS5 `CREATE VIRTUAL TABLE` statement: `nil` when
    /// the table is not FTS4/FTS5 or keeps its own content, `""` when contentless.
    static func fullTextContentTable(_ sql: String) -> String? {
        let folded = MergeNames.folded(sql)
        guard let using = folded.range(of: " using "), let open = folded[using.upperBound...].firstIndex(of: "(") else { return nil }
        let module = folded[using.upperBound..<open].trimmingCharacters(in: .whitespaces)
        guard module == "fts5" || module == "fts4" else { return nil }
        let body = sql[sql.index(after: open)...].dropLast(while: { $0 != ")" }).dropLast()
        for argument in splitArguments(String(body)) {
            let parts = argument.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard parts.count == 2, MergeNames.folded(parts[0]) == "content" else { continue }
            return unquote(parts[1])
        }
        return nil
    }

    /// Splits a module argument list at top-level commas, keeping quoted text whole.
    private static func splitArguments(_ text: String) -> [String] {
        var arguments: [String] = []
        var current = ""
        var quote: Character?
        var depth = 0
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
                continue
            }
            switch character {
            case "'", "\"", "`": quote = character
            case "[": quote = "]"
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                arguments.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        arguments.append(current)
        return arguments
    }

    private static func unquote(_ text: String) -> String {
        guard let first = text.first, text.count >= 2 else { return text }
        let closing: Character? = first == "[" ? "]" : (first == "'" || first == "\"" || first == "`" ? first : nil)
        guard let closing, text.last == closing else { return text }
        let inner = String(text.dropFirst().dropLast())
        return first == "[" ? inner : inner.replacingOccurrences(of: String(first) + String(first), with: String(first))
    }
}

private extension Substring {
    func dropLast(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
