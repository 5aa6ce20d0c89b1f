/// The deploy decision: a pure function from what was observed and what was asked to a
/// ``DeployPlan`` or a ``DeployRefusal``. Every state SeedDB can find is decided here;
/// ARCHITECTURE.md has the table, and `DeployPlannerTests` checks each row.
package enum DeployPlanner {
    /// Plans one run.
    ///
    /// - Something SeedDB did not make at the working-copy path is refused.
    /// - A run interrupted after it switched the link is finished first (keep the old
    ///   content, record; with no link of SeedDB's at the path, it may have switched: the
    ///   link is put back to its generation first); so is a read-only deploy whose link
    ///   to the seed is in place. The caller observes again and plans what was asked,
    ///   unless the killed run was the run asked (``DeployPlan/finishesWhatWasAsked``). A
    ///   swap or a read-only deploy interrupted before, met by a run that copies nothing,
    ///   is undone first (its record put back, ``DeployStep/reinstate``), and the caller
    ///   plans again.
    /// - A removed link to an up-to-date recorded generation is put back (``DeployStep/relink``).
    /// - A rollback needs a previous generation on disk; a manifest's seed already rolled
    ///   back from the version the manifest ships is held without one. A `deploy` of the
    ///   version a rollback was made from is held.
    /// - A database with no record that matches it is adopted: replaced, kept as the
    ///   previous generation, its app tables carried, never merged (it has no known base);
    ///   a rollback from it too: it becomes the previous generation in place of the one
    ///   restored.
    /// - A live replace killed before its record, met by a run of another version (or a
    ///   rollback to the snapshot it kept), is done again first from the copy of its seed
    ///   it staged (``DeployRequest/redoes``); the caller plans what was asked next.
    /// - The action otherwise follows ``DeployDecision/action(recorded:current:workingCopyExists:force:)``,
    ///   reading through an interrupted run that had not switched the link.
    /// - The strategy: a first install is always a swap (there is nothing to be in use);
    ///   `auto` swaps unless the working copy was seen in use, then goes live.
    /// - A previous generation is kept when asked and there is a working copy to keep
    ///   (always for an adopted one); a rollback consumes the one it restores.
    /// - The check is skipped when the content already passed one at least as strict.
    /// - The merge base is a hard link to the seed file where that is asked for and safe
    ///   (``baseCopy(_:_:)``), a reflink or a copy otherwise.
    /// - A read-only seed is linked, never copied (``linking(_:_:_:)``); a working copy
    ///   that is such a link is replaced by a copy with nothing carried from the link (the
    ///   app could not write it): what the user wrote before it is carried (and merged)
    ///   from the previous generation, which is kept as it is.
    ///
    /// - Throws: ``DeployRefusal`` when nothing may be done.
    package static func plan(_ observed: DeployObservation, _ request: DeployRequest) throws(DeployRefusal) -> DeployPlan {
        // A swap (or a read-only deploy) killed before its switch that this run would leave in place (it copies
        // nothing: up to date, held, a link put back, the seed's link already in place; or a
        // rollback with nothing to roll back) is undone first, and the caller observes again and plans what was asked.
        // (A killed live replace may have committed: what the working copy holds is not
        // known, and its marker stays until a run that copies; NOTES.md.)
        // (The record it withdrew is put back; an install or an adoption withdrew none.)
        var undoable: DeployObservation.Interrupted?
        if observed.records.current == nil, let interrupted = observed.interrupted, interrupted.generation != nil || interrupted.seedLink != nil {
            undoable = interrupted
        }
        var plan: DeployPlan
        do {
            plan = try decide(observed, request)
        } catch .nothingToRollBack where undoable != nil {
            plan = undoing(observed, undoable!.replacingRecord)
        }
        // (So is one a read-only deploy finds its seed's link still in place of: its link
        // plan would only write the record again, and say `replaced`.)
        let leavesInPlace = plan.seedLink.map { $0.alreadyLinked && $0.keeps == nil } ?? (plan.withdraw == nil)
        if let killed = undoable, leavesInPlace, !plan.finishesInterrupted {
            plan = undoing(observed, killed.replacingRecord)
        }
        // A merge writes its conflicts to `<name>.conflicts.json`, the file there set aside
        // until the run succeeds: a directory the user made there would be moved to a
        // temporary name no run removes. Refused, as something at the working-copy path is.
        if observed.conflictsFileIsADirectory, plan.merges { throw .conflictsFileIsADirectory }
        // The content a run keeps (all but a new generation's) keeps a drifted owner or
        // mode: repaired after the record. A new generation is made with the ones asked for.
        if let drift = observed.ownershipDrift, !plan.steps.contains(where: { if case .install(.swap) = $0 { true } else { false } }) {
            let at = plan.names.firstIndex(of: .cleanUp) ?? plan.steps.count
            plan.steps.insert(.repairOwnership(drift: drift), at: at)
        }
        plan.keepsHeldCopies = heldCopies(observed, request, besides: plan)
        if finishesWhatWasAsked(observed, request, plan) {
            plan.finishesWhatWasAsked = true
            if request.kind == .reseed { plan.action = .reseeded }
        }
        return plan
    }

    /// Whether `plan` finishes a killed run that is the run `request` asks for
    /// (``DeployPlan/finishesWhatWasAsked``).
    private static func finishesWhatWasAsked(_ observed: DeployObservation, _ request: DeployRequest, _ plan: DeployPlan) -> Bool {
        guard plan.finishesInterrupted, !plan.undoesInterrupted else { return false }
        if request.kind == .rollback { return plan.action == .rolledBack }
        guard let killed = observed.interrupted, !killed.isRollback, killed.version == observed.current,
              killed.seedLink == observed.readOnlySeed?.path else { return false }
        // A link's finish records the seed unread: what was asked also needs a seed it may
        // link (one gone since, or compressed, is refused by the pass after the finish).
        if killed.seedLink != nil, observed.readOnlySeed?.refusal != nil { return false }
        // A reseed replaces the working copy by the seed: so did a killed reseed (the
        // recorded version by itself), install or adoption of the version asked.
        return request.kind == .deploy || killed.replacing == nil || killed.replacing == observed.current
    }

    /// Each held copy a killed run left (``DeployObservation/heldCopies``, the only name
    /// of the content it replaced) that `plan` does not finish as the previous generation,
    /// with the stamp of the adopted copy it becomes: the
    /// run's own, with a counter (`…Z-2`) past the stamps already taken on disk and by the
    /// previous generation `plan` keeps as an adopted copy.
    private static func heldCopies(_ observed: DeployObservation, _ request: DeployRequest, besides plan: DeployPlan) -> [PlannedStep.HeldCopy] {
        var taken = observed.takenAdoptedStamps
        var finished: Set<String> = []
        for step in plan.steps {
            switch step {
            case .keepPrevious(let keep):
                if case .keepAsAdopted(let stamp)? = keep.drop { taken.insert(stamp) }
                if let stamp = keep.keepsFinishedOldContentAs { taken.insert(stamp) }
                if let held = keep.finishesHeldFile { finished.insert(held) }
            case .linkSeed(let link):
                if case .keepAsAdopted(let stamp)? = link.drop { taken.insert(stamp) }
                if case .held(let held)? = link.keeps { finished.insert(held) }
            case .carry(let carry):
                if let stamp = carry.keepsOldCopyIfDiscarded { taken.insert(stamp) }
            default: break
            }
        }
        return observed.heldCopies.sorted().filter { !finished.contains($0) }.map { path in
            let stamp = freeStamp(request, besides: taken)
            taken.insert(stamp)
            return PlannedStep.HeldCopy(path: path, stamp: stamp)
        }
    }

    /// The plan, the ownership repair left out.
    private static func decide(_ observed: DeployObservation, _ request: DeployRequest) throws(DeployRefusal) -> DeployPlan {
        if case .blocked(let what) = observed.workingCopy { throw .blocked(what) }
        if observed.interruptedAfterSwitch, let interrupted = observed.interrupted { return finishing(observed, interrupted, request) }
        if let seed = observed.interruptedLinkInPlace, let interrupted = observed.interrupted { return finishingLink(observed, interrupted, request, to: seed) }
        if let interrupted = observed.interrupted, interrupted.isRollback, interrupted.generation == nil, !observed.previousExists {
            // A live rollback drops the previous generation only after its commit: gone,
            // it was restored; only the record is left.
            return finishingLiveRollback(observed, interrupted)
        }
        if request.kind != .rollback, observed.redoesKilledLiveRollback {
            // A killed live rollback left its marker, the previous generation it restores
            // still there: whether it committed (what the copy holds) is not known. A deploy
            // (a read-only one too) or a reseed does the rollback again, as its rerun would,
            // then plans what was asked (a deploy is held). Replacing the copy instead would
            // keep it as the previous generation under the record the rollback replaced,
            // which it may no longer hold. (The request's other fields are the run's: a
            // rollback's plan reads only its strategy, integrity, stamp, migrations and
            // merge among them, as a rollback run's request has them.)
            var rollback = request
            rollback.kind = .rollback
            var plan = try decide(observed, rollback)
            plan.finishesInterrupted = true
            return plan
        }
        if observed.redoesKilledLiveReplace, let interrupted = observed.interrupted, let staged = interrupted.stagedSeed,
           request.kind == .rollback ? interrupted.previousIsSnapshot && observed.previousExists : interrupted.version != observed.current {
            // A killed live replace left its marker: whether it committed (the killed
            // version's seed merged in the copy, or the old content still) is not known,
            // and the base in place is the old seed's. A run of another version, or a
            // rollback (which merges the copy into the previous generation: the snapshot
            // the killed run kept of what it replaced), merging the copy against that base
            // would take the killed seed's rows for the user's. The replace is done again
            // first, as a reseed of that version from the pristine copy of its seed it
            // staged (checked by its digest), recorded with that run's signature: either
            // way the copy then holds that version with the user's changes, recorded with
            // its base; then what was asked is planned.
            var again = observed
            again.current = interrupted.version
            (again.readOnlySeed, again.seedFile, again.vouchedDigest) = (nil, nil, nil)
            var reseed = request
            reseed.kind = .reseed
            reseed.redoes = DeployRequest.KilledReplace(seed: staged, signature: interrupted.signature, action: interrupted.action)
            var plan = try decide(again, reseed)
            plan.finishesInterrupted = true
            // What its merge could not carry is only in the previous generation it keeps (or
            // the snapshot the killed run kept): the replace that follows keeps that one.
            plan.keptPreviousMayHoldUnmerged = request.carryMerges
            return plan
        }
        if request.kind != .rollback, let seed = observed.readOnlySeed { return try linking(observed, request, seed) }
        // SeedDB's link to a read-only seed: nothing of the user's is in it.
        let seedLinked = observed.workingCopy.seedLinkTarget != nil
        let recorded = observed.effectiveRecorded
        let adopted = recorded == nil && observed.workingCopyExists
        let action: DeployAction
        switch request.kind {
        case .rollback:
            guard observed.previousExists else {
                // A rollback killed after its record, while cleaning up: its rerun finishes that.
                if observed.leftoversFound || !observed.disposableGenerations.isEmpty, observed.heldFrom != nil, observed.interrupted == nil {
                    return finishingCleanUp(observed)
                }
                // A manifest's seed already rolled back from the version the manifest ships
                // (no run under way, its copy in place) is held: the rerun of a release's
                // rollback killed after this seed passes over it to the seeds still to roll
                // back, and so does a second rollback of the whole release.
                if request.fromManifest, observed.heldFrom == observed.current, observed.recorded != nil,
                   observed.interrupted == nil, observed.workingCopyExists, !observed.linkMissing {
                    return .held
                }
                throw .nothingToRollBack
            }
            if let sidecar = observed.previousSidecarWithContent {
                // Not SeedDB's: opening the previous generation would replay it into that copy.
                throw .sidecarBesidePrevious(sidecar.path, sidecar.size)
            }
            action = .rolledBack
        case .deploy where observed.redoesKilledLiveReplace:
            // A killed live replace left its marker: whether it committed (what the copy
            // holds) is not known. A deploy that would leave the copy as it is does the
            // seed's replace again, as a reseed, which records the copy and keeps what it
            // replaces (a hold ends: the killed run ended it, or would have).
            let asked = DeployDecision.action(recorded: recorded, current: observed.current, workingCopyExists: true)
            action = asked == .unchanged ? .reseeded : asked
        case .deploy where observed.heldFrom == observed.current && recorded != nil && observed.workingCopyExists:
            return observed.linkMissing ? relinking(observed) : .held
        case .deploy where seedLinked:
            // The seed is no longer read-only: a copy takes the link's place.
            action = .replaced
        case .deploy where adopted:
            action = .replaced
        case .deploy, .reseed:
            action = DeployDecision.action(
                recorded: recorded, current: observed.current,
                workingCopyExists: observed.workingCopyExists, force: request.kind == .reseed)
        }
        guard action.copies else { return observed.linkMissing ? relinking(observed) : .nothing }

        let replacing = observed.workingCopyExists
        // A rollback that keeps the copy it replaces (one it adopts, or one recorded as
        // adopted) keeps it in place of the previous generation it restores. Live, that
        // keep comes before the commit (its snapshot is taken inside the live replace), and
        // a kill in between left the restored content in temporary files only, which the
        // next run, finding no previous generation, took for restored. It swaps, and waits
        // for a copy in use.
        let keepsInPlaceOfRestored = request.kind == .rollback && replacing && (adopted || recorded == DeployRecord.adoptedVersion)
        let strategy: DeployStrategy
        switch request.strategy {
        // Nothing to be in use: nothing there, or only the generation file whose link was
        // removed (a live replace would leave the link missing).
        case _ where !replacing || observed.linkMissing || seedLinked || keepsInPlaceOfRestored: strategy = .swap
        case .auto: strategy = observed.usage.inUse ? .live : .swap
        case .swap, .live: strategy = request.strategy
        }
        // A live replace killed after its snapshot became the previous generation: that
        // file holds the replaced content; it is recorded as such, never snapshotted again.
        let previousAlreadyKept = request.kind != .rollback && observed.interrupted?.previousIsSnapshot == true && observed.previousExists
        // A copy recorded as adopted (a rollback restored one) is no better accounted for:
        // kept too, never retired.
        let unaccounted = adopted || recorded == DeployRecord.adoptedVersion
        let keepsPrevious = !previousAlreadyKept && replacing && !seedLinked
            && (unaccounted || (request.kind != .rollback && request.keepPrevious && recorded != nil))
        // Replacing a link to a read-only seed (there, or removed since it was recorded)
        // keeps the copy it had replaced.
        let dropsPrevious = !previousAlreadyKept && observed.previousExists
            && (keepsPrevious || request.kind == .rollback || (!request.keepPrevious && !observed.replacesSeedLink))
        let integrity = observed.alreadyChecked.map { $0 >= request.integrity } == true ? .none : request.integrity

        let isRollback = request.kind == .rollback
        // The copy that takes the place of SeedDB's link to a read-only seed (there, or
        // removed since it was recorded) carries what the user wrote before the link from
        // the copy the switch kept as the previous generation (which stays).
        let carriesPrevious = observed.replacesSeedLink && !isRollback && observed.previousExists
        let generation = strategy == .swap ? observed.nextGeneration : nil
        let replaced = observed.records.current ?? observed.interrupted?.replacingRecord
        let skipsMerge = replacing && !adopted && !seedLinked && !isRollback && observed.untouchedSeed
        let previousBaseThere = observed.baseFiles.previousBase
        // A rollback restores the previous generation's base from its delta first, while
        // the previous generation it was made against is still in place.
        let restoresPreviousBase = isRollback && !previousBaseThere && observed.baseFiles.previousBaseCompressedMatchesRecord == true
            ? observed.records.previous?.base : nil

        var steps: [PlannedStep] = [.stage(PlannedStep.Stage(
            restoresPrevious: isRollback, generation: generation,
            base: isRollback ? .none : baseCopy(observed, request),
            rereads: request.integrity == .full,
            vouched: isRollback ? nil : observed.vouchedDigest, integrity: request.integrity,
            checksConfiguredTables: (!replacing || seedLinked) && !carriesPrevious && !isRollback && request.namesTables,
            knownTables: isRollback ? .these(observed.records.previous?.seedTables, digests: observed.records.previous?.tableDigests)
                : observed.records.passedCheck.map { .ifPassed($0) } ?? .none,
            restoresPreviousBase: restoresPreviousBase, killedRunsSeed: request.redoes?.seed))]
        if request.migrates { steps.append(.migrate) }
        if integrity != .none { steps.append(.check(PlannedStep.Check(level: integrity, passed: observed.records.passedCheck, listsSeedTables: !isRollback))) }
        // After the migrations: the tables as the app will find them.
        if request.recordsTableDigests && !isRollback { steps.append(.fingerprint(remembered: observed.records.passedCheck)) }
        var withdraw = PlannedStep.Withdraw(
            replacing: replaced, base: isRollback ? .restored(observed.records.previous?.base) : .staged,
            snapshot: previousAlreadyKept ? observed.interrupted?.snapshot : nil,
            replacingGeneration: observed.linkedGeneration, adopting: unaccounted, isRollback: isRollback)
        withdraw.replacesFile = observed.workingCopy == .file && strategy == .swap
        withdraw.isReseed = request.redoes.map { $0.action == .reseeded } ?? (request.kind == .reseed)
        steps.append(.withdraw(withdraw))
        let drop = dropsPrevious ? drop(observed, request) : nil
        if replacing && !seedLinked {
            var carry = carry(observed, request, adopted: adopted, replaced: replaced, skipsMerge: skipsMerge)
            // A swap retires the old generation file it does not keep, and a live replace
            // writes over the old content: what the merge could not carry of the user's,
            // or what merging off replaces of it, would be in no file. (The swap renames
            // the old generation, the live replace snapshots the old content, to the
            // adopted copy's name.)
            let retiresAGeneration = if case .generation = observed.oldContent { true } else { false }
            let replacesEdits = carry.merge == .merge || (carry.discards != .none && carry.discards != .unwritten)
            if replacesEdits && !keepsPrevious && (strategy != .swap || retiresAGeneration) {
                var taken = observed.takenAdoptedStamps
                if case .keepAsAdopted(let stamp)? = drop { taken.insert(stamp) }
                carry.keepsOldCopyIfDiscarded = freeStamp(request, besides: taken)
            }
            steps.append(.carry(carry))
        }
        if carriesPrevious { steps.append(.carry(carry(observed, request, previous: observed.records.previous))) }
        var keepPrevious = PlannedStep.KeepPrevious(
            drop: drop,
            setsAsidePreviousBase: (dropsPrevious || keepsPrevious) && !isRollback && previousBaseThere,
            keep: keepsPrevious ? (strategy == .swap ? .oldContent : .snapshot) : nil)
        keepPrevious.setsAsidePreviousSidecars = observed.previousSidecars
        // It goes with the previous generation it was made against, unless the stage restored it.
        keepPrevious.setsAsideCompressedPreviousBase = (dropsPrevious || keepsPrevious) && restoresPreviousBase == nil && observed.baseFiles.previousBaseCompressed
        // An adopted database has no known base: none is kept as its own.
        keepBaseAsPrevious(&keepPrevious, observed, keeps: keepsPrevious && !adopted, fromTheOldFile: strategy == .swap)
        let from = observed.oldContent
        switch strategy {
        case .swap:
            let fromGeneration = if case .generation = from { true } else { false }
            steps.append(.install(.swap(PlannedStep.Swap(
                generation: generation ?? observed.nextGeneration, from: from, retire: !keepsPrevious && fromGeneration,
                onBusy: request.strategy == .auto && replacing && !observed.linkMissing && !seedLinked && !keepsInPlaceOfRestored ? .goLive : .wait))))
            if keepsPrevious || dropsPrevious { steps.append(.keepPrevious(keepPrevious)) }
        default:
            // A previous generation a live run only drops (a rollback's, with generations
            // off) goes after the commit: until then it may be the only copy of its content.
            if keepsPrevious { steps.append(.keepPrevious(keepPrevious)) }
            steps.append(.install(.live(from: from)))
            if dropsPrevious && !keepsPrevious { steps.append(.keepPrevious(keepPrevious)) }
        }
        // After keep-previous: the base files as that step leaves them.
        let previousBaseAfter = keepPrevious.linksBaseAsPrevious || restoresPreviousBase != nil
            || (previousBaseThere && !keepPrevious.setsAsidePreviousBase)
        let compressedAfter = keepPrevious.compressesBaseAsPrevious
            || (observed.baseFiles.previousBaseCompressed && restoresPreviousBase == nil && !keepPrevious.setsAsideCompressedPreviousBase)
        let stale = staleBases(base: observed.baseFiles.base, previousBase: previousBaseAfter, compressed: compressedAfter)
        let base: PlannedStep.BaseInstall
        if isRollback {
            // The restored generation's base, or none: the current one belongs to what it replaces.
            // A delta that does not restore the recorded digest went with the previous
            // generation: the next merge runs without a base.
            if let restored = observed.records.previous?.base, previousBaseAfter {
                base = .previousBase(restored)
            } else {
                base = .none(removing: stale)
            }
        } else {
            // Without merging, the old base would only mislead the next merge; the previous
            // generation's stays with it (a rollback restores it, and it names what a later
            // replace with merging off replaces).
            base = .pristine(otherwise: request.merges ? .keep(observed.records.base) : .none(removing: staleBases(base: observed.baseFiles.base, previousBase: false, compressed: false)))
        }
        steps.append(.record(PlannedStep.Record(
            content: .staged, base: base,
            previous: previousRecord(observed, adopted: adopted, replaced: replaced, keeps: keepsPrevious || previousAlreadyKept, drops: dropsPrevious || isRollback),
            heldFrom: isRollback ? replaced?.version ?? observed.heldFrom : nil,
            signature: isRollback ? .this(Self.pinAfterRollback(observed)) : request.redoes?.signature ?? .fromManifest,
            generation: generation, seedTables: .staged,
            // Only a swap's new file can be seen unwritten: a live replace's is the app's own.
            recordsPristineIdentity: !isRollback && strategy == .swap, removesConflicts: isRollback)))
        steps.append(.cleanUp(leftovers: observed.leftovers))
        var plan = DeployPlan(action: request.redoes?.action ?? action, strategy: strategy, steps: steps)
        plan.adopted = adopted
        if case .install(.swap(let swap)) = steps.first(where: { $0.name == .install }), swap.onBusy == .goLive {
            // The branch a busy database takes: the same run, live.
            var busy = observed
            busy.usage.connectionsBusy = true
            plan.whenBusy = try Self.plan(busy, request)
        }
        return plan
    }

    /// The signature a rollback records: the pin stays where deploys put it (a rollback
    /// is a local action, and never undoes a key's rotation nor lowers the serial that
    /// older releases are refused below), unless the restored generation was signed by the
    /// pinned key with a higher serial (a downgrade allowed on purpose, rolled back), or
    /// nothing is pinned (the restored generation's signature is pinned again).
    package static func pinAfterRollback(_ observed: DeployObservation) -> SeedSignature? {
        let (pinned, restored) = (observed.records.signature, observed.records.previous?.signature)
        guard let pinned else { return restored }
        guard let restored, restored.keyID == pinned.keyID, restored.serial > pinned.serial else { return pinned }
        return restored
    }

    /// What the carry carries: the app's tables (those the old copy's seed lacked, when its
    /// tables are recorded), and the merge (skipped for a copy nobody wrote to; against
    /// `<name>.base` when its digest is the recorded one). A carry that replaces the
    /// user's changes to some table finds which tables changed against that base, else
    /// against the replaced record's table digests.
    private static func carry(_ observed: DeployObservation, _ request: DeployRequest, adopted: Bool, replaced: DeployRecord?, skipsMerge: Bool) -> PlannedStep.Carry {
        let appTables: PlannedStep.AppTables
        if !adopted, let seedTables = replaced?.seedTables {
            appTables = .notInTheOldSeed(seedTables)
        } else {
            appTables = .notInTheNewSeed
        }
        // A database with no record has no known base: merging it without one would keep
        // its old seed's cells as the user's. It is kept whole as the previous generation.
        let merge: PlannedStep.CarryMerge = !request.carryMerges || adopted ? .off : skipsMerge ? .skipped : .merge
        let base: PlannedStep.MergeBase
        if !observed.baseFiles.base {
            // A seed whose own policy merges nothing keeps none (a reseed's `--merge` asks
            // for a merge it has no base for); an old copy deployed with merging off (a
            // `cache` seed, a seed that turned merging on since) never had one.
            base = .missing(!request.merges ? "is not kept for this seed (its own merge policy is off)"
                : observed.records.base == nil ? "is not known for the old copy (it was deployed with merging off, or a rollback could not restore its base)" : "is missing")
        } else if observed.records.base != nil, observed.baseFiles.baseMatchesRecord == true {
            base = .recorded
        } else if observed.baseFiles.baseIsInterruptedLiveBase == true {
            // A live replace killed after its commit, in its record step: the copy holds the
            // new seed's content merged, the base in place is that seed's; merged again
            // against it, the content stays as the run committed it.
            base = .recorded
        } else {
            base = .missing("does not match the recorded seed")
        }
        let discards: PlannedStep.Discards
        if !request.carryReplacesEdits || adopted {
            // An adopted database is kept whole as the previous generation.
            discards = .none
        } else if observed.untouchedSeed {
            discards = .unwritten
        } else if base == .recorded {
            discards = .againstBase
        } else if let digests = replaced?.tableDigests {
            discards = .againstDigests(digests)
        } else {
            discards = .unknown
        }
        // The previous generation a killed live replace snapshotted holds what it replaced.
        let restored = observed.interrupted?.previousIsSnapshot == true ? observed.interrupted?.replacingRecord : observed.records.previous
        let restoredSeedTables = request.kind == .rollback && !adopted ? restored?.seedTables : nil
        // Without its base, a merge can still tell the tables the user left alone by the
        // digests recorded with the old copy: those take the new content's rows.
        let unchanged = merge == .merge && !adopted && base != .recorded ? replaced?.tableDigests : nil
        return PlannedStep.Carry(
            appTables: appTables, merge: merge, base: base, discards: discards, restoredSeedTables: restoredSeedTables, unchangedIfDigests: unchanged)
    }

    /// What the copy that takes the place of a link to a read-only seed carries from the
    /// previous generation (its record `previous`): its app tables, and its edits merged
    /// against its own base (`<name>.previous.base`, or restored from its compressed
    /// difference) when that base's digest is the recorded one. A previous generation with
    /// no record, or recorded as adopted, has no known base: only its app tables come
    /// across (those the new seed lacks), and it stays whole.
    private static func carry(_ observed: DeployObservation, _ request: DeployRequest, previous: DeployRecord?) -> PlannedStep.Carry {
        guard let previous, previous.version != DeployRecord.adoptedVersion else {
            return PlannedStep.Carry(from: .previousGeneration, appTables: .notInTheNewSeed, merge: .off, base: .missing("is not known"))
        }
        let files = observed.baseFiles
        let found: PlannedStep.MergeBase? = files.previousBaseMatchesRecord == true ? .previous
            : files.previousBaseCompressedMatchesRecord == true ? previous.base.map { .previousRestored($0) } : nil
        let problem = files.previousBase ? "does not match the recorded seed"
            : !files.previousBaseCompressed ? "is missing"
            : files.previousBaseCompressedMatchesRecord == false ? "(kept as its compressed difference) does not match the recorded seed"
            : "(kept as its compressed difference) cannot be restored without libzstd (libzstd.so.1)"
        let base = found ?? .missing(problem)
        let discards: PlannedStep.Discards
        if !request.carryReplacesEdits {
            discards = .none
        } else if found != nil {
            discards = .againstBase
        } else if let digests = previous.tableDigests {
            discards = .againstDigests(digests)
        } else {
            discards = .unknown
        }
        return PlannedStep.Carry(
            from: .previousGeneration, appTables: previous.seedTables.map { .notInTheOldSeed($0) } ?? .notInTheNewSeed,
            merge: request.carryMerges ? .merge : .off, base: base, discards: discards,
            unchangedIfDigests: request.carryMerges && found == nil ? previous.tableDigests : nil)
    }

    /// How the stage keeps the pristine copy of the new seed, the next merge base: a copy
    /// for a seed that merges (a reflink where the file system has them), only a reflink
    /// for one that merges nothing. A seed that merges may have a hard link to the seed
    /// file instead of a copy, where that is asked for and safe (plain, on the same file
    /// system, only root can change it). Not one that merges nothing: once the package
    /// replaced the seed, the link would keep the old seed's bytes for a base nobody uses.
    private static func baseCopy(_ observed: DeployObservation, _ request: DeployRequest) -> PlannedStep.BaseCopy {
        guard request.merges else { return .clone }
        guard request.linksBaseToSeed, let seed = observed.seedFile, seed.plain, seed.sameFileSystem, seed.onlyRootWrites else { return .copy }
        return .linkToSeed
    }

    /// What happens to the previous generation on disk that a run drops: kept as an adopted
    /// copy when SeedDB cannot account for it, set aside otherwise (a rollback's is the
    /// content it restores).
    static func drop(_ observed: DeployObservation, _ request: DeployRequest) -> PlannedStep.Drop {
        guard request.kind != .rollback, let stamp = adoptedCopyStamp(observed, request) else { return .setAside }
        return .keepAsAdopted(stamp: stamp)
    }

    /// The base files that are set aside when no base goes with the new record.
    private static func staleBases(base: Bool, previousBase: Bool, compressed: Bool) -> [PlannedStep.BaseLocation] {
        (base ? [.inPlace] : []) + (previousBase ? [.previous] : []) + (compressed ? [.previousCompressed] : [])
    }

    /// How `<name>.base` goes with the old content that becomes the previous generation
    /// (`keeps`, when there is one): a second name where its bytes are held by another
    /// file anyway (a reflink's shared extents, the seed file's own name) or where that was
    /// not looked at, its compressed difference from the old content where they are not (a
    /// second name would then keep a full copy of the replaced seed at rest; the old
    /// content is the base plus what the user wrote, so the difference is small, and at
    /// worst, a copy the user rewrote whole, about the bytes the second name would keep).
    /// Only where the previous generation is the old file itself (`fromTheOldFile`: a
    /// swap): a live replace keeps a snapshot, which `VACUUM INTO` repacks, so its pages no
    /// longer line up with the base's and the difference would be about the base's size.
    private static func keepBaseAsPrevious(_ keep: inout PlannedStep.KeepPrevious, _ observed: DeployObservation, keeps: Bool, fromTheOldFile: Bool) {
        let keepsBase = keeps && observed.baseFiles.base
        let compresses = observed.baseFiles.baseShared == false && fromTheOldFile
        keep.linksBaseAsPrevious = keepsBase && !compresses
        keep.compressesBaseAsPrevious = keepsBase && compresses
    }

    /// What the record says of the previous generation: the replaced version's record
    /// (with its base and signature) when the old content is kept, the adopted database's
    /// when that is what is kept, none when the previous generation goes.
    static func previousRecord(_ observed: DeployObservation, adopted: Bool, replaced: DeployRecord?, keeps: Bool, drops: Bool) -> PlannedStep.PreviousRecord {
        if keeps {
            if adopted { return .adopted }
            return .record(replaced.map { record in
                var record = record
                record.base = observed.records.base
                record.signature = observed.records.signature
                return record
            })
        }
        return drops ? .none : .unchanged
    }

    /// The stamp under which a previous generation that is about to go is kept instead,
    /// when SeedDB cannot account for it (it was adopted, or nothing records it); `nil`
    /// when it may go. A stamp already taken gets a counter (`…Z-2`).
    private static func adoptedCopyStamp(_ observed: DeployObservation, _ request: DeployRequest) -> String? {
        // While the record names a read-only seed's link, the previous generation holds what
        // the user wrote before it: a run that drops it (one adopting a file found in the
        // link's place) keeps it.
        guard request.keepsPreviousAsAdopted || observed.previousAdopted || !observed.previousRecorded || observed.recordedSeedLink != nil else { return nil }
        return freeStamp(request, besides: observed.takenAdoptedStamps)
    }

    /// The run's stamp for an adopted copy, with a counter (`…Z-2`) past those `taken`.
    private static func freeStamp(_ request: DeployRequest, besides taken: Set<String>) -> String {
        var stamp = request.stamp
        var counter = 2
        while taken.contains(stamp) {
            stamp = "\(request.stamp)-\(counter)"
            counter += 1
        }
        return stamp
    }

    /// The record step of a run that finishes a killed one: the content it installed, the
    /// base it wrote down wherever it got to (the digest of the file found, or none).
    private static func finishingRecord(_ observed: DeployObservation, _ interrupted: DeployObservation.Interrupted, adopted: Bool, keeps: Bool, drops: Bool) -> PlannedStep.Record {
        let base: PlannedStep.BaseInstall
        // A rollback's previous generation's base (or its delta) goes with the previous
        // generation it restored, unless it is the base found.
        let rollback = interrupted.isRollback
        if let digest = interrupted.base, let found = interrupted.baseFoundAt {
            base = .found(digest, at: found, removing: staleBases(
                base: false, previousBase: rollback && observed.baseFiles.previousBase && found != .previous,
                compressed: rollback && observed.baseFiles.previousBaseCompressed))
        } else {
            base = .none(removing: staleBases(
                base: observed.baseFiles.base, previousBase: rollback && observed.baseFiles.previousBase,
                compressed: rollback && observed.baseFiles.previousBaseCompressed))
        }
        let replaced = observed.records.current ?? interrupted.replacingRecord
        return PlannedStep.Record(
            content: interrupted.generation.map { .generation($0) } ?? .workingCopy(observed.oldContent), base: base,
            previous: previousRecord(observed, adopted: adopted, replaced: replaced, keeps: keeps, drops: drops || interrupted.isRollback),
            heldFrom: interrupted.isRollback ? replaced?.version ?? observed.heldFrom : nil,
            signature: interrupted.isRollback ? .this(Self.pinAfterRollback(observed)) : interrupted.signature,
            generation: interrupted.generation, seedTables: .these(interrupted.seedTables, digests: interrupted.tableDigests),
            removesConflicts: interrupted.isRollback && !interrupted.merged)
    }

    /// The plan that undoes a run killed before it switched the link: the record it
    /// withdrew is put back, the generation it staged removed.
    private static func undoing(_ observed: DeployObservation, _ replaced: DeployRecord?) -> DeployPlan {
        var plan = DeployPlan(action: .unchanged, strategy: nil, steps: [.reinstate(replaced), .cleanUp(leftovers: observed.leftovers)])
        plan.finishesInterrupted = true
        return plan
    }

    /// The plan that finishes a live rollback killed after its commit: the record.
    private static func finishingLiveRollback(_ observed: DeployObservation, _ interrupted: DeployObservation.Interrupted) -> DeployPlan {
        var plan = DeployPlan(action: .rolledBack, strategy: .live, steps: [
            .record(finishingRecord(observed, interrupted, adopted: false, keeps: false, drops: false)),
            .cleanUp(leftovers: observed.leftovers),
        ])
        plan.finishesInterrupted = true
        return plan
    }

    /// The plan of a rerun of a rollback killed after its record, while it removed what
    /// it had set aside: the clean-up is finished, nothing else.
    private static func finishingCleanUp(_ observed: DeployObservation) -> DeployPlan {
        var plan = DeployPlan(action: .rolledBack, strategy: nil, steps: [.cleanUp(leftovers: observed.leftovers)])
        plan.finishesInterrupted = true
        return plan
    }

    /// The plan that puts back a removed link to the recorded generation, which is up to
    /// date: restored without a copy.
    private static func relinking(_ observed: DeployObservation) -> DeployPlan {
        guard let generation = observed.recordedGeneration else { return .nothing }
        return DeployPlan(action: .restored, strategy: nil, steps: [.relink(generation: generation), .cleanUp(leftovers: observed.leftovers)])
    }

    /// The plan that finishes a swap interrupted after its link switch: the old
    /// generation (still named by the record) becomes the previous generation, or is set
    /// aside by a rollback or with generations off (a rollback also sets aside the previous
    /// generation it restored), then the record is written.
    private static func finishing(_ observed: DeployObservation, _ interrupted: DeployObservation.Interrupted, _ request: DeployRequest) -> DeployPlan {
        let action = interrupted.action
        // (A run that replaced a regular file replaced no generation, whatever the record names.)
        let oldGeneration = interrupted.replacingGeneration ?? (interrupted.replacedAFile ? nil : observed.recordedGeneration)
        let oldGenerationThere = oldGeneration.map(observed.generationFiles.contains) ?? false
        // A regular file the run replaced is held under its second name (the run never got
        // to rename it): the old content, as a generation file would be.
        let heldFile = oldGenerationThere ? nil : interrupted.heldReplacedFile
        let oldContentThere = oldGenerationThere || heldFile != nil
        // A copy that took the place of SeedDB's link to a read-only seed kept nothing (the
        // link holds nothing of the user's): the previous generation stays as it was.
        // (Not a regular file found in the link's place: that one is adopted, and kept.)
        let replacedSeedLink = !interrupted.isRollback && interrupted.seedLink == nil && observed.recordedSeedLink != nil && oldGeneration == nil
            && !interrupted.replacedAFile
        // The old generation is still there, or already is the previous one; an adopted
        // database is always kept.
        let keepsPrevious = !replacedSeedLink
            && (interrupted.adopting || (!interrupted.isRollback && request.keepPrevious && interrupted.replacing != nil))
            && (oldContentThere || observed.previousExists)
        // A rollback drops the previous generation it restored; one that adopted the old
        // content renames it to the previous name after that drop, so with the old
        // content gone (its generation file, or the held file it replaced) the file there
        // is the adopted one. A replace that already moved the old generation to the
        // previous name must keep that file.
        let dropsPrevious = observed.previousExists && (interrupted.isRollback
            ? (!interrupted.adopting || oldContentThere)
            : (oldContentThere && (keepsPrevious || !request.keepPrevious)))
        // A link removed by hand is put back to the generation the run installed.
        var steps: [PlannedStep] = observed.noLink ? interrupted.generation.map { [.relink(generation: $0)] } ?? [] : []
        var keptPreviousMayHoldUnmerged = false
        if oldContentThere || dropsPrevious {
            var keep = PlannedStep.KeepPrevious(
                // What the killed run was decides, not what this run was asked: a replace's
                // dropped previous generation SeedDB cannot account for is kept.
                drop: !dropsPrevious ? nil : interrupted.isRollback ? .setAside
                    : adoptedCopyStamp(observed, request).map { .keepAsAdopted(stamp: $0) } ?? .setAside,
                setsAsidePreviousBase: (dropsPrevious || keepsPrevious) && !interrupted.isRollback && observed.baseFiles.previousBase,
                finishesOldGeneration: oldGenerationThere ? oldGeneration : nil,
                keep: keepsPrevious && oldContentThere ? .oldContent : nil)
            keep.finishesHeldFile = heldFile
            if keep.keep == nil && oldContentThere && (request.carryMerges || interrupted.replacedEdits) && !interrupted.adopting {
                var taken = observed.takenAdoptedStamps
                if case .keepAsAdopted(let stamp)? = keep.drop { taken.insert(stamp) }
                keep.keepsFinishedOldContentAs = freeStamp(request, besides: taken)
            }
            keptPreviousMayHoldUnmerged = keep.keep == .oldContent && request.carryMerges && !interrupted.adopting
            if keep.drop != nil || keep.keep != nil { keep.setsAsidePreviousSidecars = observed.previousSidecars }
            keep.setsAsideCompressedPreviousBase = (dropsPrevious || keepsPrevious) && observed.baseFiles.previousBaseCompressed
            // An adopted database has no known base: none is kept as its own.
            keepBaseAsPrevious(&keep, observed, keeps: keepsPrevious && !interrupted.adopting, fromTheOldFile: true)
            steps.append(.keepPrevious(keep))
        }
        steps.append(.record(finishingRecord(observed, interrupted, adopted: interrupted.adopting, keeps: keepsPrevious, drops: dropsPrevious)))
        steps.append(.cleanUp(leftovers: observed.leftovers))
        var plan = DeployPlan(action: action, strategy: .swap, steps: steps)
        plan.finishesInterrupted = true
        plan.adopted = interrupted.adopting
        plan.keptPreviousMayHoldUnmerged = keptPreviousMayHoldUnmerged
        return plan
    }
}
