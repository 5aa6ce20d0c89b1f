/// What a read-only deploy's ``DeployStep/linkSeed`` step does, every choice made by
/// ``DeployPlanner``: the link it puts at the working-copy path, what becomes of the copy
/// that was there, and what it records. The executor interprets these values; it does not
/// look at the settings entry or the disk to choose.
package struct SeedLink: Sendable, Hashable {
    /// The copy a switch from copied to read-only keeps as the previous generation.
    package enum KeptCopy: Sendable, Hashable {
        /// Generation file number `n` (the one SeedDB's link named, or the one the record
        /// names when a killed run had already switched the link).
        case generation(Int)
        /// The regular file at the working-copy path (an install made before
        /// generations, or a database put there).
        case file
        /// That regular file under the second name a killed run's switch held it by (the
        /// link took its place, ``DeployObservation/Interrupted/heldReplacedFile``): the
        /// finish makes it the previous generation, as the run would have.
        case held(String)
    }

    /// The seed file the link names: an absolute path.
    package var target: String
    /// What is at the working-copy path now: put back by the undo.
    package var from: PlannedStep.OldContent
    /// Whether the working copy already is this link (an upgrade by the package
    /// manager's rename, or a killed run's link): only the record changes.
    package var alreadyLinked: Bool
    /// The copy that becomes the previous generation; `nil` when there is none.
    package var keeps: KeptCopy?
    /// What happens to the previous generation on disk that the kept copy replaces;
    /// `nil` when none goes.
    package var drop: PlannedStep.Drop?
    /// Whether `<name>.base` goes with the kept copy, as `<name>.previous.base` (the one
    /// there set aside first).
    package var movesBase: Bool
    /// Whether `<name>.previous.base` is set aside (replaced by the moved base).
    package var setsAsidePreviousBase: Bool
    /// Whether `<name>.previous.base.xor.zst` is set aside (it went with the previous
    /// generation the kept copy replaces).
    package var setsAsideCompressedPreviousBase: Bool = false
    /// The SQLite sidecars named after the previous generation set aside before the kept
    /// copy takes that name (``PlannedStep/KeepPrevious/setsAsidePreviousSidecars``).
    package var setsAsidePreviousSidecars: [String] = []
    /// What the record says of the previous generation.
    package var previous: PlannedStep.PreviousRecord
    /// The merge base the record names after the run (`nil` once it moved with the copy).
    package var base: SHA256Digest?
    /// Whether this finishes a killed run whose link is in place: the seed is recorded
    /// unread (the package may have removed or replaced it since), so what runs next can
    /// replace or roll back the link, instead of every run failing on it; the pass after
    /// the finish (or the next run) looks at it.
    package var finishesKilledRun = false
    /// Whether the seed file changed at the recorded version behind the link already in
    /// place (``ReadOnlySeed/changedSinceLinked``): the link stays, the seed is looked at
    /// as a new link's seed is (its header, and its digest against the expected one), and
    /// its new identity (and digest, when known) is recorded; the record keeps its date.
    package var seedChanged = false
    /// The signature the record pins: the run's own, or a killed run's it finishes.
    package var signature: PlannedStep.RecordedSignature = .fromManifest

    /// Creates the step's decisions.
    package init(
        target: String, from: PlannedStep.OldContent = .nothing, alreadyLinked: Bool = false, keeps: KeptCopy? = nil,
        drop: PlannedStep.Drop? = nil, movesBase: Bool = false, setsAsidePreviousBase: Bool = false,
        previous: PlannedStep.PreviousRecord = .unchanged, base: SHA256Digest? = nil
    ) {
        self.target = target
        self.from = from
        self.alreadyLinked = alreadyLinked
        self.keeps = keeps
        self.drop = drop
        self.movesBase = movesBase
        self.setsAsidePreviousBase = setsAsidePreviousBase
        self.previous = previous
        self.base = base
    }

    /// Whether the copy kept had no record that matches it: recorded as
    /// ``DeployRecord/adoptedVersion``.
    package var adopted: Bool { previous == .adopted }
}
