/// One step of a ``DeployPlan``, carrying what ``DeployPlanner`` decided for it: the
/// executor (in `SeedDB`) interprets these values; it does not look at the settings entry,
/// the configuration or the disk to choose. A precondition that no longer holds when the
/// step runs (the disk changed since it was observed) stops the run, which is undone.
///
/// ``name`` is the step's name: what the crash suite kills at, what the progress display
/// shows, what a log line says.
package enum PlannedStep: Sendable, Hashable {
    /// Copy the content into a new temporary file beside the working copy and flush it.
    case stage(Stage)
    /// Run the app's migrations on the staged copy.
    case migrate
    /// Run an integrity check on the staged copy.
    case check(Check)
    /// Hash each of the staged copy's tables, for the record; not again when `remembered`
    /// (the check the settings remember) has them for the staged content's digest.
    case fingerprint(remembered: ValidationMemo?)
    /// Replace the record by a marker of what the run is doing.
    case withdraw(Withdraw)
    /// Under the writer's lock on the old copy: carry the user's tables and edits.
    case carry(Carry)
    /// Keep the old content as the previous generation, set aside or keep the one there.
    case keepPrevious(KeepPrevious)
    /// Put the staged copy in place.
    case install(Install)
    /// Put back the working copy's link to generation file number `generation`.
    case relink(generation: Int)
    /// Put back `record`, the one a killed run's marker says it replaced, in the marker's
    /// place: the run never switched the link. `nil`: the run withdrew no record (an
    /// install, or an adoption of a database found with none); only the marker goes.
    case reinstate(DeployRecord?)
    /// A read-only seed: a link straight to the seed file, the copy it replaces kept.
    case linkSeed(SeedLink)
    /// Record the new version.
    case record(Record)
    /// Give the content the run keeps the owner and mode asked for; `drift` says what
    /// differs (`mode 0664 -> 0640`), for the warning.
    case repairOwnership(drift: String)
    /// Remove what the run set aside and the files the observation proved disposable.
    case cleanUp(leftovers: [String])

    /// The step's name.
    package var name: DeployStep {
        switch self {
        case .stage: return .stage
        case .migrate: return .migrate
        case .check: return .check
        case .fingerprint: return .fingerprint
        case .withdraw: return .withdraw
        case .carry: return .carry
        case .keepPrevious: return .keepPrevious
        case .install: return .install
        case .relink: return .relink
        case .reinstate: return .reinstate
        case .linkSeed: return .linkSeed
        case .record: return .record
        case .repairOwnership: return .repairOwnership
        case .cleanUp: return .cleanUp
        }
    }

    /// What `stage` copies and what it checks on the way.
    package struct Stage: Sendable, Hashable {
        /// The content staged: the seed, or the previous generation a rollback restores
        /// (fenced when it stopped being the working copy: the stage lifts the fence).
        package var restoresPrevious: Bool
        /// The number of the generation file a swap installs (the staged merge base is named
        /// after it); `nil` for a live replace.
        package var generation: Int?
        /// How the pristine copy of the new seed is kept, to become the next merge base.
        package var base: BaseCopy
        /// Whether the copy is read back and hashed (`--integrity full`), even where the
        /// kernel copied it.
        package var rereads: Bool
        /// The digest of the seed content observed to have passed a check: its header is
        /// not read again. A copy whose digest turns out different (the seed changed after
        /// it was observed) is checked here at ``integrity``.
        package var vouched: SHA256Digest?
        /// The check a copy gets when its digest is not ``vouched``'s (``IntegrityLevel/none``:
        /// none); a plan with a `check` step checks it again there.
        package var integrity: IntegrityLevel
        /// Whether the seed must have the tables the configuration names (preserved and
        /// merged): a first install, with nothing to carry them from.
        package var checksConfiguredTables: Bool
        /// The tables of the content, known before it is copied: the restored generation's
        /// (a rollback), or those a check already listed for the digest it remembers.
        package var knownTables: KnownTables
        /// A rollback's: `<name>.previous.base.xor.zst` is restored to `<name>.previous.base`
        /// against `<name>.previous` (still in place, unchanged) and must hold this digest,
        /// the one the previous generation's record names; the delta is then set aside.
        package var restoresPreviousBase: SHA256Digest?
        /// The killed live replace's pristine copy of its seed, staged in place of the seed
        /// (``DeployObservation/Interrupted/stagedSeed``): that replace done again.
        package var killedRunsSeed: String?

        /// Creates a stage.
        package init(
            restoresPrevious: Bool = false, generation: Int? = nil, base: BaseCopy = .clone, rereads: Bool = false,
            vouched: SHA256Digest? = nil, integrity: IntegrityLevel = .none, checksConfiguredTables: Bool = false, knownTables: KnownTables = .none,
            restoresPreviousBase: SHA256Digest? = nil, killedRunsSeed: String? = nil
        ) {
            self.restoresPrevious = restoresPrevious
            self.generation = generation
            self.base = base
            self.rereads = rereads
            self.vouched = vouched
            self.integrity = integrity
            self.checksConfiguredTables = checksConfiguredTables
            self.knownTables = knownTables
            self.restoresPreviousBase = restoresPreviousBase
            self.killedRunsSeed = killedRunsSeed
        }
    }

    /// How the pristine copy of the new seed is kept as the next merge base.
    package enum BaseCopy: Sendable, Hashable {
        /// None (a rollback puts the restored generation's base back instead).
        case none
        /// Only where the file system shares the seed's extents (a reflink, free);
        /// nothing is kept elsewhere: the seed merges nothing, a copy would cost a second
        /// copy of every deploy.
        case clone
        /// A reflink where the file system has them, a copy otherwise: the seed merges.
        case copy
        /// A reflink where the file system has them, otherwise a second name (hard link)
        /// of the seed file itself, which costs no bytes, otherwise a copy: the seed
        /// merges, is plain, on the working copy's file system, and only root can change
        /// it (the package manager replaces it by a rename, which leaves the old content
        /// to the base). A link the kernel refuses, or a seed replaced since it was
        /// copied, makes a copy.
        case linkToSeed
    }

    /// The tables of the staged content as known before the copy.
    package enum KnownTables: Sendable, Hashable {
        /// Not known: the `check` step lists them.
        case none
        /// These, with the digests of the tables (a rollback: the restored generation's, as
        /// recorded).
        case these([String]?, digests: [String: SHA256Digest]? = nil)
        /// Those of this check, when the staged content's digest is the one it passed.
        case ifPassed(ValidationMemo)
    }

    /// What `check` runs.
    package struct Check: Sendable, Hashable {
        /// How thoroughly.
        package var level: IntegrityLevel
        /// A check the settings remember: skipped when the staged content's digest is the
        /// one it passed, at least as strictly, with its tables listed.
        package var passed: ValidationMemo?
        /// Whether the tables the check lists are the seed's (not for a rollback, whose
        /// restored generation's tables are recorded).
        package var listsSeedTables: Bool

        /// Creates a check.
        package init(level: IntegrityLevel, passed: ValidationMemo? = nil, listsSeedTables: Bool = true) {
            self.level = level
            self.passed = passed
            self.listsSeedTables = listsSeedTables
        }
    }

    /// The marker `withdraw` writes in place of the record.
    package struct Withdraw: Sendable, Hashable {
        /// The record of what the run replaces (the previous generation's, once recorded).
        package var replacing: DeployRecord?
        /// The merge base the run puts in place.
        package var base: WithdrawnBase
        /// A live replace killed after its snapshot became the previous generation: that
        /// snapshot's digest, written down again.
        package var snapshot: SHA256Digest?
        /// The generation file the link names now (the old content).
        package var replacingGeneration: Int?
        /// Whether the old content is a database SeedDB adopts.
        package var adopting: Bool
        /// Whether the run is a rollback.
        package var isRollback: Bool
        /// Whether the run is a reseed (a finish of it then says so).
        package var isReseed = false
        /// A read-only deploy's: the seed file it links the working copy to.
        package var seedLink: String?
        /// Whether the old content is the regular file at the working-copy path, whose
        /// identity the marker then names: while that very file is there, the run never
        /// switched (``DeployObservation/Interrupted/replacedFileInPlace``).
        package var replacesFile = false

        /// Creates a marker.
        package init(
            replacing: DeployRecord?, base: WithdrawnBase, snapshot: SHA256Digest? = nil, replacingGeneration: Int? = nil, adopting: Bool = false,
            isRollback: Bool = false, seedLink: String? = nil
        ) {
            self.replacing = replacing
            self.base = base
            self.snapshot = snapshot
            self.replacingGeneration = replacingGeneration
            self.adopting = adopting
            self.isRollback = isRollback
            self.seedLink = seedLink
        }
    }

    /// The merge base a withdrawn record says the run puts in place.
    package enum WithdrawnBase: Sendable, Hashable {
        /// The pristine copy the stage kept (none when it kept none).
        case staged
        /// The restored generation's base (a rollback), `nil` when it has none.
        case restored(SHA256Digest?)
    }

    /// What `carry` carries.
    package struct Carry: Sendable, Hashable {
        /// The copy carried from.
        package var from: CarrySource = .oldContent
        /// Which of the old copy's tables are the app's own.
        package var appTables: AppTables
        /// Whether the user's edits of the seed's rows are merged.
        package var merge: CarryMerge
        /// The base the merge runs against.
        package var base: MergeBase
        /// How the tables whose changes the carry replaces (their policy is `off`) are
        /// found, to be named.
        package var discards: Discards
        /// A rollback's: the seed tables of the generation it restores (recorded with it).
        /// Its other tables are the ones the app had made by then: the merge carries the
        /// user's version of each whole, as a replace carries the app's tables. `nil` for
        /// a replace, whose new seed's tables are all the seed's, or when not recorded.
        package var restoredSeedTables: [String]?
        /// For a merge whose ``base`` is missing: the digests the old copy's seed tables had
        /// when it was deployed (its record's ``DeployRecord/tableDigests``). A table whose
        /// digest is still the recorded one was not changed by the user: it takes the new
        /// content's rows, where a merge without a base would keep each of its cells that
        /// differ from the new seed (the old seed's own values) as the user's. `nil` when the
        /// merge has its base, or no digests were recorded.
        package var unchangedIfDigests: [String: SHA256Digest]?
        /// For a carry whose old content is not kept as the previous generation (a
        /// rollback's, or with `keepPrevious` off): the stamp under which the old content is
        /// kept as an adopted copy (`<name>.adopted-<stamp>`: a swap's old generation file
        /// instead of retired, a live replace's snapshot before its commit) when it
        /// replaces some of the user's changes (a table the merge cannot merge: no primary
        /// key, a virtual table; with merging off, each seed table the user changed, or
        /// all of them when which ones cannot be told), which would otherwise be in no
        /// file. `nil` otherwise.
        package var keepsOldCopyIfDiscarded: String? = nil

        /// Creates a carry.
        package init(
            from: CarrySource = .oldContent, appTables: AppTables, merge: CarryMerge, base: MergeBase, discards: Discards = .none,
            restoredSeedTables: [String]? = nil, unchangedIfDigests: [String: SHA256Digest]? = nil
        ) {
            self.from = from
            self.appTables = appTables
            self.merge = merge
            self.base = base
            self.discards = discards
            self.restoredSeedTables = restoredSeedTables
            self.unchangedIfDigests = unchangedIfDigests
        }
    }

    /// The copy a carry reads what the user wrote from.
    package enum CarrySource: Sendable, Hashable {
        /// The content at the working-copy path, which the install replaces.
        case oldContent
        /// `<name>.previous`: the copy a switch to a read-only seed kept, carried into the
        /// copy that takes the link's place (nothing is carried from the link itself, which
        /// the app could not write). It stays the previous generation.
        case previousGeneration
    }

    /// How a carry finds the seed tables the user changed whose changes it replaces (their
    /// merge policy is `off`), to name them.
    package enum Discards: Sendable, Hashable {
        /// Nothing is replaced: every table merges, or the old copy is an adopted
        /// database (kept whole).
        case none
        /// Nothing the user wrote is replaced: the old copy is the seed's own, unwritten
        /// since its deploy.
        case unwritten
        /// Each such table of the old copy is compared with its merge base's (the carry's
        /// ``Carry/base``, observed to have the recorded digest).
        case againstBase
        /// Each such table of the old copy is hashed and compared with these digests, the
        /// old copy's record's (``DeployRecord/tableDigests``).
        case againstDigests([String: SHA256Digest])
        /// Nothing to compare with (no base, no digests recorded): which tables changed is
        /// not known, and a warning says so.
        case unknown
    }

    /// Whether a carry merges the user's edits of the seed's rows.
    package enum CarryMerge: Sendable, Hashable {
        /// The seed's policy merges nothing.
        case off
        /// Skipped: the working copy is the seed's own content, unwritten since its deploy.
        case skipped
        /// Merged.
        case merge
    }

    /// Which tables of the old copy the app made (carried whole).
    package enum AppTables: Sendable, Hashable {
        /// Those the old copy's seed lacked (its tables, recorded with its deploy).
        case notInTheOldSeed([String])
        /// The old copy's seed is unknown (adopted, an older record): those the new seed lacks.
        case notInTheNewSeed
    }

    /// The base of a merge.
    package enum MergeBase: Sendable, Hashable {
        /// `<name>.base`, whose digest was observed to be the recorded one.
        case recorded
        /// `<name>.previous.base`, whose digest was observed to be the one the previous
        /// generation's record names (a carry from ``CarrySource/previousGeneration``).
        case previous
        /// Restored from `<name>.previous.base.xor.zst` against `<name>.previous` into a
        /// temporary file, whose digest must be this one, the previous generation's record's
        /// (a carry from ``CarrySource/previousGeneration`` on a file system where the base
        /// is kept compressed). The delta stays as it is.
        case previousRestored(SHA256Digest)
        /// None: the merge runs without a base, and the reason is said.
        case missing(String)
    }

    /// How `install` puts the staged copy in place.
    package enum Install: Sendable, Hashable {
        /// A new generation file and an atomic switch of the working copy's link.
        case swap(Swap)
        /// SQLite's backup into the working copy's file (`from`), under its connections.
        case live(from: OldContent)
    }

    /// A swap's decisions.
    package struct Swap: Sendable, Hashable {
        /// The number of the generation file it installs.
        package var generation: Int
        /// What the working-copy path holds before the switch.
        package var from: OldContent
        /// Whether the old generation file is set aside (removed once the run succeeded):
        /// nothing keeps it as the previous generation.
        package var retire: Bool
        /// What a swap that finds the old copy busy does.
        package var onBusy: OnBusy

        /// Creates a swap.
        package init(generation: Int, from: OldContent, retire: Bool, onBusy: OnBusy) {
            self.generation = generation
            self.from = from
            self.retire = retire
            self.onBusy = onBusy
        }
    }

    /// What the working-copy path holds before the install: the old content.
    package enum OldContent: Sendable, Hashable {
        /// Nothing (a first install).
        case nothing
        /// A regular file at the working-copy path (kept reachable under a second name).
        case file
        /// SeedDB's link to generation file `number`; `linked` is false when the link was
        /// removed and the file was found without it.
        case generation(Int, linked: Bool)
        /// SeedDB's link straight to a read-only seed (its absolute path): put back as it
        /// was by an undo, never locked, written or kept (the file is the package's).
        case seedLink(String)
    }

    /// What a swap does when other connections keep the old copy busy.
    package enum OnBusy: Sendable, Hashable {
        /// It waits for them (`swap`), up to the configured wait.
        case wait
        /// It gives up at once, undoes, and the plan's ``DeployPlan/whenBusy`` branch (a
        /// live replace) runs (`auto`).
        case goLive
    }

    /// What `keep-previous` does.
    package struct KeepPrevious: Sendable, Hashable {
        /// What happens to the previous generation on disk; `nil` when it stays (or none is).
        package var drop: Drop?
        /// Whether `<name>.previous.base` is set aside (it goes with the dropped or
        /// replaced previous generation).
        package var setsAsidePreviousBase: Bool
        /// Whether `<name>.previous.base.xor.zst` is set aside (it goes with the dropped or
        /// replaced previous generation).
        package var setsAsideCompressedPreviousBase: Bool = false
        /// Whether `<name>.base` gets the second name `<name>.previous.base` (it belongs to
        /// the old content that becomes the previous generation).
        package var linksBaseAsPrevious: Bool
        /// Whether that base is kept as `<name>.previous.base.xor.zst`, its compressed
        /// difference from the content that becomes the previous generation, instead of a
        /// second name: `<name>.base` shares its bytes with no other file, so a second name
        /// would keep a full copy of the replaced seed's content at rest.
        package var compressesBaseAsPrevious: Bool = false
        /// Finishing a swap killed after its switch: the old generation file (fenced, and
        /// set aside unless it is kept).
        package var finishesOldGeneration: Int?
        /// Finishing a swap of a regular file killed after its switch: the file's held
        /// copy (``DeployObservation/Interrupted/heldReplacedFile``), fenced, and set aside
        /// unless it is kept.
        package var finishesHeldFile: String? = nil
        /// What becomes the previous generation; `nil` when nothing does.
        package var keep: Keep?
        /// Finishing a swap killed after its switch that kept no previous generation (a
        /// rollback's, or with `keepPrevious` off), a merging one or one whose carry
        /// replaced some of the user's changes: the stamp under which the old content is
        /// kept as an adopted copy (`<name>.adopted-<stamp>`) instead of retired. Whether
        /// the killed run's merge carried all of the user's changes is not known, and what
        /// it did not (or replaced) would be in no other file
        /// (``Carry/keepsOldCopyIfDiscarded``).
        package var keepsFinishedOldContentAs: String? = nil
        /// The SQLite sidecars named after the previous generation to set aside (they go
        /// with the previous generation dropped, or are a gone one's): no file takes the
        /// name `<name>.previous` beside a stale `-wal` SQLite would replay into it.
        package var setsAsidePreviousSidecars: [String] = []

        /// Creates the step's decisions.
        package init(drop: Drop? = nil, setsAsidePreviousBase: Bool = false, linksBaseAsPrevious: Bool = false, finishesOldGeneration: Int? = nil, keep: Keep? = nil) {
            self.drop = drop
            self.setsAsidePreviousBase = setsAsidePreviousBase
            self.linksBaseAsPrevious = linksBaseAsPrevious
            self.finishesOldGeneration = finishesOldGeneration
            self.keep = keep
        }
    }

    /// A killed run's held copy of a regular-file working copy (its full path) and the
    /// stamp of the adopted copy it becomes (``DeployPlan/keepsHeldCopies``).
    package struct HeldCopy: Sendable, Hashable {
        /// The held copy's path (`.<name>.seeddb-….old.tmp`).
        package var path: String
        /// Its adopted copy's stamp: `<name>.adopted-<stamp>`.
        package var stamp: String

        /// Creates a held copy's decision.
        package init(path: String, stamp: String) {
            self.path = path
            self.stamp = stamp
        }
    }

    /// What happens to the previous generation on disk.
    package enum Drop: Sendable, Hashable {
        /// Set aside, removed once the run succeeded.
        case setAside
        /// Kept as `<name>.adopted-<stamp>`: SeedDB cannot account for it.
        case keepAsAdopted(stamp: String)
    }

    /// What becomes the previous generation.
    package enum Keep: Sendable, Hashable {
        /// The old content's file (after a swap, or the old generation of a finished one).
        case oldContent
        /// A snapshot of the old content taken inside the live replace's lock.
        case snapshot
    }

    /// What `record` writes.
    package struct Record: Sendable, Hashable {
        /// Whose digest and size are recorded.
        package var content: RecordedContent
        /// The merge base put in place before the record names it.
        package var base: BaseInstall
        /// What the record says of the previous generation.
        package var previous: PreviousRecord
        /// The hold a rollback leaves (the version it rolled back from); `nil` clears it.
        package var heldFrom: SeedVersion?
        /// Which signature is recorded (the pin).
        package var signature: RecordedSignature
        /// The generation file recorded; `nil` leaves the recorded one.
        package var generation: Int?
        /// The tables of the content as installed before anything was carried into it.
        package var seedTables: RecordedTables
        /// Whether the content's file identity is recorded as the seed's own, unwritten
        /// (when nothing was carried or merged into it).
        package var recordsPristineIdentity: Bool
        /// Whether the conflicts file is removed (a rollback: the merge it lists is undone).
        package var removesConflicts: Bool

        /// Creates the record's decisions.
        package init(
            content: RecordedContent, base: BaseInstall, previous: PreviousRecord, heldFrom: SeedVersion? = nil,
            signature: RecordedSignature = .fromManifest, generation: Int? = nil, seedTables: RecordedTables = .staged,
            recordsPristineIdentity: Bool = false, removesConflicts: Bool = false
        ) {
            self.content = content
            self.base = base
            self.previous = previous
            self.heldFrom = heldFrom
            self.signature = signature
            self.generation = generation
            self.seedTables = seedTables
            self.recordsPristineIdentity = recordsPristineIdentity
            self.removesConflicts = removesConflicts
        }
    }

    /// Whose digest and size a record takes.
    package enum RecordedContent: Sendable, Hashable {
        /// The staged copy's (as carried into; a live replace's is hashed again).
        case staged
        /// The generation file a killed swap installed.
        case generation(Int)
        /// The working copy's content file (a killed live replace's), as observed.
        case workingCopy(OldContent)
    }

    /// The merge base that goes with the new record.
    package enum BaseInstall: Sendable, Hashable {
        /// The pristine copy the stage kept becomes `<name>.base`; when the stage kept
        /// none (no reflink, a seed that merges nothing), `otherwise` applies.
        case pristine(otherwise: BaseFallback)
        /// `<name>.previous.base` (the restored generation's) becomes `<name>.base`.
        case previousBase(SHA256Digest)
        /// A base a killed run put somewhere (observed by its digest) is moved in place;
        /// these stale ones are set aside (a killed rollback's previous generation's).
        case found(SHA256Digest, at: BaseLocation, removing: [BaseLocation] = [])
        /// No base: these stale ones are set aside.
        case none(removing: [BaseLocation])
    }

    /// What is recorded as the base when the stage kept no pristine copy.
    package enum BaseFallback: Sendable, Hashable {
        /// The recorded base stays (a seed that merges: the next upgrade merges against it).
        case keep(SHA256Digest?)
        /// No base; these stale ones are set aside (a seed that merges nothing).
        case none(removing: [BaseLocation])
    }

    /// Where a merge base file is.
    package enum BaseLocation: Sendable, Hashable {
        /// `<name>.base`.
        case inPlace
        /// `<name>.previous.base`.
        case previous
        /// `<name>.previous.base.xor.zst` (a delta against `<name>.previous`: only ever set
        /// aside here; a rollback's stage restores it).
        case previousCompressed
        /// Staged by a killed run under the name of generation `number`.
        case staged(generation: Int)
    }

    /// What a record says of the previous generation.
    package enum PreviousRecord: Sendable, Hashable {
        /// Unchanged.
        case unchanged
        /// This record (the replaced version's, with its base and signature).
        case record(DeployRecord?)
        /// The adopted database now at the previous name, hashed as it is.
        case adopted
        /// None.
        case none
    }

    /// Which signature a record keeps.
    package enum RecordedSignature: Sendable, Hashable {
        /// The one the run's manifest was verified with (none for an unsigned one).
        case fromManifest
        /// This one (a rollback keeps the pin; the restored generation's when it had one).
        case this(SeedSignature?)
    }

    /// Which seed tables a record lists.
    package enum RecordedTables: Sendable, Hashable {
        /// Those the stage or the check found.
        case staged
        /// These, with the digests of the tables (what a killed run wrote down).
        case these([String]?, digests: [String: SHA256Digest]? = nil)
    }
}
