/// What a deploy does to one seed, and why.
public enum DeployAction: String, Sendable, CaseIterable {
    /// Nothing was recorded: the seed is copied, whatever lies on disk.
    case installed
    /// The recorded version differs from the current one (an upgrade or a downgrade).
    case replaced
    /// The recorded version matches but the working copy is gone (a cleared cache).
    case restored
    /// A forced reseed, whatever the versions say.
    case reseeded
    /// Up to date: nothing to do.
    case unchanged
    /// The previous generation was restored by `rollback` (never a result of the decision).
    case rolledBack = "rolled-back"
    /// Left alone: a rollback holds the working copy while the app still ships the
    /// version it was rolled back from (never a result of the decision).
    case held

    /// Whether this action copies the seed.
    public var copies: Bool { self != .unchanged && self != .held }
}

extension DeployAction: CustomStringConvertible {
    /// The action in words, as `seeddb` prints it for people: `rolled back` (the raw value,
    /// `rolled-back`, is the JSON's).
    public var description: String {
        self == .rolledBack ? "rolled back" : rawValue
    }
}

/// The state of one seed, as `status` reports it.
public enum SeedState: String, Sendable, CaseIterable {
    /// Nothing is recorded.
    case notInstalled = "not-installed"
    /// The recorded version differs from the current one.
    case outdated
    /// The recorded version matches, but the working copy is gone.
    case missing
    /// The recorded version matches and the working copy exists.
    case upToDate = "up-to-date"
    /// A rollback holds the working copy at the version it restored while the app still
    /// ships the version it was rolled back from (never a result of the decision).
    case held
}

/// The deploy decision: a pure function of the recorded state, the seed's current
/// version and whether the working copy exists. It does no I/O, which is what makes the
/// startup check cheap: the caller reads the settings file and `stat`s the working copy,
/// nothing more.
public enum DeployDecision {
    /// The state of a seed.
    ///
    /// - Parameters:
    ///   - recorded: The version the settings store remembers, if any.
    ///   - current: The version the app ships now.
    ///   - workingCopyExists: Whether a regular file is at the working-copy path.
    public static func state(recorded: SeedVersion?, current: SeedVersion, workingCopyExists: Bool) -> SeedState {
        guard let recorded else { return .notInstalled }
        if recorded != current { return .outdated }
        return workingCopyExists ? .upToDate : .missing
    }

    /// What a deploy does, given the same facts as ``state(recorded:current:workingCopyExists:)``.
    ///
    /// - Parameter force: A reseed by hand: always ``DeployAction/reseeded``.
    public static func action(
        recorded: SeedVersion?,
        current: SeedVersion,
        workingCopyExists: Bool,
        force: Bool = false
    ) -> DeployAction {
        if force { return .reseeded }
        switch state(recorded: recorded, current: current, workingCopyExists: workingCopyExists) {
        case .notInstalled: return .installed
        case .outdated: return .replaced
        case .missing: return .restored
        case .upToDate, .held: return .unchanged
        }
    }
}
