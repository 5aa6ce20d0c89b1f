/// The one error type SeedDB throws.
///
/// Every error carries a stable ``Code`` (which the `seeddb` CLI maps to a sysexits
/// exit status), a one-line message a person can act on, and, where there is one, the
/// underlying cause (an `Errno`, a GRDB `DatabaseError`, …).
public struct SeedDBError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure, stable across releases.
    public enum Code: String, Sendable, CaseIterable {
        /// A seed description, flag or version is malformed.
        case invalidArgument = "invalid-argument"
        /// The seed is not a usable SQLite database: bad header, corrupt pages,
        /// checksum mismatch, or a `-wal`/`-journal` sidecar holding unapplied changes.
        case invalidSeed = "invalid-seed"
        /// The seed file is missing or cannot be read.
        case seedUnavailable = "seed-unavailable"
        /// The working copy, its directory or the settings file cannot be created or written
        /// (permissions, read-only file system, a non-regular file in the way).
        case cannotCreate = "cannot-create"
        /// Any other input/output failure, such as a full disk.
        case ioFailure = "io-failure"
        /// Another process holds the database or the deploy lock, and the wait ran out.
        case inUse = "in-use"
        /// A manifest is malformed: bad JSON, unknown or missing keys, invalid values.
        case invalidManifest = "invalid-manifest"
        /// The working copy fails `PRAGMA integrity_check`, or the file SeedDB keeps beside
        /// it with its last merge's conflicts (`<name>.conflicts.json`) is damaged.
        case corruptWorkingCopy = "corrupt-working-copy"
        /// A seed clashes with what is recorded or with another seed: its name is recorded
        /// for the other location or looks like a recorded name in another Unicode
        /// normalization, or two seeds' files would collide.
        case conflictingSeed = "conflicting-seed"
        /// A manifest is refused by the trusted keys: unsigned, a bad signature, a key not
        /// trusted, a seed whose digest differs from the signed one, a lower serial than
        /// the one deployed, an expired manifest, or unsafe trust anchors.
        case untrustedSeed = "untrusted-seed"
        /// The run was interrupted (SIGINT, SIGTERM) and undid what it had done.
        case interrupted = "interrupted"
        /// A merge under the policy `fail` met conflicts and was refused. The seed is
        /// fine: the conflicts are recorded (``MergeConflict``; a deploy leaves them in
        /// the working copy's conflicts file), and the working copy was not changed.
        case mergeRefused = "merge-refused"
        /// A seed's configuration names a table neither the seed nor the working copy has
        /// (a preserved table, a per-table merge policy): a typo, caught at every deploy
        /// that copies, the first included.
        case invalidConfiguration = "invalid-configuration"
    }

    /// The kind of failure.
    public var code: Code
    /// One line that says what failed, which path, and why.
    public var message: String
    /// The lower-level error that caused this one, if any.
    public var underlying: (any Error & Sendable)?
    /// Another way out that the caller's interface can offer (the CLI names the flag).
    public var remedy: Remedy?

    /// A way out of an error that depends on how SeedDB is called: the library's messages
    /// name no command-line flag, and the CLI adds one for these.
    public enum Remedy: String, Sendable, CaseIterable {
        /// Deploy with the owner of the directory as the files' owner (`--owner`).
        case owner
        /// Name the app, to create a manifest that does not exist (`--app`).
        case app
        /// Deploy a signed manifest whose serial is lower than the one deployed
        /// (`--allow-downgrade`).
        case downgrade
        /// Deploy a manifest that is not signed by the key the seed's record pins, and
        /// forget the pin (`--forget-signature`).
        case forgetSignature
        /// Read the conflicts a refused merge recorded (`seeddb conflicts`).
        case conflicts
    }

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, remedy: Remedy? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.remedy = remedy
    }

    /// The one-line message.
    public var description: String { message }
}

extension SeedDBError {
    /// How the line of a run that changed nothing ends.
    package static let nothingWasChanged = "; nothing was changed"

    /// The message without its closing ``nothingWasChanged`` (the whole message when it
    /// does not end so), and whether it ended so: a line that goes on to say what a run
    /// did after all, or what it leaves, says it before that close or in its place.
    package var messageBeforeNothingWasChanged: (text: Substring, endedSo: Bool) {
        message.hasSuffix(Self.nothingWasChanged)
            ? (message.dropLast(Self.nothingWasChanged.count), true) : (message[...], false)
    }
}
