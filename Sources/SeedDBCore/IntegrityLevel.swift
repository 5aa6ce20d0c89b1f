/// How thoroughly a staged copy is checked before it is installed.
public enum IntegrityLevel: String, Sendable, CaseIterable, Comparable {
    /// The header and the size it declares only.
    case none
    /// `PRAGMA quick_check` (the default): every page's structure, not index contents.
    case quick
    /// `PRAGMA integrity_check`: everything, indexes included.
    case full

    public static func < (lhs: IntegrityLevel, rhs: IntegrityLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
