/// What a run will do to one working copy: the action and the steps in order, each
/// carrying what ``DeployPlanner`` decided for it (see ``PlannedStep``). A value, made with
/// no I/O, so a test can read it without touching a disk; `DeployExecutor` (in `SeedDB`)
/// interprets it.
package struct DeployPlan: Sendable, Hashable {
    /// The action the plan carries out (``DeployAction/unchanged`` for an empty plan).
    package var action: DeployAction
    /// How the new content is installed; `nil` when nothing is installed.
    package var strategy: DeployStrategy?
    /// The steps, in order, with their decisions.
    package var steps: [PlannedStep]
    /// Whether the database found at the working-copy path had no record that matches it
    /// (a damaged or missing settings file, a missing entry): it is kept as the previous
    /// generation, and the tables the app made in it are carried.
    package var adopted: Bool = false
    /// Whether the plan finishes a run that was interrupted after it switched the link
    /// (the new content is in place, only keeping the old one and the record are left),
    /// or undoes one killed before (``DeployStep/reinstate``): the caller then observes
    /// again and plans what was asked, unless the finish was that
    /// (``finishesWhatWasAsked``).
    package var finishesInterrupted: Bool = false
    /// Whether the killed run the plan finishes (``finishesInterrupted``, not undone) is
    /// the run asked for: a rollback's, a reseed's of the version asked, or an install
    /// or adoption of it (its action is then ``DeployAction/reseeded``), a deploy's of the
    /// version asked; a copy's for a copied seed, a link's to this seed for a read-only
    /// one, while that seed can be linked (the pass after the finish refuses one gone
    /// since, as the link's finish records it unread). The finish is then the
    /// whole run, for a single seed as for a release: reseeding once more would replace
    /// the previous generation the finish just kept, with merging off the only copy of
    /// what the user wrote. Otherwise the caller observes again and plans what was asked.
    package var finishesWhatWasAsked: Bool = false
    /// The held copies a killed run left (``DeployObservation/heldCopies``), each kept
    /// as `<name>.adopted-<stamp>` once the run succeeded (or by a run with nothing else
    /// to do): named, reported by `status`, never removed but by `purge`.
    package var keepsHeldCopies: [PlannedStep.HeldCopy] = []
    /// For a plan that finishes a killed merge past its switch: whether it keeps the old
    /// content as the previous generation not knowing what the killed merge carried (what
    /// it could not merge is only there). A replace later in the same run that would drop
    /// that previous generation keeps it as an adopted copy
    /// (``DeployRequest/keepsPreviousAsAdopted``).
    package var keptPreviousMayHoldUnmerged: Bool = false
    /// The branch a swap that finds the old copy busy takes (``PlannedStep/OnBusy/goLive``):
    /// the same run, live. Stored as an array so a plan can hold a plan.
    private var busyBranch: [DeployPlan] = []

    /// Creates a plan.
    package init(action: DeployAction, strategy: DeployStrategy?, steps: [PlannedStep]) {
        self.action = action
        self.strategy = strategy
        self.steps = steps
    }

    /// The plan that runs instead when the swap finds other connections keeping the old
    /// copy busy (`auto`): planned up front, from the same observation with the copy in
    /// use. `nil` when the swap waits for them.
    package var whenBusy: DeployPlan? {
        get { busyBranch.first }
        set { busyBranch = newValue.map { [$0] } ?? [] }
    }

    /// The steps' names, in order.
    package var names: [DeployStep] { steps.map(\.name) }

    /// Whether the plan undoes a run killed before its switch (``DeployStep/reinstate``
    /// puts back the record it withdrew): the caller then plans what was asked.
    package var undoesInterrupted: Bool { names.contains(.reinstate) }

    /// The check the staged copy gets (``IntegrityLevel/none`` when it already passed one
    /// at least as strict).
    package var integrity: IntegrityLevel {
        for case .check(let check) in steps { return check.level }
        return .none
    }

    /// The `keep-previous` step's decisions, if the plan has one.
    package var keepPrevious: PlannedStep.KeepPrevious? {
        for case .keepPrevious(let keep) in steps { return keep }
        return nil
    }

    /// A read-only seed's `link-seed` step, if the plan has one.
    package var seedLink: SeedLink? {
        for case .linkSeed(let link) in steps { return link }
        return nil
    }

    /// Whether the run keeps the new seed's pristine copy as the next merge base on any
    /// file system (the seed merges): not a clone kept only where it is free.
    package var keepsMergeBase: Bool {
        steps.contains { step in
            guard case .stage(let stage) = step else { return false }
            return stage.base == .copy || stage.base == .linkToSeed
        }
    }

    /// Whether the old content becomes the previous generation (or, for a plan that
    /// finishes a killed run, already became it and is recorded as such).
    package var keepsPrevious: Bool {
        if let link = seedLink {
            // (Or already kept by a killed run the link's step finishes: recorded so.)
            switch link.previous {
            case .record, .adopted: return true
            case .unchanged, .none: return false
            }
        }
        if keepPrevious?.keep != nil { return true }
        guard finishesInterrupted else { return false }
        for case .record(let record) in steps {
            switch record.previous {
            case .record, .adopted: return true
            case .unchanged, .none: return false
            }
        }
        return false
    }

    /// Whether the previous generation on disk goes (replaced, consumed by a rollback,
    /// generations turned off, or kept as an adopted copy).
    package var dropsPrevious: Bool { keepPrevious?.drop != nil || seedLink?.drop != nil }

    /// Whether the plan restores the previous generation (a rollback's, or a killed live
    /// rollback's done again by a `deploy`): its content is staged from that file.
    package var restoresPrevious: Bool {
        for case .stage(let stage) in steps { return stage.restoresPrevious }
        return false
    }

    /// The killed live replace's copy of its seed the plan stages instead of the seed
    /// (``PlannedStep/Stage/killedRunsSeed``), if it does.
    package var stagesKilledRunsSeed: String? {
        for case .stage(let stage) in steps { return stage.killedRunsSeed }
        return nil
    }

    /// The number of the generation file a swap installs; `nil` for a live replace and
    /// for plans that install nothing new.
    package var generation: Int? {
        for case .install(.swap(let swap)) in steps { return swap.generation }
        return nil
    }

    /// The stamp of the adopted copy the dropped previous generation is kept as.
    package var keepsDroppedPreviousAs: String? {
        if case .keepAsAdopted(let stamp)? = keepPrevious?.drop ?? seedLink?.drop { return stamp }
        return nil
    }

    /// Whether the carry reads the previous generation (the copy made in a read-only seed's
    /// link's place), which stays.
    package var carriesPreviousGeneration: Bool {
        for case .carry(let carry) in steps { return carry.from == .previousGeneration }
        return false
    }

    /// Whether the replaced content is in the previous generation once the run is done
    /// (``DeployReport/keptPrevious``): kept by this run, or the previous generation a
    /// switch back from a read-only link carries from.
    package var leavesReplacedContentAsPrevious: Bool { keepsPrevious || carriesPreviousGeneration }

    /// Whether the carry merges the user's edits (and writes the merge's conflicts beside
    /// the working copy).
    package var merges: Bool {
        for case .carry(let carry) in steps { return carry.merge == .merge }
        return false
    }

    /// Whether the merge is skipped: the working copy is the seed's own content, unwritten
    /// since its deploy.
    package var skipsMerge: Bool {
        for case .carry(let carry) in steps { return carry.merge == .skipped }
        return false
    }

    /// What the working-copy path held before the install (`nil` for a plan that installs
    /// nothing).
    package var oldContent: PlannedStep.OldContent? {
        for case .install(let install) in steps {
            switch install {
            case .swap(let swap): return swap.from
            case .live(let from): return from
            }
        }
        return nil
    }

    /// The `withdraw` step's marker, if the plan has one.
    package var withdraw: PlannedStep.Withdraw? {
        for case .withdraw(let withdraw) in steps { return withdraw }
        return nil
    }

    /// The generation a `relink` step puts the link back to.
    package var relinked: Int? {
        for case .relink(let generation) in steps { return generation }
        return nil
    }

    /// Whether a swap that finds the old copy busy gives up at once for ``whenBusy``.
    package var goesLiveWhenBusy: Bool { whenBusy != nil }

    /// Whether the previous generation on disk already holds the old content (a live
    /// replace killed after its snapshot became the previous generation).
    package var previousAlreadyKept: Bool {
        for case .withdraw(let withdraw) in steps { return withdraw.snapshot != nil }
        return false
    }

    /// The steps that run under the writer's lock on the old working copy: everything that
    /// reads the old copy and everything up to the moment the new content is in place
    /// (and, for a swap, recorded), so no row committed by an app is lost.
    package var writerLockedSteps: [DeployStep] {
        guard strategy != nil, names.contains(.carry) else { return [] }
        // A live replace keeps its snapshot inside the backup's lock; a previous
        // generation it only drops goes after the commit.
        let locked: Set<DeployStep> = strategy == .swap
            ? [.carry, .install, .keepPrevious, .record]
            : keepsPrevious ? [.carry, .keepPrevious] : [.carry]
        return names.filter(locked.contains)
    }

    /// The plan that does nothing.
    package static let nothing = DeployPlan(action: .unchanged, strategy: nil, steps: [])

    /// The plan that does nothing because a rollback holds the working copy at the version
    /// it restored while the app still ships the version it was rolled back from.
    package static let held = DeployPlan(action: .held, strategy: nil, steps: [])
}

/// Why a run refuses to plan anything: nothing is changed.
package enum DeployRefusal: Error, Sendable, Hashable {
    /// Something SeedDB did not make is at the working-copy path (what it is).
    case blocked(String)
    /// A run that merges, with a directory (never SeedDB's) at `<name>.conflicts.json`,
    /// where the merge writes its conflicts.
    case conflictsFileIsADirectory
    /// A rollback with no previous generation on disk.
    case nothingToRollBack
    /// A rollback whose previous generation has a sidecar with content beside it
    /// (``DeployObservation/previousSidecarWithContent``): its path and size.
    case sidecarBesidePrevious(String, Int64)
    /// A read-only seed that cannot be linked as it is, only copied (it is compressed):
    /// the seed's path.
    case readOnlyNeedsCopy(String)
    /// A read-only seed in WAL mode (its header says so), which a connection opens only
    /// where it can create the `-shm` file beside it: the seed's path.
    case readOnlySeedInWALMode(String)
    /// A read-only seed whose file is not the size its header declares (cut short, as a
    /// truncated download is), which a copied deploy refuses too: the seed's path, the size
    /// declared and the file's.
    case readOnlySeedWrongSize(String, declared: Int64, size: Int64)
    /// A read-only seed whose path is not absolute and stable: the path, and why.
    case readOnlySeedUnstable(String, String)
    /// A read-only seed the app's user could write through the link, or replace through a
    /// directory on its path: the path, and who could (and how).
    case readOnlySeedWritable(String, String)
    /// A read-only seed whose file is not there (a package removed it): the path. Its link,
    /// even one recorded at this version, opens nothing.
    case readOnlySeedMissing(String)
    /// A read-only seed whose file changed at the recorded version behind the link already
    /// in place (``ReadOnlySeed/changedSinceLinked``), and that a new link would refuse
    /// (WAL mode, cut short, replaceable): that refusal. The link stays, and serves the
    /// changed file until the package ships one that can be linked.
    indirect case readOnlySeedChangedBehindLink(DeployRefusal)
}

/// What the caller asks of a run, beside what was observed.
package struct DeployRequest: Sendable, Hashable {
    /// What kind of run this is.
    package enum Kind: Sendable, Hashable {
        /// `deploy`: only when missing or outdated.
        case deploy
        /// `reseed`: whatever the versions say.
        case reseed
        /// `rollback`: the previous generation back in place.
        case rollback
    }

    /// What kind of run this is.
    package var kind: Kind
    /// The configured strategy.
    package var strategy: DeployStrategy
    /// Whether replaces keep the old copy as the previous generation.
    package var keepPrevious: Bool
    /// The configured integrity level.
    package var integrity: IntegrityLevel
    /// The run's start in UTC (`20261126T071500Z`): the stamp of an adopted copy it keeps.
    package var stamp: String
    /// Whether the app's migrations run on the staged copy (the library was given a
    /// migrator).
    package var migrates: Bool = false
    /// Whether the seed's policy merges the user's edits of its rows into a new seed: a
    /// merge base is kept for the next upgrade.
    package var merges: Bool = false
    /// A reseed's own merge (`reseed --merge`), when it was given one: whether that
    /// merges anything. `nil`: the seed's (``merges``).
    package var reseedMerges: Bool? = nil
    /// Whether the seed's carry puts the seed's rows in place of the user's changes to some
    /// seed table (its policy is `off`): the run names the tables the user had changed.
    package var replacesEdits: Bool = false
    /// A reseed's own merge's (`reseed --merge`), when it was given one: whether its carry
    /// replaces the user's changes to some seed table. `nil`: the seed's
    /// (``replacesEdits``).
    package var reseedReplacesEdits: Bool? = nil
    /// Whether the record keeps the digest of each seed table (``DeployRecord/tableDigests``):
    /// a copy in the `data` location whose seed keeps no merge base, so a later replace
    /// with merging off can still name the tables the user changed.
    package var recordsTableDigests: Bool = false
    /// Whether the configuration names tables (preserved or merged): a first install
    /// checks the seed has them.
    package var namesTables: Bool = false
    /// Whether the merge base may be a hard link to the seed file where that is safe
    /// (system mode: the package manager's seed, replaced by rename).
    package var linksBaseToSeed: Bool = false
    /// Whether the previous generation on disk was kept, earlier in this run, by the finish
    /// of a killed merge that cannot tell what that merge carried
    /// (``DeployPlan/keptPreviousMayHoldUnmerged``): a replace that drops it keeps it as an
    /// adopted copy.
    package var keepsPreviousAsAdopted: Bool = false
    /// Whether the seed comes from a manifest, which names the version the app ships: a
    /// rollback of a seed already rolled back from that version is held (so a killed
    /// release rollback's rerun passes over the seeds it rolled back).
    package var fromManifest: Bool = false
    /// A killed live replace this run does again first (a reseed of that run's version,
    /// see ``DeployPlanner``), set by the planner for that pass; `nil` otherwise.
    package var redoes: KilledReplace? = nil

    /// A killed live replace done again: what its stage copies and its record names.
    package struct KilledReplace: Sendable, Hashable {
        /// That run's pristine copy of its seed (``DeployObservation/Interrupted/stagedSeed``),
        /// staged in place of the seed.
        package var seed: String
        /// The signature that run would have recorded, not the asked run's.
        package var signature: PlannedStep.RecordedSignature
        /// What that run did, as its finish reports it (``DeployObservation/Interrupted/action``):
        /// a replace stays a replace, though it is done again as a reseed.
        package var action: DeployAction
    }

    /// Whether this run's carry merges the user's edits: a reseed's own merge when it was
    /// given one, the seed's otherwise.
    package var carryMerges: Bool {
        kind == .reseed ? reseedMerges ?? merges : merges
    }

    /// Whether this run's carry replaces the user's changes to some seed table: a reseed's
    /// own merge's when it was given one, the seed's otherwise.
    package var carryReplacesEdits: Bool {
        kind == .reseed ? reseedReplacesEdits ?? replacesEdits : replacesEdits
    }

    /// Creates a request.
    package init(kind: Kind, strategy: DeployStrategy = .auto, keepPrevious: Bool = true, integrity: IntegrityLevel = .quick, stamp: String = "19700101T000000Z") {
        self.kind = kind
        self.strategy = strategy
        self.keepPrevious = keepPrevious
        self.integrity = integrity
        self.stamp = stamp
    }
}

