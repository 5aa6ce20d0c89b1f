/// Where a working copy lives.
public enum SeedLocation: String, Sendable, CaseIterable, Hashable {
    /// `$XDG_DATA_HOME`: the user builds on this data; it must not be lost.
    case data
    /// `$XDG_CACHE_HOME`: regenerable; the system may clear it at any time.
    case cache
}
