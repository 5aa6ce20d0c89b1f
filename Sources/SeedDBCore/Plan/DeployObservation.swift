/// What a deploy observed before planning: the recorded state, the seed and the working
/// copy. Gathered under the deploy lock (and, for the startup check, without it).
public struct DeployObservation: Sendable, Hashable {
    /// Whether others are using the working copy.
    public struct Usage: Sendable, Hashable {
        /// An open `SeedDatabase` handle holds the readers byte of the lock file (seen
        /// without touching the database).
        public var handleOpen: Bool
        /// A swap attempt found other connections keeping the database busy (a
        /// transaction open, or connections in WAL mode): seen under the deploy lock,
        /// by trying.
        public var connectionsBusy: Bool

        /// Creates an observation of use.
        public init(handleOpen: Bool = false, connectionsBusy: Bool = false) {
            self.handleOpen = handleOpen
            self.connectionsBusy = connectionsBusy
        }

        /// Nobody was seen using it.
        public static let idle = Usage()

        /// Whether anything was seen using it.
        public var inUse: Bool { handleOpen || connectionsBusy }
    }

    /// The version the settings record for this working copy; `nil` when none is.
    public var recorded: SeedVersion?
    /// Whether the settings record a previous generation.
    public var previousRecorded: Bool
    /// Whether the working copy exists (a regular file, or SeedDB's own generation link).
    public var workingCopyExists: Bool
    /// Whether a previous generation file exists beside the working copy.
    public var previousExists: Bool
    /// The version being deployed.
    public var current: SeedVersion
    /// Whether the content about to be staged already passed a check at least this strict
    /// (remembered by digest); `nil` when it did not, or its digest is not known yet.
    public var alreadyChecked: IntegrityLevel?
    /// Who is using the working copy.
    public var usage: Usage

    /// Creates an observation.
    public init(
        recorded: SeedVersion?, previousRecorded: Bool = false, workingCopyExists: Bool,
        previousExists: Bool = false, current: SeedVersion, alreadyChecked: IntegrityLevel? = nil,
        usage: Usage = .idle
    ) {
        self.recorded = recorded
        self.previousRecorded = previousRecorded
        self.workingCopyExists = workingCopyExists
        self.previousExists = previousExists
        self.current = current
        self.alreadyChecked = alreadyChecked
        self.usage = usage
    }
}
