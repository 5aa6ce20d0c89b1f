/// The deploy decision: a pure function from what was observed and what was asked to a
/// ``DeployPlan`` or a ``DeployRefusal``. Every state SeedDB can find is decided here;
/// ARCHITECTURE.md has the table, and `DeployPlannerTests` checks each row.
package enum DeployPlanner {
    /// Plans one run.
    ///
    /// - Something SeedDB did not make at the working-copy path is refused.
    /// - A run interrupted after it switched the link is finished first (keep the old
    ///   content, record); the caller observes again and plans what was asked.
    /// - A removed link to an up-to-date recorded generation is put back (``DeployStep/relink``).
    /// - A rollback needs a previous generation on disk. A `deploy` of the version a
    ///   rollback was made from is held.
    /// - A database with no record that matches it is adopted: replaced, kept as the
    ///   previous generation, its app tables carried (a rollback from it too: it becomes
    ///   the previous generation in place of the one restored).
    /// - The action otherwise follows ``DeployDecision/action(recorded:current:workingCopyExists:force:)``,
    ///   reading through an interrupted run that had not switched the link.
    /// - The strategy: a first install is always a swap (there is nothing to be in use);
    ///   `auto` swaps unless the working copy was seen in use, then goes live.
    /// - A previous generation is kept when asked and there is a working copy to keep
    ///   (always for an adopted one); a rollback consumes the one it restores.
    /// - The check is skipped when the content already passed one at least as strict.
    ///
    /// - Throws: ``DeployRefusal`` when nothing may be done.
    package static func plan(_ observed: DeployObservation, _ request: DeployRequest) throws(DeployRefusal) -> DeployPlan {
        if case .blocked(let what) = observed.workingCopy { throw .blocked(what) }
        if observed.interruptedAfterSwitch, let interrupted = observed.interrupted { return finishing(observed, interrupted, request) }
        if let interrupted = observed.interrupted, interrupted.isRollback, interrupted.generation == nil, !observed.previousExists {
            // A live rollback drops the previous generation only after its commit: gone,
            // it was restored; only the record is left.
            return finishingLiveRollback
        }
        let recorded = observed.effectiveRecorded
        let adopted = recorded == nil && observed.workingCopyExists
        let action: DeployAction
        switch request.kind {
        case .rollback:
            guard observed.previousExists else {
                // A rollback killed after its record, while cleaning up: its rerun finishes that.
                if observed.leftoversFound || !observed.disposableGenerations.isEmpty, observed.heldFrom != nil, observed.interrupted == nil {
                    return finishingCleanUp
                }
                throw .nothingToRollBack
            }
            action = .rolledBack
        case .deploy where observed.heldFrom == observed.current && recorded != nil && observed.workingCopyExists:
            return observed.linkMissing ? relinking : .held
        case .deploy where adopted:
            action = .replaced
        case .deploy, .reseed:
            action = DeployDecision.action(
                recorded: recorded, current: observed.current,
                workingCopyExists: observed.workingCopyExists, force: request.kind == .reseed)
        }
        guard action.copies else { return observed.linkMissing ? relinking : .nothing }

        let replacing = observed.workingCopyExists
        let strategy: DeployStrategy
        switch request.strategy {
        // Nothing to be in use: nothing there, or only the generation file whose link was
        // removed (a live replace would leave the link missing).
        case _ where !replacing || observed.linkMissing: strategy = .swap
        case .auto: strategy = observed.usage.inUse ? .live : .swap
        case .swap, .live: strategy = request.strategy
        }
        // A live replace killed after its snapshot became the previous generation: that
        // file holds the replaced content; it is recorded as such, never snapshotted again.
        let previousAlreadyKept = request.kind != .rollback && observed.interrupted?.previousIsSnapshot == true && observed.previousExists
        let keepsPrevious = !previousAlreadyKept && replacing
            && (adopted || (request.kind != .rollback && request.keepPrevious && recorded != nil))
        let dropsPrevious = !previousAlreadyKept && observed.previousExists
            && (keepsPrevious || request.kind == .rollback || !request.keepPrevious)
        let integrity = observed.alreadyChecked.map { $0 >= request.integrity } == true ? .none : request.integrity

        var steps: [DeployStep] = [.stage]
        if request.migrates { steps.append(.migrate) }
        if integrity != .none { steps.append(.check) }
        steps.append(.withdraw)
        if replacing { steps.append(.carry) }
        switch strategy {
        case .swap:
            steps.append(.install)
            if keepsPrevious || dropsPrevious { steps.append(.keepPrevious) }
        default:
            // A previous generation a live run only drops (a rollback's, with generations
            // off) goes after the commit: until then it may be the only copy of its content.
            if keepsPrevious { steps.append(.keepPrevious) }
            steps.append(.install)
            if dropsPrevious && !keepsPrevious { steps.append(.keepPrevious) }
        }
        steps += [.record, .cleanUp]
        var plan = DeployPlan(
            action: action, strategy: strategy, integrity: integrity,
            keepsPrevious: keepsPrevious, dropsPrevious: dropsPrevious, steps: steps)
        plan.adopted = adopted
        plan.previousAlreadyKept = previousAlreadyKept
        plan.skipsMerge = replacing && !adopted && request.kind != .rollback && observed.untouchedSeed
        if strategy == .swap { plan.generation = observed.nextGeneration }
        plan.goesLiveWhenBusy = request.strategy == .auto && strategy == .swap && replacing && !observed.linkMissing
        // A rollback's dropped previous generation is the content it restores.
        if dropsPrevious, request.kind != .rollback { plan.keepsDroppedPreviousAs = adoptedCopyStamp(observed, request) }
        return plan
    }

    /// The stamp under which a previous generation that is about to go is kept instead,
    /// when SeedDB cannot account for it (it was adopted, or nothing records it); `nil`
    /// when it may go. A stamp already taken gets a counter (`…Z-2`).
    private static func adoptedCopyStamp(_ observed: DeployObservation, _ request: DeployRequest) -> String? {
        guard observed.previousAdopted || !observed.previousRecorded else { return nil }
        var stamp = request.stamp
        var counter = 2
        while observed.adoptedCopies.contains(stamp) {
            stamp = "\(request.stamp)-\(counter)"
            counter += 1
        }
        return stamp
    }

    /// The plan that finishes a live rollback killed after its commit: the record.
    private static let finishingLiveRollback: DeployPlan = {
        var plan = DeployPlan(action: .rolledBack, strategy: .live, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [.record, .cleanUp])
        plan.finishesInterrupted = true
        return plan
    }()

    /// The plan of a rerun of a rollback killed after its record, while it removed what
    /// it had set aside: the clean-up is finished, nothing else.
    private static let finishingCleanUp: DeployPlan = {
        var plan = DeployPlan(action: .rolledBack, strategy: nil, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [.cleanUp])
        plan.finishesInterrupted = true
        return plan
    }()

    /// The plan that puts back a removed link to the recorded generation, which is up to
    /// date: restored without a copy.
    private static let relinking = DeployPlan(action: .restored, strategy: nil, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [.relink, .cleanUp])

    /// The plan that finishes a swap interrupted after its link switch: the old
    /// generation (still named by the record) becomes the previous generation, or is set
    /// aside by a rollback or with generations off (a rollback also sets aside the previous
    /// generation it restored), then the record is written.
    private static func finishing(_ observed: DeployObservation, _ interrupted: DeployObservation.Interrupted, _ request: DeployRequest) -> DeployPlan {
        let action: DeployAction = interrupted.isRollback ? .rolledBack
            : interrupted.replacing == nil && !interrupted.adopting ? .installed : .replaced
        let oldGeneration = interrupted.replacingGeneration ?? observed.recordedGeneration
        let oldGenerationThere = oldGeneration.map(observed.generationFiles.contains) ?? false
        // The old generation is still there, or already is the previous one; an adopted
        // database is always kept.
        let keepsPrevious = (interrupted.adopting || (!interrupted.isRollback && request.keepPrevious && interrupted.replacing != nil))
            && (oldGenerationThere || observed.previousExists)
        // A rollback consumes the previous generation it restored; a replace that already
        // moved the old generation to the previous name must keep that file.
        // A rollback drops the previous generation it restored; one that adopted the old
        // content renames it to the previous name after that drop, so with the old
        // generation gone the file there is the adopted one.
        let dropsPrevious = observed.previousExists && (interrupted.isRollback
            ? (!interrupted.adopting || oldGenerationThere)
            : (oldGenerationThere && (keepsPrevious || !request.keepPrevious)))
        var plan = DeployPlan(
            action: action, strategy: .swap, integrity: .none, keepsPrevious: keepsPrevious, dropsPrevious: dropsPrevious,
            steps: (oldGenerationThere || dropsPrevious ? [.keepPrevious] : []) + [.record, .cleanUp])
        plan.finishesInterrupted = true
        plan.adopted = interrupted.adopting
        if dropsPrevious, !interrupted.isRollback { plan.keepsDroppedPreviousAs = adoptedCopyStamp(observed, request) }
        return plan
    }
}
