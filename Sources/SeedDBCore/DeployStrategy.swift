/// How a deploy puts new content in place of an existing working copy.
public enum DeployStrategy: String, Sendable, CaseIterable {
    /// `swap` when nobody has the database open, `live` when someone does (the default).
    case auto
    /// Rename a fully written and flushed copy over the working copy. Refused while the
    /// database is in use, so no open connection is left on a replaced file.
    case swap
    /// Replace the content through SQLite's online backup API, in one transaction:
    /// connections other processes hold stay valid and see the new content at their next
    /// transaction.
    case live
}
