import SeedDBCore
import Testing

/// The deploy plan, table-driven: every state SeedDB can find (settings valid, damaged or
/// missing; the working copy absent, a file, SeedDB's link, blocked; an interrupted run
/// before or after its switch; a hold; a previous generation) × every kind of run, to the
/// action, every choice (strategy, previous generation, integrity, adoption), the steps
/// and which run under the writer's lock, or to a refusal.
@Suite struct DeployPlannerTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var label: String
        var observed: DeployObservation
        var request: DeployRequest
        var action: DeployAction
        var strategy: DeployStrategy?
        var keepsPrevious = false
        var dropsPrevious = false
        var adopted = false
        var finishes = false
        var integrity: IntegrityLevel = .quick
        var steps: [DeployStep]
        var locked: [DeployStep] = []
        var testDescription: String { label }
    }

    static func version(_ text: String) -> SeedVersion { try! SeedVersion(text) }

    static func observed(
        recorded: String? = "1", current: String = "2",
        workingCopy: DeployObservation.WorkingCopy = .generation(1), recordedGeneration: Int? = 1, generations: [Int]? = nil,
        previous: Bool = false, interrupted: DeployObservation.Interrupted? = nil, heldFrom: String? = nil,
        checked: IntegrityLevel? = nil, usage: DeployObservation.Usage = .idle
    ) -> DeployObservation {
        DeployObservation(
            recorded: recorded.map(version), recordedGeneration: recordedGeneration,
            interrupted: interrupted, heldFrom: heldFrom.map(version), previousRecorded: previous,
            workingCopy: workingCopy, generationFiles: generations ?? workingCopy.generationNumber.map { [$0] } ?? [],
            previousExists: previous, current: version(current), alreadyChecked: checked, usage: usage)
    }

    static let replaceSteps: [DeployStep] = [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp]
    static let swapLocked: [DeployStep] = [.carry, .install, .keepPrevious, .record]
    static let liveSteps: [DeployStep] = [.stage, .check, .withdraw, .carry, .keepPrevious, .install, .record, .cleanUp]

    static let rows: [Row] = [
        Row(label: "up to date: nothing", observed: observed(recorded: "2"), request: DeployRequest(kind: .deploy),
            action: .unchanged, strategy: nil, integrity: .none, steps: []),
        Row(label: "first install: swap, withdraw names the run, nothing carried",
            observed: observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy), action: .installed, strategy: .swap,
            steps: [.stage, .check, .withdraw, .install, .record, .cleanUp]),
        Row(label: "a database with no record (settings missing): adopted, kept as previous, its tables carried",
            observed: observed(recorded: nil, workingCopy: .file, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, adopted: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "settings damaged, SeedDB's link found: adopted",
            observed: observed(recorded: nil, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, adopted: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "adopted even with generations off: the database found is never thrown away",
            observed: observed(recorded: nil, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy, keepPrevious: false), action: .replaced, strategy: .swap, keepsPrevious: true, adopted: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "reseed of an adopted database: reseeded, kept",
            observed: observed(recorded: nil, recordedGeneration: nil),
            request: DeployRequest(kind: .reseed), action: .reseeded, strategy: .swap, keepsPrevious: true, adopted: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "upgrade, idle: swap, keep previous, all under the writer's lock", observed: observed(),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "upgrade, a handle open: auto goes live, record after the commit",
            observed: observed(usage: .init(handleOpen: true)), request: DeployRequest(kind: .deploy),
            action: .replaced, strategy: .live, keepsPrevious: true, steps: liveSteps, locked: [.carry, .keepPrevious]),
        Row(label: "upgrade, a swap found connections busy: auto goes live", observed: observed(usage: .init(connectionsBusy: true)),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .live, keepsPrevious: true,
            steps: liveSteps, locked: [.carry, .keepPrevious]),
        Row(label: "upgrade, connections busy: swap asked, swap planned (it waits)",
            observed: observed(usage: .init(connectionsBusy: true)), request: DeployRequest(kind: .deploy, strategy: .swap),
            action: .replaced, strategy: .swap, keepsPrevious: true, steps: replaceSteps, locked: swapLocked),
        Row(label: "live asked while idle: live", observed: observed(), request: DeployRequest(kind: .deploy, strategy: .live),
            action: .replaced, strategy: .live, keepsPrevious: true, steps: liveSteps, locked: [.carry, .keepPrevious]),
        Row(label: "live asked, nothing there: swap", observed: observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy, strategy: .live), action: .installed, strategy: .swap,
            steps: [.stage, .check, .withdraw, .install, .record, .cleanUp]),
        Row(label: "cache cleared: restore, nothing to keep",
            observed: observed(recorded: "2", workingCopy: .absent, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy), action: .restored, strategy: .swap,
            steps: [.stage, .check, .withdraw, .install, .record, .cleanUp]),
        Row(label: "reseed replaces the previous generation", observed: observed(recorded: "2", previous: true),
            request: DeployRequest(kind: .reseed), action: .reseeded, strategy: .swap, keepsPrevious: true, dropsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "generations off: the existing previous goes", observed: observed(previous: true),
            request: DeployRequest(kind: .deploy, keepPrevious: false), action: .replaced, strategy: .swap, dropsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "generations off, none there: no keep-previous step", observed: observed(),
            request: DeployRequest(kind: .deploy, keepPrevious: false), action: .replaced, strategy: .swap,
            steps: [.stage, .check, .withdraw, .carry, .install, .record, .cleanUp], locked: [.carry, .install, .record]),
        Row(label: "rollback consumes the previous generation and carries the user's tables", observed: observed(recorded: "2", previous: true),
            request: DeployRequest(kind: .rollback), action: .rolledBack, strategy: .swap, dropsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "rollback with no record: the database found becomes the previous generation",
            observed: observed(recorded: nil, previous: true),
            request: DeployRequest(kind: .rollback), action: .rolledBack, strategy: .swap, keepsPrevious: true, dropsPrevious: true,
            adopted: true, steps: replaceSteps, locked: swapLocked),
        Row(label: "held: the version rolled back from is left alone", observed: observed(recorded: "1", current: "2", heldFrom: "2"),
            request: DeployRequest(kind: .deploy), action: .held, strategy: nil, integrity: .none, steps: []),
        Row(label: "held, but a new version ships: replaced", observed: observed(recorded: "1", current: "3", heldFrom: "2"),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "held, reseed ends the hold", observed: observed(recorded: "1", current: "2", heldFrom: "2"),
            request: DeployRequest(kind: .reseed), action: .reseeded, strategy: .swap, keepsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "interrupted before its switch: planned from the record it replaced",
            observed: observed(recorded: nil, generations: [1, 2], interrupted: .init(version: version("2"), generation: 2, replacing: version("1"))),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "interrupted after its switch, old generation still named: finished (keep it, record)",
            observed: observed(recorded: nil, workingCopy: .generation(2), generations: [1, 2],
                               interrupted: .init(version: version("2"), generation: 2, replacing: version("1"))),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, finishes: true,
            integrity: .none, steps: [.keepPrevious, .record, .cleanUp]),
        Row(label: "interrupted after it kept the previous: finished (record)",
            observed: observed(recorded: nil, workingCopy: .generation(2), generations: [2], previous: true,
                               interrupted: .init(version: version("2"), generation: 2, replacing: version("1"))),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, finishes: true,
            integrity: .none, steps: [.record, .cleanUp]),
        Row(label: "interrupted rollback after its switch: finished, the restored previous set aside",
            observed: observed(recorded: nil, workingCopy: .generation(3), recordedGeneration: 2, generations: [2, 3], previous: true,
                               interrupted: .init(version: version("1"), generation: 3, replacing: version("2"), isRollback: true)),
            request: DeployRequest(kind: .rollback), action: .rolledBack, strategy: .swap, dropsPrevious: true, finishes: true,
            integrity: .none, steps: [.keepPrevious, .record, .cleanUp]),
        Row(label: "interrupted first install after its switch: finished (record)",
            observed: observed(recorded: nil, workingCopy: .generation(1), recordedGeneration: nil,
                               interrupted: .init(version: version("2"), generation: 1, replacing: nil)),
            request: DeployRequest(kind: .deploy), action: .installed, strategy: .swap, finishes: true,
            integrity: .none, steps: [.record, .cleanUp]),
        Row(label: "link removed, recorded generation up to date: the link is put back, nothing copied",
            observed: DeployObservation(recorded: version("2"), recordedGeneration: 1, workingCopy: .generation(1), linkMissing: true,
                                        generationFiles: [1], current: version("2")),
            request: DeployRequest(kind: .deploy), action: .restored, strategy: nil, integrity: .none, steps: [.relink, .cleanUp]),
        Row(label: "link removed, outdated: replaced, the recorded generation kept as previous",
            observed: DeployObservation(recorded: version("1"), recordedGeneration: 1, workingCopy: .generation(1), linkMissing: true,
                                        generationFiles: [1], current: version("2")),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true,
            steps: replaceSteps, locked: swapLocked),
        Row(label: "content already checked as strictly: no check", observed: observed(checked: .quick),
            request: DeployRequest(kind: .deploy), action: .replaced, strategy: .swap, keepsPrevious: true, integrity: .none,
            steps: [.stage, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp], locked: swapLocked),
        Row(label: "checked less strictly than asked: full check", observed: observed(checked: .quick),
            request: DeployRequest(kind: .deploy, integrity: .full), action: .replaced, strategy: .swap, keepsPrevious: true,
            integrity: .full, steps: replaceSteps, locked: swapLocked),
        Row(label: "integrity none: no check", observed: observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil),
            request: DeployRequest(kind: .deploy, integrity: .none), action: .installed, strategy: .swap, integrity: .none,
            steps: [.stage, .withdraw, .install, .record, .cleanUp]),
    ]

    @Test(arguments: rows)
    func plans(_ row: Row) throws {
        let plan = try DeployPlanner.plan(row.observed, row.request)
        #expect(plan.action == row.action)
        #expect(plan.strategy == row.strategy)
        #expect(plan.keepsPrevious == row.keepsPrevious)
        #expect(plan.dropsPrevious == row.dropsPrevious)
        #expect(plan.adopted == row.adopted)
        #expect(plan.finishesInterrupted == row.finishes)
        #expect(plan.integrity == row.integrity)
        #expect(plan.names == row.steps)
        #expect(plan.writerLockedSteps == row.locked)
    }

    @Test func everyPlanEndsByRecordingThenCleaningUp() throws {
        for row in Self.rows where row.action.copies && !row.steps.contains(.relink) {
            let plan = try DeployPlanner.plan(row.observed, row.request)
            #expect(plan.names.suffix(2) == [.record, .cleanUp], "\(row.label)")
            #expect(plan.names.first == (row.finishes ? plan.names.first : .stage), "\(row.label)")
        }
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var label: String
        var observed: DeployObservation
        var kind: DeployRequest.Kind
        var refusal: DeployRefusal
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [DeployRequest.Kind.deploy, .reseed, .rollback].flatMap { kind in
        [
            Refusal(label: "a directory at the path, \(kind)", observed: observed(workingCopy: .blocked("a directory"), previous: true),
                    kind: kind, refusal: .blocked("a directory")),
            Refusal(label: "a foreign link, \(kind)", observed: observed(recorded: nil, workingCopy: .blocked("a link"), previous: true),
                    kind: kind, refusal: .blocked("a link")),
            Refusal(label: "a dangling link, \(kind)", observed: observed(workingCopy: .blocked("a link to a file that is gone"), previous: true),
                    kind: kind, refusal: .blocked("a link to a file that is gone")),
        ]
    } + [
        Refusal(label: "rollback with no previous generation on disk", observed: observed(recorded: "2"), kind: .rollback, refusal: .nothingToRollBack),
    ]

    @Test(arguments: refusals)
    func refuses(_ row: Refusal) {
        #expect(throws: row.refusal) { try DeployPlanner.plan(row.observed, DeployRequest(kind: row.kind)) }
    }

    /// A new generation's name is one no file has: not a generation file, not a sidecar
    /// of a generation whose file is gone (SQLite would replay a stale `-wal` or
    /// `-journal` into the new file), not the record's, the link's or an interrupted
    /// run's.
    @Test(arguments: [
        (observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil), 1),
        (observed(), 2),
        (observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil, generations: []), 1),
        (DeployObservation(recorded: nil, workingCopy: .absent, sidecarGenerations: [1], current: version("2")), 2),
        (DeployObservation(recorded: version("1"), recordedGeneration: 3, workingCopy: .generation(3), generationFiles: [3],
                           sidecarGenerations: [3, 7], current: version("2")), 8),
        (observed(recordedGeneration: 5), 6),
        (observed(recorded: nil, generations: [1], interrupted: .init(version: version("2"), generation: 4, replacing: version("1"))), 5),
        // Past the largest number a generation's name can carry (18 digits), the lowest
        // number no file has: one more would be a name SeedDB itself does not read back.
        (DeployObservation(recorded: version("1"), recordedGeneration: 1, workingCopy: .generation(1), generationFiles: [1],
                           sidecarGenerations: [SeedPaths.largestGeneration, 2], current: version("2")), 3),
    ])
    func aNewGenerationTakesANameNoFileHas(_ observed: DeployObservation, _ generation: Int) throws {
        let plan = try DeployPlanner.plan(observed, DeployRequest(kind: .deploy))
        #expect(plan.generation == generation)
        #expect((1...SeedPaths.largestGeneration).contains(generation))
        let sidecars = Set(observed.sidecarGenerations).union(observed.generationFiles)
        #expect(!sidecars.contains(generation))
    }

    /// A run killed before it switched the link (an upgrade to 3, or a rollback to 1),
    /// then a `deploy` that copies nothing (version 2, up to date): the killed swap is
    /// undone first, its record put back and its staged generation removed. A killed live
    /// replace may have committed: its record is never put back (the copy may hold the
    /// other content). A deploy of a new version replaces the marker with its own.
    @Test(arguments: [("2", false), ("2", true), ("3", false)])
    func aRunKilledBeforeItsSwitchIsUndoneByARunThatCopiesNothing(_ shipped: String, rollback: Bool) throws {
        let replaced = DeployRecord(version: Self.version("2"), sha256: SHA256Digest(bytes: Array(repeating: 1, count: 32)), size: 1, deployedAt: "")
        var swap = DeployObservation.Interrupted(version: Self.version(rollback ? "1" : "3"), generation: 3, replacing: Self.version("2"), isRollback: rollback)
        swap.replacingRecord = replaced
        var observed = Self.observed(recorded: nil, current: shipped, workingCopy: .generation(2), recordedGeneration: 2, generations: [2, 3],
                                     previous: rollback, interrupted: swap)
        let plan = try DeployPlanner.plan(observed, DeployRequest(kind: .deploy))
        guard shipped == "2" else {
            #expect(plan.withdraw != nil && plan.action == .replaced, "\(plan.steps)")
            return
        }
        #expect(plan.steps.first == .reinstate(replaced), "\(plan.steps)")
        #expect(plan.names == [.reinstate, .cleanUp] && plan.finishesInterrupted && !plan.action.copies)

        var live = DeployObservation.Interrupted(version: Self.version(rollback ? "1" : "3"), generation: nil, replacing: Self.version("2"), isRollback: rollback)
        live.replacingRecord = replaced
        observed.interrupted = live
        observed.generationFiles = [2]
        #expect(try !DeployPlanner.plan(observed, DeployRequest(kind: .deploy)).names.contains(.reinstate))
    }

    /// A rollback with nothing to roll back, after a swap killed before its switch (a
    /// reseed, no previous generation yet): the killed run is undone first, as any run
    /// that copies nothing undoes it; the caller then plans the rollback again, which is
    /// refused. It once refused at once and left the marker: `status` said
    /// `not-installed` for a working copy in place.
    @Test func aRollbackWithNothingToRollBackUndoesARunKilledBeforeItsSwitch() throws {
        let replaced = DeployRecord(version: Self.version("2"), sha256: nil, size: 1, deployedAt: "")
        var reseed = DeployObservation.Interrupted(version: Self.version("2"), generation: 3, replacing: Self.version("2"))
        reseed.replacingRecord = replaced
        let killed = Self.observed(recorded: nil, current: "2", workingCopy: .generation(2), recordedGeneration: 2, generations: [2, 3], interrupted: reseed)
        let plan = try DeployPlanner.plan(killed, DeployRequest(kind: .rollback))
        #expect(plan.names == [.reinstate, .cleanUp] && plan.undoesInterrupted && !plan.finishesWhatWasAsked, "\(plan.steps)")
        // Undone, nothing to roll back: refused.
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(Self.observed(recorded: "2", current: "2", workingCopy: .generation(2), recordedGeneration: 2), DeployRequest(kind: .rollback)) }
    }

    /// A rollback of a manifest's seed already rolled back from the version the manifest
    /// ships (recorded at 1, held from 2, nothing left to roll back) is held: the rerun of
    /// a release's rollback killed after this seed passes over it. By name it is refused;
    /// so is a manifest's seed held from another version, one whose link was removed, and
    /// one whose copy no record matches (a file put in the link's place: a deploy adopts
    /// it, as it holds only a recorded copy).
    @Test func aManifestsSeedRolledBackFromTheVersionItShipsIsHeldByARollback() throws {
        var fromManifest = DeployRequest(kind: .rollback)
        fromManifest.fromManifest = true
        let rolledBack = Self.observed(recorded: "1", current: "2", heldFrom: "2")
        #expect(try DeployPlanner.plan(rolledBack, fromManifest) == .held)
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(rolledBack, DeployRequest(kind: .rollback)) }
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(Self.observed(recorded: "1", current: "3", heldFrom: "2"), fromManifest) }
        var linkRemoved = rolledBack
        linkRemoved.linkMissing = true
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(linkRemoved, fromManifest) }
        linkRemoved.workingCopy = .absent
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(linkRemoved, fromManifest) }
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(Self.observed(recorded: nil, current: "2", workingCopy: .file, heldFrom: "2"), fromManifest) }
    }

    /// The same for a killed run that withdrew no record: an adoption of a database found
    /// with none (a swap, or a switch to a read-only seed's link), or a first install.
    /// Only the marker goes (`reinstate(nil)`): the rollback once refused with it still there.
    @Test(arguments: [DeployObservation.WorkingCopy.file, .absent])
    func aRollbackWithNothingToRollBackUndoesAKilledAdoptionOrInstall(_ workingCopy: DeployObservation.WorkingCopy) throws {
        let adopting = workingCopy == .file
        var swap = DeployObservation.Interrupted(version: Self.version("2"), generation: 1, replacing: nil, adopting: adopting)
        // (An install's generation file not in place yet: one in place with no link is
        // taken for switched, the link then removed, and finished.)
        var observed = Self.observed(recorded: nil, current: "2", workingCopy: workingCopy, recordedGeneration: nil, generations: adopting ? [1] : [], interrupted: swap)
        var plan = try DeployPlanner.plan(observed, DeployRequest(kind: .rollback))
        #expect(plan.steps.first == .reinstate(nil) && plan.names == [.reinstate, .cleanUp] && plan.undoesInterrupted, "\(plan.steps)")
        swap.generation = nil
        swap.seedLink = "/usr/share/levels/levels.sqlite"
        observed.interrupted = swap
        observed.generationFiles = []
        plan = try DeployPlanner.plan(observed, DeployRequest(kind: .rollback))
        #expect(plan.steps.first == .reinstate(nil) && plan.undoesInterrupted, "\(plan.steps)")
        // A deploy finishes or replaces such a run: it copies (or links) anyway.
        #expect(try !DeployPlanner.plan(observed, DeployRequest(kind: .deploy)).undoesInterrupted)
    }

    @Test func aLiveReplaceNamesNoGeneration() throws {
        let plan = try DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy, strategy: .live))
        #expect(plan.strategy == .live && plan.generation == nil)
    }

    /// The sidecars of a generation whose database file is gone are disposable; those of
    /// a generation that is there are not (they may hold a crashed app's commits).
    @Test func theSidecarsOfAGoneGenerationAreDisposable() {
        let observed = DeployObservation(
            recorded: Self.version("1"), recordedGeneration: 2, workingCopy: .generation(2), generationFiles: [2],
            sidecarGenerations: [1, 2], current: Self.version("1"))
        #expect(observed.disposableGenerations == [1])
    }

    /// A previous generation SeedDB cannot account for (adopted, or with no record) is
    /// kept as an adopted copy when a replace would drop it; a stamp already taken gets a
    /// counter. One it recorded from a seed goes as before; a rollback consumes its own.
    @Test func anUnaccountedPreviousGenerationIsKeptAsAnAdoptedCopy() throws {
        var adoptedPrevious = Self.observed(previous: true)
        adoptedPrevious.previousAdopted = true
        let request = DeployRequest(kind: .deploy, stamp: "20261126T071500Z")
        #expect(try DeployPlanner.plan(adoptedPrevious, request).keepsDroppedPreviousAs == "20261126T071500Z")
        adoptedPrevious.adoptedCopies = ["20261126T071500Z"]
        #expect(try DeployPlanner.plan(adoptedPrevious, request).keepsDroppedPreviousAs == "20261126T071500Z-2")
        var unrecorded = Self.observed(recorded: nil, recordedGeneration: nil, previous: true)
        unrecorded.previousRecorded = false
        let adopting = try DeployPlanner.plan(unrecorded, request)
        #expect(adopting.adopted && adopting.keepsDroppedPreviousAs == "20261126T071500Z")
        #expect(try DeployPlanner.plan(Self.observed(previous: true), request).keepsDroppedPreviousAs == nil)
        #expect(try DeployPlanner.plan(Self.observed(previous: true), DeployRequest(kind: .deploy, keepPrevious: false)).keepsDroppedPreviousAs == nil)
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.previousAdopted = true
        #expect(try DeployPlanner.plan(rollback, DeployRequest(kind: .rollback)).keepsDroppedPreviousAs == nil)
    }

    /// A live replace killed after its snapshot became the previous generation: the
    /// rerun takes no second snapshot (it would hold what the killed run may have
    /// installed) and records the file there as the replaced version's.
    @Test(arguments: [DeployStrategy.auto, .live])
    func aKilledLiveReplacesSnapshotIsRecordedNotTakenAgain(_ strategy: DeployStrategy) throws {
        var observed = Self.observed(recorded: nil, previous: true,
                                     interrupted: .init(version: Self.version("2"), generation: nil, replacing: Self.version("1"), previousIsSnapshot: true))
        observed.interrupted?.snapshot = SHA256Digest(bytes: Array(repeating: UInt8(7), count: 32))
        let plan = try DeployPlanner.plan(observed, DeployRequest(kind: .deploy, strategy: strategy))
        #expect(plan.action == .replaced)
        #expect(plan.previousAlreadyKept && !plan.keepsPrevious && !plan.dropsPrevious)
        #expect(!plan.names.contains(.keepPrevious))
        var notTheSnapshot = observed
        notTheSnapshot.interrupted?.previousIsSnapshot = false
        let redo = try DeployPlanner.plan(notTheSnapshot, DeployRequest(kind: .deploy, strategy: strategy))
        #expect(!redo.previousAlreadyKept && redo.keepsPrevious && redo.dropsPrevious)
    }

    /// A live rollback drops the previous generation it restores only after its commit
    /// (until then it may be the only copy of that content); a live replace keeps its
    /// snapshot inside the backup's lock, before the commit.
    @Test func aLiveRollbackDropsThePreviousGenerationAfterItsCommit() throws {
        let rollback = try DeployPlanner.plan(Self.observed(recorded: "2", previous: true), DeployRequest(kind: .rollback, strategy: .live))
        #expect(rollback.names == [.stage, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp])
        #expect(rollback.writerLockedSteps == [.carry])
        let replace = try DeployPlanner.plan(Self.observed(previous: true), DeployRequest(kind: .deploy, strategy: .live))
        #expect(replace.names == Self.liveSteps && replace.writerLockedSteps == [.carry, .keepPrevious])
    }

    /// A live rollback killed after its commit: the previous generation is gone (it is
    /// dropped only after the commit), so the rerun records the rollback.
    @Test func aLiveRollbackKilledAfterItsCommitIsFinishedByItsRecord() throws {
        let killed = Self.observed(recorded: nil, interrupted: .init(version: Self.version("1"), generation: nil, replacing: Self.version("2"), isRollback: true))
        let plan = try DeployPlanner.plan(killed, DeployRequest(kind: .rollback))
        #expect(plan.action == .rolledBack && plan.names == [.record, .cleanUp] && plan.finishesInterrupted)
        var beforeCommit = killed
        beforeCommit.previousExists = true
        #expect(try DeployPlanner.plan(beforeCommit, DeployRequest(kind: .rollback)).names.first == .stage)
    }

    /// A swap that adopted the database found, killed after its switch, keeps that
    /// database as the previous generation: whether it is still under its generation
    /// name or already renamed (and, for a rollback, whether the restored previous
    /// generation is still to be dropped).
    @Test func aKilledAdoptingRunKeepsTheAdoptedDatabase() throws {
        let replace = DeployObservation.Interrupted(version: Self.version("2"), generation: 2, replacing: nil, replacingGeneration: 1, adopting: true)
        let oldThere = Self.observed(recorded: nil, workingCopy: .generation(2), recordedGeneration: nil, generations: [1, 2], interrupted: replace)
        let plan = try DeployPlanner.plan(oldThere, DeployRequest(kind: .deploy))
        #expect(plan.adopted && plan.keepsPrevious && !plan.dropsPrevious && plan.names == [.keepPrevious, .record, .cleanUp])
        var rollback = replace
        rollback.isRollback = true
        var restoredStillThere = oldThere
        restoredStillThere.interrupted = rollback
        restoredStillThere.previousExists = true
        let finishing = try DeployPlanner.plan(restoredStillThere, DeployRequest(kind: .rollback))
        #expect(finishing.keepsPrevious && finishing.dropsPrevious)
        var alreadyRenamed = restoredStillThere
        alreadyRenamed.generationFiles = [2]
        let renamed = try DeployPlanner.plan(alreadyRenamed, DeployRequest(kind: .rollback))
        #expect(renamed.keepsPrevious && !renamed.dropsPrevious, "the adopted database, now the previous generation, is kept")
    }

    /// A swap over a regular file (a database put in place, adopted): killed before its
    /// switch, its new generation is disposable only while the marker's file is the one
    /// in place; killed after, the finish keeps the held file that is the marker's as the
    /// previous generation, and any other held copy as an adopted copy.
    @Test func aKilledSwapOverARegularFileIsFinishedFromItsMarkersFile() throws {
        var replace = DeployObservation.Interrupted(version: Self.version("1"), generation: 1, replacing: nil, adopting: true)
        let unproved = Self.observed(recorded: nil, current: "1", workingCopy: .file, recordedGeneration: nil, generations: [1], interrupted: replace)
        #expect(unproved.disposableGenerations == [], "another file in place: the generation may have been linked")
        replace.replacedFileInPlace = true
        let inPlace = Self.observed(recorded: nil, current: "1", workingCopy: .file, recordedGeneration: nil, generations: [1], interrupted: replace)
        #expect(inPlace.disposableGenerations == [1])

        replace.replacedFileInPlace = false
        replace.heldReplacedFile = "/data/.levels.sqlite.seeddb-x.old.tmp"
        var switched = Self.observed(recorded: nil, current: "1", workingCopy: .generation(1), recordedGeneration: nil, generations: [1], interrupted: replace)
        switched.heldCopies = ["/data/.levels.sqlite.seeddb-x.old.tmp", "/data/.levels.sqlite.seeddb-y.old.tmp"]
        let finishing = try DeployPlanner.plan(switched, DeployRequest(kind: .deploy, stamp: "20261128T000000Z"))
        #expect(finishing.finishesInterrupted && finishing.adopted && finishing.keepsPrevious)
        let keep = finishing.steps.compactMap { if case .keepPrevious(let keep) = $0 { keep } else { nil } }.first
        #expect(keep?.finishesHeldFile == "/data/.levels.sqlite.seeddb-x.old.tmp" && keep?.keep == .oldContent)
        #expect(finishing.keepsHeldCopies == [PlannedStep.HeldCopy(path: "/data/.levels.sqlite.seeddb-y.old.tmp", stamp: "20261128T000000Z")])

        // The same over a file put where a read-only seed's link was (the entry still
        // names the link): the held file is kept, never retired (it once was).
        var overLink = switched
        overLink.recordedSeedLink = "/usr/share/levels/levels.sqlite"
        overLink.interrupted?.replacedAFile = true
        let finishingOverLink = try DeployPlanner.plan(overLink, DeployRequest(kind: .deploy, stamp: "20261128T000000Z"))
        let keptOverLink = finishingOverLink.steps.compactMap { if case .keepPrevious(let keep) = $0 { keep } else { nil } }.first
        #expect(keptOverLink?.finishesHeldFile == "/data/.levels.sqlite.seeddb-x.old.tmp" && keptOverLink?.keep == .oldContent, "\(finishingOverLink.steps)")

        // A rollback that adopted the file, killed after its switch: the previous
        // generation it restored is set aside (its content is the new generation's, and
        // the undo needs it) before the held file takes its name; it once was renamed over.
        var rollback = DeployObservation.Interrupted(version: Self.version("1"), generation: 2, replacing: nil, isRollback: true, adopting: true)
        rollback.heldReplacedFile = "/data/.levels.sqlite.seeddb-x.old.tmp"
        rollback.replacedAFile = true
        var rolledBack = Self.observed(recorded: nil, current: "1", workingCopy: .generation(2), recordedGeneration: nil, generations: [2], previous: true, interrupted: rollback)
        rolledBack.heldCopies = ["/data/.levels.sqlite.seeddb-x.old.tmp"]
        let finishingRollback = try DeployPlanner.plan(rolledBack, DeployRequest(kind: .rollback))
        let keptByRollback = finishingRollback.steps.compactMap { if case .keepPrevious(let keep) = $0 { keep } else { nil } }.first
        #expect(keptByRollback?.drop == .setAside && keptByRollback?.finishesHeldFile == "/data/.levels.sqlite.seeddb-x.old.tmp"
            && keptByRollback?.keep == .oldContent, "\(finishingRollback.steps)")
        #expect(finishingRollback.action == .rolledBack && finishingRollback.finishesWhatWasAsked)
    }

    /// A run that finishes a killed run of what it was asked (a reseed of the version
    /// asked, a deploy of it, a rollback) is that run: the plan says so, and a reseed's
    /// finish reports `reseeded`. A single seed's run and a release (`--manifest`) both
    /// stop there: a reseed once more would replace the previous generation the finish
    /// just kept, with merging off the only copy of what the user wrote. Any other finish
    /// is followed by what was asked.
    @Test func aFinishIsTheRunAskedOnlyWhenTheKilledRunWasThatRun() throws {
        func plan(_ kind: DeployRequest.Kind, killed: DeployObservation.Interrupted, current: String = "2", readOnly: Bool = false) throws -> DeployPlan {
            var observed = Self.observed(recorded: "1", current: current, workingCopy: .generation(2), recordedGeneration: 1, generations: [1, 2], interrupted: killed)
            if readOnly { observed.readOnlySeed = ReadOnlySeed(path: "/usr/share/levels/levels.sqlite") }
            return try DeployPlanner.plan(observed, DeployRequest(kind: kind))
        }
        let reseed = DeployObservation.Interrupted(version: Self.version("2"), generation: 2, replacing: Self.version("2"))
        let upgrade = DeployObservation.Interrupted(version: Self.version("2"), generation: 2, replacing: Self.version("1"))
        let rollback = DeployObservation.Interrupted(version: Self.version("1"), generation: 2, replacing: Self.version("2"), isRollback: true)

        let reseedFinished = try plan(.reseed, killed: reseed)
        #expect(reseedFinished.finishesInterrupted && reseedFinished.finishesWhatWasAsked && reseedFinished.action == .reseeded)
        #expect(try plan(.deploy, killed: reseed).finishesWhatWasAsked)
        // A finish says what the killed run was: a reseed by its marker, whoever finishes it.
        var markedReseed = reseed
        markedReseed.isReseed = true
        #expect(try plan(.deploy, killed: reseed).action == .replaced)
        #expect(try plan(.deploy, killed: markedReseed).action == .reseeded)
        #expect(try plan(.deploy, killed: upgrade).finishesWhatWasAsked)
        #expect(try plan(.rollback, killed: rollback).finishesWhatWasAsked)

        // Another run than the one asked: finished, then what was asked.
        let upgradeFinished = try plan(.reseed, killed: upgrade)
        #expect(upgradeFinished.finishesInterrupted && !upgradeFinished.finishesWhatWasAsked && upgradeFinished.action == .replaced)
        #expect(try !plan(.reseed, killed: reseed, current: "3").finishesWhatWasAsked)
        #expect(try !plan(.deploy, killed: upgrade, current: "3").finishesWhatWasAsked)
        #expect(try !plan(.deploy, killed: rollback).finishesWhatWasAsked)
        #expect(try !plan(.reseed, killed: rollback).finishesWhatWasAsked)
        // A killed copy's reseed is not a read-only reseed's: that one links next.
        #expect(try !plan(.reseed, killed: reseed, readOnly: true).finishesWhatWasAsked)
        // A reseed replaces the working copy by the seed: so did a killed install or
        // adoption of the version asked.
        let adoption = DeployObservation.Interrupted(version: Self.version("2"), generation: 2, replacing: nil, adopting: true)
        let adoptionFinished = try plan(.reseed, killed: adoption)
        #expect(adoptionFinished.finishesWhatWasAsked && adoptionFinished.action == .reseeded)

        // A killed read-only link's finish records the seed unread: what was asked, only
        // while the seed can be linked (the pass after it refuses one gone since).
        var link = DeployObservation.Interrupted(version: Self.version("2"), generation: nil, replacing: Self.version("1"))
        link.seedLink = "/usr/share/levels/levels.sqlite"
        var linked = Self.observed(recorded: "1", current: "2", workingCopy: .seedLink(link.seedLink!), recordedGeneration: 1, generations: [1], interrupted: link)
        linked.readOnlySeed = ReadOnlySeed(path: link.seedLink!)
        let linkFinished = try DeployPlanner.plan(linked, DeployRequest(kind: .deploy))
        #expect(linkFinished.finishesInterrupted && linkFinished.finishesWhatWasAsked)
        linked.readOnlySeed?.missing = true
        let seedGone = try DeployPlanner.plan(linked, DeployRequest(kind: .deploy))
        #expect(seedGone.finishesInterrupted && !seedGone.finishesWhatWasAsked)
        // Nothing killed: nothing finished.
        #expect(try !DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy)).finishesWhatWasAsked)
    }

    /// The app's migrations are a step of their own (a kill point, a progress phase),
    /// after the copy and before the check; only a library caller with a migrator has it.
    @Test func migrationsAreAStepOfTheirOwn() throws {
        var request = DeployRequest(kind: .deploy)
        request.migrates = true
        #expect(try DeployPlanner.plan(Self.observed(), request).names == [.stage, .migrate, .check, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp])
        #expect(try !DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy)).steps.contains(.migrate))
    }

    /// A working copy that is the seed's own content, unwritten since its deploy, has
    /// nothing of the user's to merge: the replace skips the merge. Not for a database
    /// found with no record, nor a rollback (whose content is not the seed's).
    @Test func anUntouchedSeedIsReplacedWithoutAMerge() throws {
        var untouched = Self.observed()
        untouched.untouchedSeed = true
        var merging = DeployRequest(kind: .deploy)
        merging.merges = true
        #expect(try DeployPlanner.plan(untouched, merging).skipsMerge)
        #expect(try !DeployPlanner.plan(Self.observed(), merging).skipsMerge)
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.untouchedSeed = true
        var mergingRollback = DeployRequest(kind: .rollback)
        mergingRollback.merges = true
        #expect(try !DeployPlanner.plan(rollback, mergingRollback).skipsMerge)
    }

    /// A directory at `<name>.conflicts.json` was set aside by a merging run under a
    /// temporary name no run removes. A plan whose carry merges refuses it; one that merges
    /// nothing (merging off, a merge skipped for an unwritten copy, a first install) goes
    /// on and leaves it.
    @Test func aMergeRefusesADirectoryAtTheConflictsPath() throws {
        var blocked = Self.observed()
        blocked.conflictsFileIsADirectory = true
        var merging = DeployRequest(kind: .deploy)
        merging.merges = true
        #expect(throws: DeployRefusal.conflictsFileIsADirectory) { try DeployPlanner.plan(blocked, merging) }
        var reseed = merging
        reseed.kind = .reseed
        #expect(throws: DeployRefusal.conflictsFileIsADirectory) { try DeployPlanner.plan(blocked, reseed) }
        #expect(try DeployPlanner.plan(blocked, DeployRequest(kind: .deploy)).action == .replaced)
        var untouched = blocked
        untouched.untouchedSeed = true
        #expect(try DeployPlanner.plan(untouched, merging).skipsMerge)
        var first = Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil)
        first.conflictsFileIsADirectory = true
        #expect(try DeployPlanner.plan(first, merging).action == .installed)
    }

    /// `auto` names its live branch in the plan: a swap that finds the old copy busy gives
    /// up at once and the live plan runs; an asked-for swap waits; a first install has
    /// nothing to find busy.
    @Test func autoNamesItsLiveBranchInThePlan() throws {
        #expect(try DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy)).goesLiveWhenBusy)
        #expect(try !DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy, strategy: .swap)).goesLiveWhenBusy)
        let first = Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil)
        #expect(try !DeployPlanner.plan(first, DeployRequest(kind: .deploy)).goesLiveWhenBusy)
        var busy = Self.observed()
        busy.usage.connectionsBusy = true
        let live = try DeployPlanner.plan(busy, DeployRequest(kind: .deploy))
        #expect(live.strategy == .live && !live.goesLiveWhenBusy)
        // The branch is the plan of the same observation with the copy busy, made up front.
        #expect(try DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy)).whenBusy == live)
        #expect(live.steps.contains(.install(.live(from: .generation(1, linked: true)))))
    }

    /// The stage carries how the next merge base is kept: only for free when the seed
    /// merges nothing, by a copy where it cannot be free when it merges, not at all for a
    /// rollback (which puts the restored generation's base back).
    @Test func theStageSaysHowTheBaseIsKept() throws {
        func base(_ request: DeployRequest, _ observed: DeployObservation = Self.observed()) throws -> PlannedStep.BaseCopy? {
            for case .stage(let stage) in try DeployPlanner.plan(observed, request).steps { return stage.base }
            return nil
        }
        var merging = DeployRequest(kind: .deploy)
        merging.merges = true
        #expect(try base(DeployRequest(kind: .deploy)) == .clone)
        #expect(try base(merging) == .copy)
        #expect(try base(DeployRequest(kind: .rollback), Self.observed(recorded: "2", previous: true)) == PlannedStep.BaseCopy.none)
        // Only a first install checks the configured tables against the seed alone.
        var naming = DeployRequest(kind: .deploy)
        naming.namesTables = true
        let first = Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil)
        for case .stage(let stage) in try DeployPlanner.plan(first, naming).steps { #expect(stage.checksConfiguredTables) }
        for case .stage(let stage) in try DeployPlanner.plan(Self.observed(), naming).steps { #expect(!stage.checksConfiguredTables) }
    }

    /// Issue 30, item 3: the base is a hard link to the seed file only where that is
    /// asked for (system mode) and safe: a seed that merges, plain, on the working copy's
    /// file system, that only root can change. Otherwise today's reflink or copy; never
    /// for a rollback.
    @Test(arguments: [
        // (asked, plain, same file system, only root writes, merges) -> the base
        (true, true, true, true, true, PlannedStep.BaseCopy.linkToSeed),
        // A seed that merges nothing keeps a base only where it stays free (a reflink).
        (true, true, true, true, false, .clone),
        (false, true, true, true, true, .copy),
        (false, true, true, true, false, .clone),
        (true, false, true, true, true, .copy),
        (true, true, false, true, true, .copy),
        (true, true, true, false, true, .copy),
        (true, true, true, false, false, .clone),
    ])
    func theBaseIsAHardLinkToTheSeedOnlyWhereThatIsSafe(
        _ asked: Bool, _ plain: Bool, _ sameFileSystem: Bool, _ onlyRootWrites: Bool, _ merges: Bool, _ expected: PlannedStep.BaseCopy
    ) throws {
        var request = DeployRequest(kind: .deploy)
        request.merges = merges
        request.linksBaseToSeed = asked
        for first in [true, false] {
            var observed = first ? Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil) : Self.observed()
            observed.seedFile = DeployObservation.SeedFile(plain: plain, sameFileSystem: sameFileSystem, onlyRootWrites: onlyRootWrites)
            let bases = try DeployPlanner.plan(observed, request).steps.compactMap { step -> PlannedStep.BaseCopy? in
                if case .stage(let stage) = step { return stage.base } else { return nil }
            }
            #expect(bases == [expected], "first install: \(first)")
        }
        // A seed file not looked at is never linked; a rollback keeps no new base at all.
        #expect(try DeployPlanner.plan(Self.observed(), request).steps.contains { step in
            if case .stage(let stage) = step { return stage.base == (merges ? .copy : .clone) } else { return false }
        })
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.seedFile = DeployObservation.SeedFile(plain: true, sameFileSystem: true, onlyRootWrites: true)
        var rollingBack = request
        rollingBack.kind = .rollback
        for case .stage(let stage) in try DeployPlanner.plan(rollback, rollingBack).steps { #expect(stage.base == PlannedStep.BaseCopy.none) }
    }

    /// The carry a merging deploy of `observed` plans.
    static func mergingCarry(_ observed: DeployObservation) throws -> PlannedStep.Carry? {
        var merging = DeployRequest(kind: .deploy)
        merging.merges = true
        for case .carry(let carry) in try DeployPlanner.plan(observed, merging).steps { return carry }
        return nil
    }

    /// The carry carries the app-table rule and the merge's base, decided from the record
    /// and the base file as observed; the executor never hashes or reads the entry.
    @Test func theCarrySaysWhichTablesAreTheAppsAndWhichBaseTheMergeUses() throws {
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(1), count: 32))
        var observed = Self.observed()
        observed.records.current = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "", seedTables: ["levels"])
        #expect(try Self.mergingCarry(observed) == PlannedStep.Carry(
            appTables: .notInTheOldSeed(["levels"]), merge: .merge, base: .missing("is not known for the old copy (it was deployed with merging off, or a rollback could not restore its base)")))
        observed.records.base = digest
        #expect(try Self.mergingCarry(observed) == PlannedStep.Carry(appTables: .notInTheOldSeed(["levels"]), merge: .merge, base: .missing("is missing")))
        observed.baseFiles.base = true
        observed.baseFiles.baseMatchesRecord = false
        #expect(try Self.mergingCarry(observed)?.base == .missing("does not match the recorded seed"))
        observed.baseFiles.baseMatchesRecord = true
        #expect(try Self.mergingCarry(observed)?.base == .recorded)
        observed.untouchedSeed = true
        #expect(try Self.mergingCarry(observed)?.merge == .skipped)
        let adopted = Self.observed(recorded: nil, workingCopy: .file, recordedGeneration: nil)
        #expect(try Self.mergingCarry(adopted)?.appTables == .notInTheNewSeed)
    }

    /// A merge without its base is given the table digests recorded with the old copy,
    /// which tell the tables the user left alone (they take the new seed's rows); a merge
    /// with its base, and an adopted database's, are not.
    @Test func aMergeWithoutItsBaseIsGivenTheRecordedTableDigests() throws {
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(1), count: 32))
        let digests = ["levels": SHA256Digest(bytes: Array(repeating: UInt8(2), count: 32))]
        var observed = Self.observed()
        observed.records.current = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "", seedTables: ["levels"])
        observed.records.current?.tableDigests = digests
        #expect(try Self.mergingCarry(observed)?.unchangedIfDigests == digests)
        observed.baseFiles.base = true
        observed.records.base = digest
        observed.baseFiles.baseMatchesRecord = false
        #expect(try Self.mergingCarry(observed)?.unchangedIfDigests == digests, "a base that does not match is no base")
        observed.baseFiles.baseMatchesRecord = true
        #expect(try Self.mergingCarry(observed)?.unchangedIfDigests == nil)
        var adopted = Self.observed(recorded: nil, workingCopy: .file, recordedGeneration: nil)
        adopted.records.current = nil
        #expect(try Self.mergingCarry(adopted)?.unchangedIfDigests == nil)
    }

    /// Issue 30, item 1: a carry that replaces the user's changes to some table names the
    /// tables: against the base when it matches its record, else against the replaced
    /// record's table digests, else not knowing; not for a copy nobody wrote (nothing
    /// replaced), an adopted database (kept whole), or a policy that merges every table.
    @Test func theCarrySaysHowTheTablesWhoseChangesItReplacesAreFound() throws {
        func discards(_ observed: DeployObservation, replacing: Bool = true, kind: DeployRequest.Kind = .deploy) throws -> PlannedStep.Discards? {
            var request = DeployRequest(kind: kind)
            request.replacesEdits = replacing
            for case .carry(let carry) in try DeployPlanner.plan(observed, request).steps { return carry.discards }
            return nil
        }
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(1), count: 32))
        var observed = Self.observed()
        #expect(try discards(observed) == .unknown)
        #expect(try discards(observed, replacing: false) == PlannedStep.Discards.none)
        observed.records.current = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "")
        observed.records.current?.tableDigests = ["tags": digest]
        #expect(try discards(observed) == .againstDigests(["tags": digest]))
        observed.baseFiles = DeployObservation.BaseFiles(base: true, baseMatchesRecord: false)
        observed.records.base = digest
        #expect(try discards(observed) == .againstDigests(["tags": digest]), "a base that does not match is not compared with")
        observed.baseFiles.baseMatchesRecord = true
        #expect(try discards(observed) == .againstBase)
        #expect(try discards(observed, kind: .reseed) == .againstBase)
        observed.untouchedSeed = true
        #expect(try discards(observed) == .unwritten)
        let adopted = Self.observed(recorded: nil, workingCopy: .file, recordedGeneration: nil)
        #expect(try discards(adopted) == PlannedStep.Discards.none)
    }

    /// A reseed given its own merge carries with it; the seed's policy still decides the
    /// base kept. A deploy ignores a reseed's merge.
    @Test func aReseedsOwnMergeDecidesTheCarryNotTheBase() throws {
        func plan(_ kind: DeployRequest.Kind, seedMerges: Bool, reseedMerges: Bool?) throws -> (PlannedStep.CarryMerge?, PlannedStep.BaseCopy?) {
            var request = DeployRequest(kind: kind)
            request.merges = seedMerges
            request.reseedMerges = reseedMerges
            let steps = try DeployPlanner.plan(Self.observed(), request).steps
            var merge: PlannedStep.CarryMerge?
            var base: PlannedStep.BaseCopy?
            for step in steps {
                if case .carry(let carry) = step { merge = carry.merge }
                if case .stage(let stage) = step { base = stage.base }
            }
            return (merge, base)
        }
        #expect(try plan(.reseed, seedMerges: true, reseedMerges: false) == (.off, .copy))
        #expect(try plan(.reseed, seedMerges: false, reseedMerges: true) == (.merge, .clone))
        #expect(try plan(.reseed, seedMerges: true, reseedMerges: nil) == (.merge, .copy))
        #expect(try plan(.deploy, seedMerges: true, reseedMerges: false) == (.merge, .copy))
    }

    /// A seed that keeps no base has its tables hashed after the migrations and the check,
    /// before the marker, so a later replace with merging off can name what it replaces;
    /// a rollback takes the restored generation's digests as recorded.
    @Test func theTablesAreHashedForARecordThatKeepsNoBase() throws {
        var request = DeployRequest(kind: .deploy)
        request.recordsTableDigests = true
        request.migrates = true
        #expect(try DeployPlanner.plan(Self.observed(), request).names == [.stage, .migrate, .check, .fingerprint, .withdraw, .carry, .install, .keepPrevious, .record, .cleanUp])
        // A check the settings remember hands the step its digests, for the same content.
        var remembering = Self.observed()
        remembering.records.passedCheck = ValidationMemo(sha256: SHA256Digest(bytes: Array(repeating: UInt8(3), count: 32)), integrity: .quick)
        #expect(try DeployPlanner.plan(remembering, request).steps.contains(.fingerprint(remembered: remembering.records.passedCheck)))
        #expect(try !DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy)).names.contains(.fingerprint))
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(2), count: 32))
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.records.previous = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "", seedTables: ["tags"])
        rollback.records.previous?.tableDigests = ["tags": digest]
        var rollingBack = request
        rollingBack.kind = .rollback
        let plan = try DeployPlanner.plan(rollback, rollingBack)
        #expect(!plan.names.contains(.fingerprint))
        for case .stage(let stage) in plan.steps { #expect(stage.knownTables == .these(["tags"], digests: ["tags": digest])) }
    }

    /// A replace killed after its switch is finished by whatever command runs next; what
    /// the killed run was decides, not what was asked: its dropped previous generation,
    /// one SeedDB cannot account for, is kept as an adopted copy even under `rollback`.
    @Test(arguments: [DeployRequest.Kind.deploy, .reseed, .rollback])
    func aFinishedReplaceKeepsAnUnaccountedPreviousWhateverIsAsked(_ kind: DeployRequest.Kind) throws {
        var killed = Self.observed(recorded: nil, workingCopy: .generation(2), generations: [1, 2], previous: true,
                                   interrupted: .init(version: Self.version("2"), generation: 2, replacing: Self.version("1"), replacingGeneration: 1))
        killed.previousAdopted = true
        let plan = try DeployPlanner.plan(killed, DeployRequest(kind: kind, stamp: "20261126T100000Z"))
        #expect(plan.finishesInterrupted)
        #expect(plan.keepPrevious?.drop == .keepAsAdopted(stamp: "20261126T100000Z"))
    }

    /// A rollback never undoes a rotation nor lowers the pinned serial; it pins the
    /// restored generation's signature only over a lower serial of the same key (a
    /// downgrade allowed on purpose, rolled back) or when nothing is pinned.
    @Test func aRollbackKeepsThePinUnlessItRestoresAHigherSerialOfTheSameKey() throws {
        let rotated = SeedSignature(keyID: "B0B0B0B0B0B0B0B0", serial: 4)
        let older = SeedSignature(keyID: "A0A0A0A0A0A0A0A0", serial: 2)
        func pin(_ pinned: SeedSignature?, restored: SeedSignature?) -> SeedSignature? {
            var observed = Self.observed(recorded: "2", previous: true)
            observed.records.signature = pinned
            observed.records.previous = DeployRecord(version: Self.version("1"), sha256: nil, size: 1, deployedAt: "")
            observed.records.previous?.signature = restored
            return DeployPlanner.pinAfterRollback(observed)
        }
        #expect(pin(rotated, restored: older) == rotated, "a rotation is never undone")
        #expect(pin(SeedSignature(keyID: older.keyID, serial: 5), restored: older)?.serial == 5, "the serial never goes down")
        #expect(pin(SeedSignature(keyID: older.keyID, serial: 1), restored: older) == older, "a downgrade allowed on purpose, rolled back")
        #expect(pin(nil, restored: older) == older)
        #expect(pin(rotated, restored: nil) == rotated)
    }

    /// A merge whose old generation file the run does not keep (a rollback's, or with
    /// `keepPrevious` off) names the adopted copy it becomes if the merge replaces some of
    /// the user's changes: a stamp free on disk and in the plan. One that keeps it names none.
    @Test func aMergeThatKeepsNoPreviousNamesTheCopyItKeepsIfItCannotMergeEverything() throws {
        func carry(_ kind: DeployRequest.Kind, keepPrevious: Bool, adopted: [String] = []) throws -> PlannedStep.Carry? {
            var observed = Self.observed(recorded: "2", current: kind == .rollback ? "2" : "3", previous: true)
            observed.records.previous = DeployRecord(version: Self.version("1"), sha256: nil, size: 1, deployedAt: "")
            observed.adoptedCopies = adopted
            var request = DeployRequest(kind: kind)
            request.merges = true
            request.keepPrevious = keepPrevious
            request.stamp = "20261128T000000Z"
            for case .carry(let carry) in try DeployPlanner.plan(observed, request).steps { return carry }
            return nil
        }
        #expect(try carry(.rollback, keepPrevious: true)?.keepsOldCopyIfDiscarded == "20261128T000000Z")
        #expect(try carry(.rollback, keepPrevious: true, adopted: ["20261128T000000Z"])?.keepsOldCopyIfDiscarded == "20261128T000000Z-2")
        #expect(try carry(.deploy, keepPrevious: false)?.keepsOldCopyIfDiscarded == "20261128T000000Z")
        #expect(try carry(.deploy, keepPrevious: true)?.keepsOldCopyIfDiscarded == nil, "the previous generation keeps it")
    }

    /// What the withdrawn marker and the record say, decided from the records observed.
    @Test func theMarkerAndTheRecordAreDecidedFromWhatWasRecorded() throws {
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(3), count: 32))
        let pin = SeedSignature(keyID: "7B0460144D009C90", serial: 2)
        let old = SeedSignature(keyID: "7B0460144D009C90", serial: 1)
        var observed = Self.observed(recorded: "2", previous: true)
        observed.records.current = DeployRecord(version: Self.version("2"), sha256: digest, size: 1, deployedAt: "", seedTables: ["levels"])
        observed.records.previous = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "", base: digest)
        observed.records.previous?.signature = old
        observed.records.base = digest
        observed.records.signature = pin
        func steps(_ plan: DeployPlan) -> (PlannedStep.Withdraw?, PlannedStep.Record?) {
            var withdraw: PlannedStep.Withdraw?, record: PlannedStep.Record?
            for step in plan.steps {
                if case .withdraw(let value) = step { withdraw = value }
                if case .record(let value) = step { record = value }
            }
            return (withdraw, record)
        }
        // A replace: the old record (with its base and pin) becomes the previous one.
        var replace = observed
        replace.current = Self.version("3")
        let (withdrawn, recorded) = steps(try DeployPlanner.plan(replace, DeployRequest(kind: .deploy)))
        #expect(withdrawn == PlannedStep.Withdraw(replacing: observed.records.current, base: .staged, replacingGeneration: 1))
        var previous = observed.records.current
        previous?.base = digest
        previous?.signature = pin
        #expect(recorded?.previous == .record(previous))
        #expect(recorded?.heldFrom == nil && recorded?.signature == .fromManifest && recorded?.generation == 2)
        #expect(recorded?.recordsPristineIdentity == true && recorded?.removesConflicts == false)
        // A rollback: the restored generation's base, a hold, no previous; the pin stays
        // (the restored generation's lower serial would let older releases in again).
        let (rollbackWithdrawn, rollbackRecord) = steps(try DeployPlanner.plan(observed, DeployRequest(kind: .rollback)))
        #expect(rollbackWithdrawn?.base == .restored(digest) && rollbackWithdrawn?.isRollback == true)
        #expect(rollbackRecord?.previous == PlannedStep.PreviousRecord.none)
        #expect(rollbackRecord?.heldFrom == Self.version("2") && rollbackRecord?.signature == .this(pin))
        #expect(rollbackRecord?.recordsPristineIdentity == false && rollbackRecord?.removesConflicts == true)
    }

    /// The install names what the path held and whether the old generation is retired;
    /// keep-previous what happens to each file; the record which base it installs.
    @Test func theInstallKeepAndRecordCarryTheirDecisions() throws {
        let replace = try DeployPlanner.plan(Self.observed(previous: true), DeployRequest(kind: .deploy))
        #expect(replace.steps.contains(.install(.swap(PlannedStep.Swap(generation: 2, from: .generation(1, linked: true), retire: false, onBusy: .goLive)))))
        #expect(replace.keepPrevious == PlannedStep.KeepPrevious(drop: .setAside, keep: .oldContent))
        let noPrevious = try DeployPlanner.plan(Self.observed(), DeployRequest(kind: .deploy, strategy: .swap, keepPrevious: false))
        #expect(noPrevious.steps.contains(.install(.swap(PlannedStep.Swap(generation: 2, from: .generation(1, linked: true), retire: true, onBusy: .wait)))))
        // A rollback puts the restored generation's base back, or none.
        let base = SHA256Digest(bytes: Array(repeating: UInt8(2), count: 32))
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.records.previous = DeployRecord(version: Self.version("1"), sha256: base, size: 1, deployedAt: "", base: base)
        rollback.baseFiles = DeployObservation.BaseFiles(base: true, previousBase: true)
        func recordedBase(_ plan: DeployPlan) -> PlannedStep.BaseInstall? {
            for case .record(let record) in plan.steps { return record.base }
            return nil
        }
        #expect(try recordedBase(DeployPlanner.plan(rollback, DeployRequest(kind: .rollback))) == .previousBase(base))
        rollback.baseFiles.previousBase = false
        #expect(try recordedBase(DeployPlanner.plan(rollback, DeployRequest(kind: .rollback))) == PlannedStep.BaseInstall.none(removing: [.inPlace]))
        // A seed that merges nothing drops the stale base when no pristine copy was kept; the
        // one kept with the previous generation stays with it.
        var stale = Self.observed()
        stale.baseFiles = DeployObservation.BaseFiles(base: true, previousBase: false)
        let plan = try DeployPlanner.plan(stale, DeployRequest(kind: .deploy))
        #expect(recordedBase(plan) == .pristine(otherwise: .none(removing: [.inPlace])))
        #expect(plan.steps.contains { if case .keepPrevious(let keep) = $0 { keep.linksBaseAsPrevious } else { false } })
        // Finishing a killed run records the base where it was found, by its digest.
        var killed = Self.observed(recorded: nil, workingCopy: .generation(2), generations: [1, 2],
                                   interrupted: .init(version: Self.version("2"), generation: 2, replacing: Self.version("1")))
        killed.interrupted?.base = base
        killed.interrupted?.baseFoundAt = .staged(generation: 2)
        #expect(try recordedBase(DeployPlanner.plan(killed, DeployRequest(kind: .deploy))) == .found(base, at: .staged(generation: 2)))
    }

    /// The base that goes with the old content to the previous generation: a second name
    /// where its bytes are held by another file anyway (a reflink, the seed file) or where
    /// that was not looked at, its compressed difference from the old content where they
    /// are not; a rollback's stage restores it when it holds the recorded digest, and the
    /// rollback drops it with the previous generation otherwise.
    @Test func thePreviousGenerationsBaseIsCompressedWhereItSharesNoBytes() throws {
        var upgrade = Self.observed(previous: true)
        upgrade.baseFiles = DeployObservation.BaseFiles(base: true, previousBase: true)
        func merging(_ kind: DeployRequest.Kind, keepPrevious: Bool = true) -> DeployRequest {
            var request = DeployRequest(kind: kind, keepPrevious: keepPrevious)
            request.merges = true
            return request
        }
        let request = merging(.deploy)
        // Not looked at (a status, an older observation) or shared: a second name, as before.
        for shared in [nil, true] as [Bool?] {
            upgrade.baseFiles.baseShared = shared
            #expect(try DeployPlanner.plan(upgrade, request).keepPrevious
                == PlannedStep.KeepPrevious(drop: .setAside, setsAsidePreviousBase: true, linksBaseAsPrevious: true, keep: .oldContent))
        }
        // Shared with nothing: compressed; an old compressed one is set aside first.
        upgrade.baseFiles.baseShared = false
        upgrade.baseFiles.previousBaseCompressed = true
        var compressing = PlannedStep.KeepPrevious(drop: .setAside, setsAsidePreviousBase: true, keep: .oldContent)
        compressing.setsAsideCompressedPreviousBase = true
        compressing.compressesBaseAsPrevious = true
        #expect(try DeployPlanner.plan(upgrade, request).keepPrevious == compressing)
        // Live, a second name: its previous generation is a repacked snapshot, whose pages
        // do not line up with the base's.
        var live = request
        live.strategy = .live
        let liveKeep = try DeployPlanner.plan(upgrade, live).keepPrevious
        #expect(liveKeep?.compressesBaseAsPrevious == false && liveKeep?.linksBaseAsPrevious == true)
        // No base, or an adopted database: nothing is kept as the previous one's base.
        var noBase = upgrade
        noBase.baseFiles.base = false
        #expect(try DeployPlanner.plan(noBase, request).keepPrevious?.compressesBaseAsPrevious == false)
        // Dropping the previous generation without keeping one drops both of its bases.
        let dropping = try DeployPlanner.plan(upgrade, merging(.deploy, keepPrevious: false)).keepPrevious
        #expect(dropping?.setsAsidePreviousBase == true && dropping?.setsAsideCompressedPreviousBase == true)
        #expect(dropping?.compressesBaseAsPrevious == false && dropping?.linksBaseAsPrevious == false)

        // A rollback's stage restores it when it was observed to hold the recorded digest.
        let digest = SHA256Digest(bytes: Array(repeating: UInt8(3), count: 32))
        var rollback = Self.observed(recorded: "2", previous: true)
        rollback.records.previous = DeployRecord(version: Self.version("1"), sha256: digest, size: 1, deployedAt: "", base: digest)
        rollback.baseFiles = DeployObservation.BaseFiles(base: true)
        rollback.baseFiles.previousBaseCompressed = true
        rollback.baseFiles.previousBaseCompressedMatchesRecord = true
        func recordedBase(_ plan: DeployPlan) -> PlannedStep.BaseInstall? {
            for case .record(let record) in plan.steps { return record.base }
            return nil
        }
        func restoredBase(_ plan: DeployPlan) -> SHA256Digest? {
            for case .stage(let stage) in plan.steps { return stage.restoresPreviousBase }
            return nil
        }
        let restoring = try DeployPlanner.plan(rollback, merging(.rollback))
        #expect(restoredBase(restoring) == digest)
        #expect(recordedBase(restoring) == .previousBase(digest))
        #expect(restoring.keepPrevious?.setsAsideCompressedPreviousBase == false, "the stage sets it aside once restored")
        // Changed, or not hashed: no base restored, and the delta goes with the previous generation.
        for matches in [false, nil] as [Bool?] {
            rollback.baseFiles.previousBaseCompressedMatchesRecord = matches
            let dropping = try DeployPlanner.plan(rollback, merging(.rollback))
            #expect(restoredBase(dropping) == nil)
            #expect(recordedBase(dropping) == PlannedStep.BaseInstall.none(removing: [.inPlace]))
            #expect(dropping.keepPrevious?.setsAsideCompressedPreviousBase == true)
        }
        // A plain one is preferred when both are there.
        rollback.baseFiles.previousBase = true
        let plain = try DeployPlanner.plan(rollback, merging(.rollback))
        #expect(restoredBase(plain) == nil && recordedBase(plain) == .previousBase(digest))
        #expect(plain.keepPrevious?.setsAsideCompressedPreviousBase == true)

        // A rollback killed after its switch (its stage had restored the base): the base
        // found as the previous one's is moved in place; the delta goes either way.
        var killed = Self.observed(recorded: nil, workingCopy: .generation(3), generations: [2, 3],
                                   interrupted: .init(version: Self.version("1"), generation: 3, replacing: Self.version("2"), isRollback: true))
        killed.recordedGeneration = 2
        killed.interrupted?.replacingGeneration = 2
        killed.interrupted?.base = digest
        killed.interrupted?.baseFoundAt = .previous
        killed.baseFiles = DeployObservation.BaseFiles(base: true)
        killed.baseFiles.previousBaseCompressed = true
        #expect(try recordedBase(DeployPlanner.plan(killed, DeployRequest(kind: .rollback))) == .found(digest, at: .previous, removing: [.previousCompressed]))
        killed.interrupted?.baseFoundAt = nil
        #expect(try recordedBase(DeployPlanner.plan(killed, DeployRequest(kind: .rollback))) == PlannedStep.BaseInstall.none(removing: [.inPlace, .previousCompressed]))

        // An upgrade killed after its switch compresses the old base as a clean run would.
        var finishing = Self.observed(recorded: nil, workingCopy: .generation(2), generations: [1, 2],
                                      interrupted: .init(version: Self.version("2"), generation: 2, replacing: Self.version("1")))
        finishing.recordedGeneration = 1
        finishing.baseFiles = DeployObservation.BaseFiles(base: true)
        finishing.baseFiles.baseShared = false
        finishing.baseFiles.previousBaseCompressed = true
        let finished = try DeployPlanner.plan(finishing, merging(.deploy))
        #expect(finished.finishesInterrupted)
        #expect(finished.keepPrevious?.compressesBaseAsPrevious == true && finished.keepPrevious?.setsAsideCompressedPreviousBase == true)
    }

    /// A rollback with merging off killed after its switch, before it kept the old
    /// generation as an adopted copy (its carry replaced some of the user's changes): the
    /// finish retired that generation, the only file with those changes (found in review).
    /// The finish keeps it as an adopted copy, as it does a merging run's.
    @Test func aKilledRollbackThatReplacedEditsKeepsTheOldGenerationOnItsFinish() throws {
        var killed = Self.observed(recorded: nil, workingCopy: .generation(3), generations: [2, 3], previous: true,
                                   interrupted: .init(version: Self.version("1"), generation: 3, replacing: Self.version("2"), isRollback: true))
        killed.recordedGeneration = 2
        killed.interrupted?.replacingGeneration = 2
        let request = DeployRequest(kind: .rollback)
        #expect(!request.carryMerges)
        #expect(try DeployPlanner.plan(killed, request).keepPrevious?.keepsFinishedOldContentAs == nil, "nothing of the user's was replaced")
        killed.interrupted?.replacedEdits = true
        #expect(try DeployPlanner.plan(killed, request).keepPrevious?.keepsFinishedOldContentAs == request.stamp)
    }

    /// A live replace of 2 killed (its commit unknown) met by a deploy of 3: it is done
    /// again first, as a reseed of 2 from the copy of its seed it staged, recorded with the
    /// killed run's signature (an unsigned rollback's redo erased the pin, found in
    /// review) and reported as what the killed run did (a replace said `reseeded`, found
    /// by a contract probe); without that copy, the deploy is planned as before.
    @Test func aKilledLiveReplaceOfAnotherVersionIsDoneAgainFromItsStagedSeed() throws {
        var killed = Self.observed(recorded: nil, current: "3", interrupted: .init(version: Self.version("2"), generation: nil, replacing: Self.version("1")))
        killed.interrupted?.signature = .this(nil)
        #expect(killed.redoesKilledLiveReplace)
        let plain = try DeployPlanner.plan(killed, DeployRequest(kind: .deploy))
        #expect(plain.stagesKilledRunsSeed == nil && !plain.finishesInterrupted)
        killed.interrupted?.stagedSeed = "/data/.levels.sqlite.seeddb-x.base.tmp"
        let redo = try DeployPlanner.plan(killed, DeployRequest(kind: .deploy))
        #expect(redo.stagesKilledRunsSeed == "/data/.levels.sqlite.seeddb-x.base.tmp")
        #expect(redo.finishesInterrupted && !redo.finishesWhatWasAsked && redo.action == .replaced)
        var signatures: [PlannedStep.RecordedSignature] = []
        for case .record(let record) in redo.steps { signatures.append(record.signature) }
        #expect(signatures == [.this(nil)])
        var reseeds: [Bool] = []
        for case .withdraw(let withdraw) in redo.steps { reseeds.append(withdraw.isReseed) }
        #expect(reseeds == [false], "a redo killed in turn is still finished as a replace")
        killed.interrupted?.isReseed = true
        #expect(try DeployPlanner.plan(killed, DeployRequest(kind: .deploy)).action == .reseeded)
        killed.interrupted?.isReseed = false
        // A deploy of the killed version itself does the replace again from the seed.
        killed.current = Self.version("2")
        #expect(try DeployPlanner.plan(killed, DeployRequest(kind: .deploy)).stagesKilledRunsSeed == nil)
    }

    /// With the link removed, nothing can be using the working copy's path: a live
    /// replace would leave the link missing, so the plan swaps.
    @Test func aRemovedLinkIsReplacedBySwapEvenWhenLiveIsAsked() throws {
        let observed = DeployObservation(recorded: Self.version("1"), recordedGeneration: 1, workingCopy: .generation(1), linkMissing: true,
                                         generationFiles: [1], current: Self.version("2"))
        #expect(try DeployPlanner.plan(observed, DeployRequest(kind: .deploy, strategy: .live)).strategy == .swap)
    }

    /// A rollback killed after its record, while it removed what it had set aside, is
    /// finished by its rerun (the clean-up), not refused for want of a previous generation.
    @Test func aRollbackRerunFinishesTheCleanUpItsKilledRunLeft() throws {
        var killed = Self.observed(recorded: "1", current: "2", heldFrom: "2")
        killed.leftoversFound = true
        let plan = try DeployPlanner.plan(killed, DeployRequest(kind: .rollback))
        #expect(plan.action == .rolledBack && plan.names == [.cleanUp] && plan.finishesInterrupted)
        var strandedSidecars = Self.observed(recorded: "1", current: "2", heldFrom: "2")
        strandedSidecars.sidecarGenerations = [7]
        #expect(try DeployPlanner.plan(strandedSidecars, DeployRequest(kind: .rollback)).names == [.cleanUp])
        killed.heldFrom = nil
        #expect(throws: DeployRefusal.nothingToRollBack) { try DeployPlanner.plan(killed, DeployRequest(kind: .rollback)) }
    }

    /// Only a generation numbered above the linked one (a staged file never installed) is
    /// disposable; the recorded generation, one below the link (the old content of a
    /// switch), and everything when no link of SeedDB's is there (an interrupted run's
    /// new generation too: the link may have named it before it was removed), are not.
    /// A swap killed after its switch, then the link removed by hand (the app had written
    /// the new generation): the generation was taken for a staged file never linked and
    /// removed with what the app wrote. It is finished instead, the link put back first,
    /// the old generation kept as the previous one.
    @Test func aKilledSwapWhoseLinkWasRemovedIsFinishedNotRemoved() throws {
        var killed = Self.observed(recorded: nil, workingCopy: .generation(1), recordedGeneration: 1, generations: [1, 2],
                                   interrupted: .init(version: Self.version("2"), generation: 2, replacing: Self.version("1"), replacingGeneration: 1))
        killed.linkMissing = true
        #expect(killed.interruptedAfterSwitch)
        #expect(killed.disposableGenerations == [])
        let plan = try DeployPlanner.plan(killed, DeployRequest(kind: .deploy))
        #expect(plan.finishesInterrupted && plan.action == .replaced)
        #expect(plan.names == [.relink, .keepPrevious, .record, .cleanUp], "\(plan.names)")
        #expect(plan.steps.first == .relink(generation: 2))
        // With the link in place on the old generation, the new one was never linked: removed.
        killed.linkMissing = false
        #expect(!killed.interruptedAfterSwitch)
        #expect(killed.disposableGenerations == [2])
    }

    @Test func onlyNeverInstalledGenerationsAreDisposable() {
        let killed = Self.observed(recorded: nil, workingCopy: .generation(2), recordedGeneration: 2, generations: [1, 2, 3])
        #expect(killed.disposableGenerations == [3])
        #expect(killed.unaccountedGenerations == [1])
        let recordedKept = Self.observed(workingCopy: .generation(2), recordedGeneration: 3, generations: [2, 3, 4])
        #expect(recordedKept.disposableGenerations == [4])
        let noLink = Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil, generations: [1, 2])
        #expect(noLink.disposableGenerations == [])
        let stagedNoLink = Self.observed(recorded: nil, workingCopy: .absent, recordedGeneration: nil, generations: [1],
                                         interrupted: .init(version: Self.version("1"), generation: 1, replacing: nil))
        #expect(stagedNoLink.disposableGenerations == [])
        // Kept, but named by the killed run's marker (its next run finishes it): not
        // reported as a generation nothing names.
        #expect(stagedNoLink.unaccountedGenerations == [])
        #expect(noLink.unaccountedGenerations == [1, 2])
        #expect(stagedNoLink.interruptedAfterSwitch)
        let blocked = Self.observed(workingCopy: .blocked("a directory"), generations: [1, 2])
        #expect(blocked.disposableGenerations == [])
    }
}
