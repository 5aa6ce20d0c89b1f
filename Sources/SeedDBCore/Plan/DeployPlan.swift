/// What a run will do to one working copy: the action, every choice made, and the named
/// steps in order. A value, made by ``DeployPlanner`` with no I/O, so a test can read it
/// without touching a disk; `DeployExecutor` (in `SeedDB`) runs it.
package struct DeployPlan: Sendable, Hashable {
    /// The action the plan carries out (``DeployAction/unchanged`` for an empty plan).
    package var action: DeployAction
    /// How the new content is installed; `nil` when nothing is installed.
    package var strategy: DeployStrategy?
    /// The check the staged copy gets (``IntegrityLevel/none`` when it already passed one
    /// at least as strict).
    package var integrity: IntegrityLevel
    /// Whether the old working copy becomes the previous generation.
    package var keepsPrevious: Bool
    /// Whether an existing previous generation is removed (it is replaced, consumed by a
    /// rollback, or generations were turned off).
    package var dropsPrevious: Bool
    /// The steps, in order.
    package var steps: [DeployStep]
    /// Whether the database found at the working-copy path had no record that matches it
    /// (a damaged or missing settings file, a missing entry): it is kept as the previous
    /// generation, and the tables the app made in it are carried.
    package var adopted: Bool = false
    /// Whether the plan finishes a run that was interrupted after it switched the link:
    /// the new content is in place, only keeping the old one and the record are left.
    package var finishesInterrupted: Bool = false
    /// The number of the generation file a swap installs (`<name>.v<N>`): a name no file
    /// in the directory has, sidecars included (see
    /// ``DeployObservation/nextGeneration``). `nil` for a live replace and for plans that
    /// install nothing new.
    package var generation: Int? = nil
    /// When the previous generation that goes is a database SeedDB could not account for
    /// (adopted, or on disk with no record): the stamp of the adopted copy it is kept as
    /// (`<name>.adopted-<stamp>`) instead of being removed.
    package var keepsDroppedPreviousAs: String? = nil
    /// Whether the merge is skipped: the working copy is the seed's own content and
    /// nobody wrote to it since its deploy, so the new seed replaces it as is (the tables
    /// the app made and the preserved ones are carried as always).
    package var skipsMerge: Bool = false
    /// Whether a swap that finds other connections keeping the old copy busy (WAL
    /// connections, which only trying shows) gives up at once so the run is made live
    /// (`auto`), rather than waiting for them (`swap`).
    package var goesLiveWhenBusy: Bool = false
    /// Whether the previous generation on disk already holds the old content: a live
    /// replace killed after it made its snapshot the previous generation. The run
    /// records it as the replaced version's without taking another snapshot (which
    /// would hold what the killed run may already have installed).
    package var previousAlreadyKept: Bool = false

    /// The steps that run under the writer's lock on the old working copy: everything that
    /// reads the old copy and everything up to the moment the new content is in place
    /// (and, for a swap, recorded), so no row committed by an app is lost.
    package var writerLockedSteps: [DeployStep] {
        guard strategy != nil, steps.contains(.carry) else { return [] }
        // A live replace keeps its snapshot inside the backup's lock; a previous
        // generation it only drops goes after the commit.
        let locked: Set<DeployStep> = strategy == .swap
            ? [.carry, .install, .keepPrevious, .record]
            : keepsPrevious ? [.carry, .keepPrevious] : [.carry]
        return steps.filter(locked.contains)
    }

    /// The plan that does nothing.
    package static let nothing = DeployPlan(action: .unchanged, strategy: nil, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [])

    /// The plan that does nothing because a rollback holds the working copy at the version
    /// it restored while the app still ships the version it was rolled back from.
    package static let held = DeployPlan(action: .held, strategy: nil, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [])
}

/// Why a run refuses to plan anything: nothing is changed.
package enum DeployRefusal: Error, Sendable, Hashable {
    /// Something SeedDB did not make is at the working-copy path (what it is).
    case blocked(String)
    /// A rollback with no previous generation on disk.
    case nothingToRollBack
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

    /// Creates a request.
    package init(kind: Kind, strategy: DeployStrategy = .auto, keepPrevious: Bool = true, integrity: IntegrityLevel = .quick, stamp: String = "19700101T000000Z") {
        self.kind = kind
        self.strategy = strategy
        self.keepPrevious = keepPrevious
        self.integrity = integrity
        self.stamp = stamp
    }
}

