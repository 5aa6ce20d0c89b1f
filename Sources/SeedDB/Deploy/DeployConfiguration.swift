import GRDB
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

    /// Whether the merge base (`<name>.base`) of a seed that merges may be a second name
    /// (a hard link) of the seed file, which costs no bytes, where the file system has no
    /// reflinks: when the seed is stored plain, on the working copy's file system, and
    /// only root can change it (root's, not writable by its group or others). That is a
    /// package's seed in system mode: the package manager replaces it by a rename, which
    /// leaves the old content to the base. A link the kernel refuses
    /// (`fs.protected_hardlinks`) falls back to a copy; the base's digest is checked
    /// before every merge as always. The CLI sets it with `--system`. Default: `false`
    /// (a reflink, else a copy).
    public var linksBaseToSeed = false

    /// How a reseed (``Deployer/reseed(_:)``, or a release with `force`) treats the user's
    /// edits of the seed's rows, in place of each seed's own ``Seed/merge``:
    /// `MergePolicies(default: .off)` puts the seed's own rows back (`seeddb reseed --merge
    /// off`), and the run names the tables whose changes it replaced. Each seed's own
    /// policy still decides whether a merge base is kept for its next upgrade. Deploys
    /// and rollbacks ignore it; a release whose seeds are all read-only (links, no copy to
    /// apply it to) refuses it (`invalidArgument`). Default: `nil`, each seed's own policy.
    public var reseedMerge: MergePolicies?

    /// Called after each step of a plan completes (``DeployStep``); the crash and fault
    /// suites stop the process there. Default: `nil`.
    public var stepObserver: (@Sendable (DeployStep) -> Void)?

    /// The app's migrations, run on the staged new seed before the user's tables are
    /// carried or merged into it, so the app's own columns and tables exist on both sides.
    /// ``SeedDatabase/open(_:deployer:kind:configuration:migrator:whenBusy:)`` sets it and runs the
    /// same migrations on the working copy afterwards. Default: `nil`.
    public var migrator: DatabaseMigrator?

    /// Called as each step of a plan starts, for a progress display. Default: `nil`.
    public var stepStarted: (@Sendable (DeployStep) -> Void)?

    /// Called between steps; returning `true` stops the run, which undoes what it did and
    /// fails with ``SeedDBError/Code/interrupted`` (the CLI sets it on SIGINT and SIGTERM).
    /// Once the new content is installed the run finishes instead. Default: `nil`.
    public var isInterrupted: (@Sendable () -> Bool)?

    /// Called as the seed is copied, with the bytes copied so far and the total. Default: `nil`.
    public var progress: (@Sendable (_ copied: Int64, _ total: Int64) -> Void)?

    /// Public keys whose signatures are trusted. When any key is trusted for an app (here
    /// or in ``trustedKeysDirectory``), a deploy refuses (``SeedDBError/Code/untrustedSeed``)
    /// a seed that is not from a manifest one of them signed, before anything is copied.
    /// Several keys may be trusted at once, to rotate keys: a seed whose record pins one
    /// key (see ``SeedSignature``) takes a manifest signed by another trusted key, and the
    /// record then pins that one. Default: none.
    public var trustedKeys: [MinisignPublicKey] = []

    /// A directory of trust anchors: the `*.pub` files in its `<app>` subdirectory are
    /// trusted for that app besides ``trustedKeys``. They must be root's, as every path
    /// root relies on (a directory or key a non-root user can write is refused). The CLI
    /// sets `/etc/seeddb/keys` (under `--root`) in `--system` mode. Default: `nil`.
    public var trustedKeysDirectory: String?

    /// Deploy a signed manifest whose serial is lower than the one recorded (a deliberate
    /// downgrade). Default: `false`, such a manifest is refused as a replay.
    public var allowDowngrade = false

    /// Deploy a seed whose record pins a signing key (it was deployed from a signed
    /// manifest) from a manifest that key did not sign, unsigned included, and forget the
    /// pin: leaving signing on purpose. The keys trusted here still apply; the run records
    /// the signature it checked, or none. Default: `false`, such a manifest is refused
    /// (``SeedDBError/Code/untrustedSeed``).
    public var forgetSignature = false

    /// The default configuration.
    public init() {}
}
