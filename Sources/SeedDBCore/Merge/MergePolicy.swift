/// How a three-way merge settles the rows of one table when a new seed replaces the
/// working copy.
///
/// The raw values are the manifest's spelling (`"merge": "user-wins"`).
public enum MergePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// No merge: the seed's rows replace the user's, as a plain replace does.
    case off
    /// Merge, and settle every conflict with the seed's side.
    case seedWins = "seed-wins"
    /// Merge, and settle every conflict with the user's side.
    case userWins = "user-wins"
    /// Merge, and refuse the whole deploy at the first conflict (nothing changes).
    case fail

    /// Which side a conflict keeps under this policy: `none` for `fail` and `off`.
    public var keptSide: MergeConflict.Kept {
        switch self {
        case .userWins: .user
        case .seedWins: .seed
        case .off, .fail: .none
        }
    }
}
