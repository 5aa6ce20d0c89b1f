import SeedDBCore

/// How a ``Deployer`` behaves.
public struct DeployConfiguration: Sendable {
    /// How long a deploy waits for another deploy of the same working copy to finish and
    /// for other processes to release the old working copy before it fails with
    /// ``SeedDBError/Code/inUse``. Default: 5 seconds.
    public var wait: Duration = .seconds(5)

    /// How new content replaces an existing working copy. Default: ``DeployStrategy/auto``.
    public var strategy: DeployStrategy = .auto

    /// Whether each replace keeps the old working copy as the previous generation, for
    /// ``Deployer/rollback(_:)``. Default: `true`.
    public var keepPrevious = true

    /// How thoroughly a seed is checked before it is swapped in. Default:
    /// ``IntegrityLevel/quick``. A seed whose content already passed at this level or a
    /// stricter one (remembered by SHA-256) is not checked again.
    public var integrity: IntegrityLevel = .quick

    /// The modes and owner of what a deploy creates. Default: ``FilePolicy/user``
    /// (directories 0700, settings 0600).
    public var files: FilePolicy = .user

    /// Called after each step of a deploy that changes the disk; a test hook for crash
    /// and fault injection. Default: `nil`.
    public var stepObserver: (@Sendable (DeployStep) -> Void)?

    /// Called as the seed is copied, with the bytes copied so far and the total. Default: `nil`.
    public var progress: (@Sendable (_ copied: Int64, _ total: Int64) -> Void)?

    /// The default configuration.
    public init() {}
}

/// The steps of a deploy that change the disk, in order.
public enum DeployStep: String, Sendable, CaseIterable {
    /// The temporary file exists, empty.
    case temporaryCreated = "temp-created"
    /// The seed's bytes are in the temporary file.
    case copied = "copied"
    /// The temporary file is flushed to stable storage.
    case synced = "synced"
    /// The old recorded version is removed from the settings store.
    case withdrawn = "withdrawn"
    /// The old copy's `-wal`, `-shm` and `-journal` are removed.
    case sidecarsRemoved = "sidecars-removed"
    /// The temporary file is renamed over the working copy (or, live, its content copied in).
    case renamed = "renamed"
    /// The directory holding the working copy is flushed.
    case directorySynced = "directory-synced"
    /// The new version is recorded in the settings store.
    case recorded = "recorded"
}
