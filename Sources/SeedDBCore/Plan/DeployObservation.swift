/// What a deploy observed before planning: the settings entry, the seed, what is at the
/// working-copy path and which of SeedDB's files are beside it. Gathered under the deploy
/// lock (and, for the startup check, without it). ``DeployPlanner`` decides every
/// combination; the executor decides none.
package struct DeployObservation: Sendable, Hashable {
    /// Whether others are using the working copy.
    package struct Usage: Sendable, Hashable {
        /// An open `SeedDatabase` handle holds the readers byte of the lock file (seen
        /// without touching the database).
        package var handleOpen: Bool
        /// A swap attempt found other connections keeping the database busy (a
        /// transaction open, or connections in WAL mode): seen under the deploy lock,
        /// by trying.
        package var connectionsBusy: Bool

        /// Creates an observation of use.
        package init(handleOpen: Bool = false, connectionsBusy: Bool = false) {
            self.handleOpen = handleOpen
            self.connectionsBusy = connectionsBusy
        }

        /// Nobody was seen using it.
        package static let idle = Usage()

        /// Whether anything was seen using it.
        package var inUse: Bool { handleOpen || connectionsBusy }
    }

    /// What is at the working-copy path.
    package enum WorkingCopy: Sendable, Hashable {
        /// Nothing.
        case absent
        /// A regular file: a database the user may have written (an install made before
        /// generations, or a file put there by hand).
        case file
        /// SeedDB's symbolic link to generation file number `n`, which exists.
        case generation(Int)
        /// SeedDB's symbolic link straight to a read-only seed (its absolute path, the
        /// link's target): the one the record names, or the seed being deployed read-only.
        case seedLink(String)
        /// Something SeedDB never replaces or removes: a directory, a link it did not make,
        /// a link to a generation file that is gone, a special file. The text says what.
        case blocked(String)

        /// The generation file SeedDB's link points at, if that is what is there.
        package var generationNumber: Int? {
            if case .generation(let number) = self { return number }
            return nil
        }

        /// Whether a database is there.
        package var holdsDatabase: Bool {
            switch self {
            case .file, .generation, .seedLink: return true
            case .absent, .blocked: return false
            }
        }

        /// The seed a read-only deploy's link names, if that is what is there.
        package var seedLinkTarget: String? {
            if case .seedLink(let target) = self { return target }
            return nil
        }
    }

    /// What an interrupted run left in the settings entry: its `withdraw` step wrote it,
    /// its `record` step clears it.
    package struct Interrupted: Sendable, Hashable {
        /// The version the run was installing.
        package var version: SeedVersion
        /// The generation file the run was installing (a swap); `nil` for a live replace
        /// and a read-only deploy (``seedLink``).
        package var generation: Int?
        /// The version it replaced (`nil` when nothing was recorded).
        package var replacing: SeedVersion?
        /// Whether the run was a rollback.
        package var isRollback: Bool
        /// Whether the run was a reseed.
        package var isReseed = false
        /// The signature the run records (``PlannedStep/RecordedSignature/fromManifest``:
        /// not written down, the finishing run's own).
        package var signature: PlannedStep.RecordedSignature = .fromManifest
        /// Whether a live replace had already made its snapshot of the old content the
        /// previous generation: the file at the previous generation's name is that
        /// snapshot (its digest matches the one the run wrote down before the rename), so
        /// it holds the content of ``replacing``, whether or not the backup committed.
        package var previousIsSnapshot: Bool
        /// The generation file the link named when the run started (its old content).
        package var replacingGeneration: Int?
        /// Whether the old content is a database the run adopted (no record matched it).
        package var adopting: Bool
        /// The record of what the run replaced.
        package var replacingRecord: DeployRecord? = nil
        /// The digest of the merge base the run was putting in place.
        package var base: SHA256Digest? = nil
        /// Where a file with that digest was found (hashed only for a run that is finished
        /// here); `nil` when none was.
        package var baseFoundAt: PlannedStep.BaseLocation? = nil
        /// The tables of the content the run was installing.
        package var seedTables: [String]? = nil
        /// The digests of those tables, when the run was recording them.
        package var tableDigests: [String: SHA256Digest]? = nil
        /// The digest of a killed live replace's snapshot, as it wrote it down.
        package var snapshot: SHA256Digest? = nil
        /// A killed live replace's pristine copy of the seed it installed (its staged
        /// merge base, a temporary file), found by the digest its marker names, where a
        /// run of another version needs it (``DeployPlanner`` does that replace again from
        /// it first).
        package var stagedSeed: String? = nil
        /// A read-only deploy's: the seed file it was linking the working copy to.
        package var seedLink: String? = nil
        /// Whether the run merged, as its marker wrote down once its carry was done: it
        /// wrote that merge's conflicts file, which its finish keeps.
        package var merged = false
        /// Whether the run's carry replaced some of the user's changes (merging off for a
        /// table they changed), as its marker wrote down once its carry was done.
        package var replacedEdits = false
        /// Whether the run replaced the content in place (a live replace or rollback): no
        /// generation file and no seed link tell whether its commit happened.
        package var isLive: Bool { generation == nil && seedLink == nil }
        /// Whether the regular file the run was replacing (its marker names its identity)
        /// is the file at the working-copy path now: the run's switch, which puts the link
        /// in that file's place, never happened, and its new generation was never linked.
        package var replacedFileInPlace = false
        /// Whether the old content was a regular file at the working-copy path (the
        /// marker names its identity), not a generation file: the recorded generation,
        /// if any, is not the run's old content.
        package var replacedAFile = false
        /// The held copy (``DeployObservation/heldCopies``) that is the very regular file
        /// the run was replacing (its marker names its identity): the run switched and was
        /// killed before that file became the previous generation; its finish makes it so.
        package var heldReplacedFile: String? = nil

        /// What the run was doing, as a run that finishes it reports it (as the run itself
        /// would have): a rollback, a reseed, an install (nothing was there), or a replace.
        package var action: DeployAction {
            if isRollback { return .rolledBack }
            if isReseed { return .reseeded }
            return replacing == nil && !adopting ? .installed : .replaced
        }

        /// Creates the marker.
        package init(
            version: SeedVersion, generation: Int?, replacing: SeedVersion?, isRollback: Bool = false, previousIsSnapshot: Bool = false,
            replacingGeneration: Int? = nil, adopting: Bool = false
        ) {
            self.version = version
            self.generation = generation
            self.replacing = replacing
            self.isRollback = isRollback
            self.previousIsSnapshot = previousIsSnapshot
            self.replacingGeneration = replacingGeneration
            self.adopting = adopting
        }
    }

    /// What the settings entry records beside the versions, as the steps use it.
    package struct Records: Sendable, Hashable {
        /// The record of the working copy's content.
        package var current: DeployRecord?
        /// The record of the previous generation.
        package var previous: DeployRecord?
        /// The digest of the recorded merge base.
        package var base: SHA256Digest?
        /// The pinned signature.
        package var signature: SeedSignature?
        /// The last check content passed.
        package var passedCheck: ValidationMemo?

        /// Creates what a record holds.
        package init(current: DeployRecord? = nil, previous: DeployRecord? = nil, base: SHA256Digest? = nil, signature: SeedSignature? = nil, passedCheck: ValidationMemo? = nil) {
            self.current = current
            self.previous = previous
            self.base = base
            self.signature = signature
            self.passedCheck = passedCheck
        }
    }

    /// The merge base files beside the working copy.
    package struct BaseFiles: Sendable, Hashable {
        /// Whether `<name>.base` is a regular file.
        package var base: Bool
        /// Whether `<name>.previous.base` is a regular file.
        package var previousBase: Bool
        /// Whether `<name>.base`'s digest is the recorded one: looked at only when a merge
        /// could use it (hashed, unless the file keeps the identity recorded with its
        /// digest); `nil` when it was not.
        package var baseMatchesRecord: Bool?
        /// Whether `<name>.base` is the new base a killed live replace's marker names
        /// (hashed when it does not match the record): only its record step, after the
        /// commit, puts that base in place, so the copy holds the content the run
        /// committed, merged against it.
        package var baseIsInterruptedLiveBase: Bool? = nil
        /// Whether `<name>.previous.base.xor.zst` (the previous generation's base, compressed)
        /// is a regular file.
        package var previousBaseCompressed: Bool = false
        /// Whether what `<name>.previous.base.xor.zst` restores against `<name>.previous`
        /// has the digest the previous generation's record names for its base: restored and
        /// hashed only when a rollback could restore it, or a carry from the previous
        /// generation merge against it; `nil` when it was not.
        package var previousBaseCompressedMatchesRecord: Bool? = nil
        /// Whether `<name>.previous.base`'s digest is the one the previous generation's
        /// record names: hashed only when a carry from the previous generation could use
        /// it (the copy that takes a read-only seed's link's place); `nil` when it was not.
        package var previousBaseMatchesRecord: Bool? = nil
        /// Whether `<name>.base`'s bytes are held by another file too: a second name beside
        /// SeedDB's own (the seed file, a hard link) or extents shared by a reflink. A second
        /// name of it as the previous generation's base then costs nothing; otherwise it
        /// would keep a full copy the package manager released, and it is compressed
        /// instead. `nil` when it was not looked at, and when it is not shared but zstd is
        /// not at hand.
        package var baseShared: Bool? = nil

        /// Creates what was found.
        package init(base: Bool = false, previousBase: Bool = false, baseMatchesRecord: Bool? = nil) {
            self.base = base
            self.previousBase = previousBase
            self.baseMatchesRecord = baseMatchesRecord
        }
    }

    /// The seed file, as far as the merge base could be a second name of it (a hard
    /// link): the facts ``DeployPlanner`` weighs to call that safe.
    package struct SeedFile: Sendable, Hashable {
        /// Whether it is stored plain (not `.zst` or `.gz`): its bytes are the database.
        package var plain: Bool
        /// Whether it is on the file system of the working copy's directory (the same
        /// device), where a hard link can be made.
        package var sameFileSystem: Bool
        /// Whether only root can change it: root's, not writable by its group or others.
        /// Nobody else can then change a base through the link; the package manager
        /// replaces the file by a rename, which leaves the old content to the base.
        package var onlyRootWrites: Bool

        /// Creates what was found.
        package init(plain: Bool, sameFileSystem: Bool, onlyRootWrites: Bool) {
            self.plain = plain
            self.sameFileSystem = sameFileSystem
            self.onlyRootWrites = onlyRootWrites
        }
    }

    /// What the entry records beside the versions.
    package var records = Records()
    /// The merge base files.
    package var baseFiles = BaseFiles()
    /// The seed file, looked at when its merge base could be a hard link to it (asked
    /// for, see ``DeployRequest/linksBaseToSeed``); `nil` when it was not.
    package var seedFile: SeedFile? = nil
    /// The files SeedDB may remove once the run succeeded: a killed run's temporary
    /// files, and the generation files (with their sidecars) ``disposableGenerations``
    /// names.
    package var leftovers: [String] = []
    /// A killed run's second names (`.<name>.seeddb-….old.tmp`) of a working copy that
    /// was a regular file, which no longer name the file at the working-copy path: the
    /// run switched the link and was killed before the old content took its name, so each
    /// is the only name of that content. Never removed: kept as adopted copies
    /// (``DeployPlan/keepsHeldCopies``).
    package var heldCopies: [String] = []
    /// What differs between the working copy's content file and the owner and mode asked
    /// for (`mode 0664 -> 0640, owner 0:0 -> 65534:65534`); `nil` when nothing does or
    /// nothing is asked.
    package var ownershipDrift: String? = nil
    /// The digest of the seed as observed (remembered for its identity), when it is the
    /// one ``Records/passedCheck`` passed: the stage need not read its header again.
    package var vouchedDigest: SHA256Digest? = nil
    /// The version the settings record for this working copy; `nil` when none is.
    package var recorded: SeedVersion?
    /// The generation file the record names (`nil` for an install made before
    /// generations, or when nothing is recorded).
    package var recordedGeneration: Int?
    /// What an interrupted run left, if one did.
    package var interrupted: Interrupted?
    /// The version a rollback restored from: `deploy` leaves the working copy alone while
    /// the app still ships it.
    package var heldFrom: SeedVersion?
    /// Whether the settings record a previous generation.
    package var previousRecorded: Bool
    /// Whether the recorded previous generation is a database SeedDB adopted (found with
    /// no record that matched it): what it holds is not known.
    package var previousAdopted: Bool
    /// What is at the working-copy path.
    package var workingCopy: WorkingCopy
    /// Whether the working copy's link is missing, and ``workingCopy`` is the recorded
    /// generation file found without it.
    package var linkMissing: Bool
    /// The generation files (`<name>.v<N>`) in the directory, by number.
    package var generationFiles: [Int]
    /// The generation numbers for which SQLite sidecars (`<name>.v<N>-wal`, `-shm`,
    /// `-journal`) are in the directory, whether or not their database file is.
    package var sidecarGenerations: [Int]
    /// The generation numbers that staged merge bases a killed run left are named after
    /// (`.<name>.seeddb-<name>.v<N>.base.tmp`).
    package var stagedBases: [Int]
    /// The stamps of the adopted copies kept beside the working copy
    /// (`<name>.adopted-<stamp>`).
    package var adoptedCopies: [String]
    /// The stamps that a SQLite sidecar on disk is named after
    /// (`<name>.adopted-<stamp>-wal`, `-shm`, `-journal`), whether or not its adopted copy
    /// is there: SQLite would replay it into whatever file takes that name.
    package var adoptedSidecarStamps: [String] = []
    /// The stamps an adopted copy this run keeps may not take: those of the adopted copies
    /// and of the sidecars on disk.
    package var takenAdoptedStamps: Set<String> { Set(adoptedCopies).union(adoptedSidecarStamps) }
    /// The SQLite sidecars named after the previous generation that are on disk
    /// (`<name>.previous-wal`, `-shm`, `-journal`): SQLite would replay them into whatever
    /// file next takes that name, so a run that puts a file there sets them aside first.
    package var previousSidecars: [String] = []
    /// One of ``previousSidecars`` that holds content
    /// (``SeedPaths/sidecarHoldsContent(suffix:size:)``): SeedDB keeps no sidecar beside the
    /// previous generation, so it is not SeedDB's, and a rollback that opened the previous
    /// generation would replay it into that copy (the planner refuses the rollback).
    package var previousSidecarWithContent: SidecarFile?

    /// A SQLite sidecar on disk: its path and size.
    package struct SidecarFile: Sendable, Hashable {
        /// The sidecar's path.
        package var path: String
        /// Its size in bytes.
        package var size: Int64

        package init(path: String, size: Int64) {
            self.path = path
            self.size = size
        }
    }
    /// Whether a directory is at `<name>.conflicts.json`: SeedDB did not make it, and a
    /// merge, which writes its conflicts there, refuses to replace it.
    package var conflictsFileIsADirectory = false
    /// Whether temporary files of SeedDB's naming (a killed run's) are in the directory.
    package var leftoversFound: Bool
    /// Whether the working copy is the seed's own content, unwritten since its deploy
    /// (its file's identity is the one the record took, no `-journal` beside it and no
    /// `-wal` or an empty one): an upgrade has nothing of the user's to merge. The carry
    /// looks again under the writer's lock.
    package var untouchedSeed: Bool = false
    /// Whether a previous generation file exists beside the working copy.
    package var previousExists: Bool
    /// The version being deployed.
    package var current: SeedVersion
    /// Whether the content about to be staged already passed a check at least this strict
    /// (remembered by digest); `nil` when it did not, or its digest is not known yet.
    package var alreadyChecked: IntegrityLevel?
    /// Who is using the working copy.
    package var usage: Usage
    /// The seed, when it is deployed read-only (``Seed/readOnly``): its path and what
    /// decides whether a link may name it; `nil` for a seed that is copied.
    package var readOnlySeed: ReadOnlySeed? = nil
    /// The seed file the record says the working copy links to (a read-only deploy);
    /// `nil` when the record names a copy, or nothing.
    package var recordedSeedLink: String? = nil

    /// Creates an observation.
    package init(
        recorded: SeedVersion?, recordedGeneration: Int? = nil,
        interrupted: Interrupted? = nil, heldFrom: SeedVersion? = nil, previousRecorded: Bool = false, previousAdopted: Bool = false,
        workingCopy: WorkingCopy, linkMissing: Bool = false, generationFiles: [Int] = [], sidecarGenerations: [Int] = [], stagedBases: [Int] = [],
        adoptedCopies: [String] = [], leftoversFound: Bool = false, previousExists: Bool = false,
        current: SeedVersion, alreadyChecked: IntegrityLevel? = nil, usage: Usage = .idle
    ) {
        self.recorded = recorded
        self.recordedGeneration = recordedGeneration
        self.interrupted = interrupted
        self.heldFrom = heldFrom
        self.previousRecorded = previousRecorded
        self.previousAdopted = previousAdopted
        self.workingCopy = workingCopy
        self.linkMissing = linkMissing
        self.generationFiles = generationFiles
        self.sidecarGenerations = sidecarGenerations
        self.stagedBases = stagedBases
        self.adoptedCopies = adoptedCopies
        self.leftoversFound = leftoversFound
        self.previousExists = previousExists
        self.current = current
        self.alreadyChecked = alreadyChecked
        self.usage = usage
    }

    /// Whether a database is at the working-copy path.
    package var workingCopyExists: Bool { workingCopy.holdsDatabase }

    /// The content at the working-copy path, as a step that replaces it needs it.
    package var oldContent: PlannedStep.OldContent {
        switch workingCopy {
        case .file: return .file
        case .generation(let number): return .generation(number, linked: !linkMissing)
        case .seedLink(let target): return .seedLink(target)
        case .absent, .blocked: return .nothing
        }
    }

    /// Whether a copy made now takes the place of SeedDB's link to a read-only seed: the
    /// link is there, or the record names one and nothing is at the path (removed since).
    /// What the user wrote before the link is then in the previous generation.
    package var replacesSeedLink: Bool {
        workingCopy.seedLinkTarget != nil || (recordedSeedLink != nil && !workingCopyExists)
    }

    /// The generation the working copy's link points at, if it is SeedDB's link.
    package var linkedGeneration: Int? { workingCopy.generationNumber }

    /// Whether an interrupted swap got as far as switching the link to its new generation,
    /// or may have: with no link of SeedDB's at the working-copy path (removed by hand), a
    /// new generation it left may have been linked, and written by the app. It is
    /// finished, the link put back first (``DeployPlanner``), never removed.
    package var interruptedAfterSwitch: Bool {
        guard let interrupted, let generation = interrupted.generation, recordedGeneration != generation else { return false }
        if linkedGeneration == generation && !linkMissing { return true }
        return noLink && generationFiles.contains(generation)
    }

    /// Whether a killed live replace (not a rollback) left its marker, the record
    /// withdrawn, over a working copy that is there: whether its commit happened (what the
    /// copy holds) is not known, so a `deploy` that would leave the copy as it is does the
    /// replace again rather than leave the marker standing (and the previous generation
    /// the killed run set aside in a temporary file).
    package var redoesKilledLiveReplace: Bool {
        guard let interrupted, interrupted.isLive, !interrupted.isRollback,
              interrupted.replacing != nil
        else { return false }
        return recorded == nil && workingCopyExists
    }

    /// Whether a killed live rollback left its marker, the record withdrawn, over a working
    /// copy that is there, with the previous generation it restores still on disk (a live
    /// rollback drops it only once it committed): whether its commit happened
    /// is not known, so a `deploy` (a read-only one too) or a `reseed` does the rollback
    /// again first rather than leave the marker standing, or keep that copy as the
    /// previous generation under a record it may not match.
    package var redoesKilledLiveRollback: Bool {
        guard let interrupted, interrupted.isRollback, interrupted.isLive else { return false }
        return recorded == nil && workingCopyExists && previousExists
    }

    /// The seed an interrupted read-only deploy linked the working copy to, when that link
    /// is in place: the run is finished (``DeployPlanner``).
    package var interruptedLinkInPlace: String? {
        guard let link = interrupted?.seedLink, workingCopy.seedLinkTarget == link else { return nil }
        return link
    }

    /// Whether no link of SeedDB's is at the working-copy path: nothing there, or only the
    /// recorded generation file whose link was removed.
    package var noLink: Bool { linkMissing || workingCopy == .absent }

    /// The version the working copy holds as far as the record tells, reading through an
    /// interrupted run that did not switch the link.
    package var effectiveRecorded: SeedVersion? {
        if let interrupted, !interruptedAfterSwitch { return recorded ?? interrupted.replacing }
        return recorded
    }

    /// The generation files SeedDB may remove, with their sidecars: those no link or
    /// record names that were never installed, and the sidecars of generations whose
    /// database file is gone. Installs take a number above the linked one (short of a file
    /// carrying ``SeedPaths/largestGeneration``), so a
    /// file numbered above the link's target that the link does not name is a killed
    /// run's staged generation; so is the generation an interrupted run names that the
    /// link does not point at, that a link to a read-only seed stands in place of, or
    /// whose switch never replaced the regular file that is still at the working-copy
    /// path. With no link of SeedDB's, nothing else is provably disposable. A `-wal`, `-shm` or `-journal` whose database is gone can only ever be
    /// replayed into a wrong file: it always is.
    package var disposableGenerations: [Int] {
        let stranded = Set(sidecarGenerations).subtracting(generationFiles).subtracting([linkedGeneration].compactMap { $0 })
        let staged: [Int]
        if let linked = linkedGeneration, !linkMissing {
            staged = generationFiles.filter { number in
                number != linked && number != recordedGeneration && (number > linked || number == interrupted?.generation)
            }
        } else if workingCopy == .file, interrupted?.replacedFileInPlace == true, let generation = interrupted?.generation,
                  generation != recordedGeneration, generationFiles.contains(generation) {
            // The regular file a killed swap was replacing is still in place: the link that
            // would have replaced it never named the run's new generation.
            staged = [generation]
        } else if workingCopy.seedLinkTarget != nil, let generation = interrupted?.generation, generation != recordedGeneration,
                  generation != interrupted?.replacingGeneration, generationFiles.contains(generation) {
            // SeedDB's link to a read-only seed: the new generation of a swap that would have
            // replaced it was never linked (that run's switch would have named it).
            staged = [generation]
        } else {
            // No link: nothing is provably never linked (the link may have named any of them
            // before it was removed; an interrupted run's new generation is finished).
            staged = []
        }
        return (staged + stranded).sorted()
    }

    /// The number of the next generation file: one above every number any file in the
    /// directory carries (a generation file or one of its sidecars), the record, the
    /// link and an interrupted run name, so a new generation never takes a name that any
    /// file of an earlier one still has (a staged merge base named after it included):
    /// SQLite would replay a stale `-wal` or `-journal` into whatever file is next given
    /// its name. Past ``SeedPaths/largestGeneration`` (a file of someone else's can carry
    /// it), the lowest number no file has: a larger one would be a name SeedDB does not
    /// read back as its own.
    package var nextGeneration: Int {
        let taken = Set(generationFiles + sidecarGenerations + stagedBases
            + [recordedGeneration, linkedGeneration, interrupted?.generation, interrupted?.replacingGeneration].compactMap { $0 })
        let largest = taken.max() ?? 0
        guard largest >= SeedPaths.largestGeneration else { return largest + 1 }
        return (1...).first { !taken.contains($0) }!
    }

    /// Generation files nothing names (the link, the record, a killed run's marker, which
    /// the next run finishes) and that may hold what the user wrote: never removed,
    /// reported.
    package var unaccountedGenerations: [Int] {
        let named = Set([linkedGeneration, recordedGeneration, interrupted?.generation, interrupted?.replacingGeneration].compactMap { $0 })
            .union(disposableGenerations)
        return generationFiles.filter { !named.contains($0) }
    }
}
