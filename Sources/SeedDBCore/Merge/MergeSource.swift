/// Where a cell of a merged row comes from.
public enum MergeSource: Sendable, Hashable {
    /// The working copy's value.
    case user
    /// The new seed's value.
    case seed
}
