/// The three sides of a three-way merge.
public enum MergeSide: Int, CaseIterable, Sendable {
    /// The previous seed as it was deployed: what the other two changed from.
    case base
    /// The working copy: the user's changes.
    case user
    /// The new seed.
    case seed

    /// The side's name, as the merge's SQL and its reports use it.
    public var name: String {
        switch self {
        case .base: "base"
        case .user: "user"
        case .seed: "seed"
        }
    }
}
