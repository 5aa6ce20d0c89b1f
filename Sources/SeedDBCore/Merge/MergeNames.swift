/// SQLite's rule for comparing identifiers: ASCII letters without regard to case.
package enum MergeNames {
    /// `name` with ASCII upper-case letters lowered, the form two SQLite names are
    /// compared in.
    package static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
