extension DeployPlanner {
    /// Plans a `deploy` or `reseed` of a read-only seed: a symbolic link straight to the
    /// seed file at the working-copy path (``DeployStep/linkSeed``), nothing copied.
    ///
    /// - Up to date: the working copy is the link to this seed, the record names it and
    ///   the version (a `deploy` only; a `reseed` records again). A rollback's hold holds.
    /// - Refused, before anything else is planned: a compressed seed (it needs a copy), a
    ///   seed of another size than its header declares (cut short), a seed in WAL mode, a
    ///   path that is not absolute and stable, a seed the app's user could replace through
    ///   a directory on its path; and, even when its link is recorded at this version, a
    ///   seed whose file is not there or that the app's user could write.
    /// - A copy at the working-copy path (SeedDB's generation, a regular file, or the
    ///   generation the record still names after a killed run switched the link) becomes
    ///   the previous generation, whatever `keepPrevious` says: the app cannot write
    ///   through the link, so that copy is the only one of what the user wrote, and a
    ///   rollback restores it. A previous generation it replaces goes (kept as an adopted
    ///   copy when nothing accounts for it).
    /// - Already linked (the package manager renamed a new seed into the path): only
    ///   the record changes.
    /// - Already linked and recorded at this version, but the seed file is not the one the
    ///   record remembers (``ReadOnlySeed/changedSinceLinked``: renamed in at the same
    ///   version): what would refuse a new link refuses it
    ///   (``DeployRefusal/readOnlySeedChangedBehindLink(_:)``); otherwise the link step
    ///   looks at it (its digest against the expected one) and records its identity, and
    ///   the run is `unchanged`.
    /// - A run that keeps a copy or makes a link the record does not name first replaces it by its marker
    ///   (``DeployStep/withdraw``, naming the seed): killed before its link, the next run
    ///   puts the record back or replaces it; killed after, any run finishes it first
    ///   (``finishingLink(_:_:_:to:)``).
    ///
    /// - Throws: ``DeployRefusal`` when the seed cannot be linked.
    static func linking(_ observed: DeployObservation, _ request: DeployRequest, _ seed: ReadOnlySeed) throws(DeployRefusal) -> DeployPlan {
        let recorded = observed.effectiveRecorded
        let linked = observed.workingCopy.seedLinkTarget == seed.path
        // (A killed live replace's copy is not held: what it holds is not known, and the
        // link takes its place, keeping it.)
        if request.kind == .deploy, observed.heldFrom == observed.current, recorded != nil, observed.workingCopyExists,
           !observed.redoesKilledLiveReplace {
            return .held
        }
        // Up to date too: a seed file gone, or one the app's user could write since its
        // link was made (the link stays; the line says what to fix). The file alone, as the
        // startup check reads it: a directory on its path refuses a new link only.
        if seed.missing { throw .readOnlySeedMissing(seed.path) }
        if let writer = seed.writableBy { throw .readOnlySeedWritable(seed.path, writer) }
        if request.kind == .deploy, linked, observed.recordedSeedLink == seed.path, recorded == observed.current,
           observed.interrupted == nil, observed.recordedGeneration == nil {
            guard seed.changedSinceLinked else { return .nothing }
            // Another file renamed into the seed's path at the recorded version: the link
            // already serves it. Looked at as a new link's seed (what would refuse one
            // refuses it, saying the link serves it), its digest checked by the link step;
            // otherwise its new identity is recorded, and the run is `unchanged`.
            if let refusal = seed.refusal { throw .readOnlySeedChangedBehindLink(refusal) }
            return linkPlan(observed, request, to: seed.path, action: .unchanged, seedChanged: true)
        }
        if let refusal = seed.refusal { throw refusal }

        let action: DeployAction
        switch request.kind {
        case .reseed: action = .reseeded
        default:
            // The link gone with the version recorded: put back; anything else replaced.
            action = recorded == nil ? (observed.workingCopyExists && !linked ? .replaced : .installed)
                : recorded == observed.current && observed.workingCopy == .absent ? .restored : .replaced
        }
        return linkPlan(observed, request, to: seed.path, action: action)
    }

    /// The plan that finishes a read-only deploy killed once its link was in place (its
    /// marker names the seed, ``DeployObservation/interruptedLinkInPlace``): the copy it
    /// replaced becomes the previous generation, if it is not already, and the record
    /// names the link. Whatever this run was asked, what the killed run did is finished
    /// first; the caller observes again and plans what was asked, unless the killed run
    /// was that (``DeployPlan/finishesWhatWasAsked``).
    static func finishingLink(_ observed: DeployObservation, _ interrupted: DeployObservation.Interrupted, _ request: DeployRequest, to seed: String) -> DeployPlan {
        var plan = linkPlan(observed, request, to: seed, action: interrupted.action, finishing: true)
        plan.finishesInterrupted = true
        return plan
    }

    /// The link to `seed` and what becomes of the copy it replaces, as ``linking(_:_:_:)``
    /// says. A run that keeps a copy, or makes a link the record does not name, first
    /// replaces the record by its marker (``DeployStep/withdraw``), unless it is `finishing`
    /// a killed one whose marker is there. `seedChanged`: the seed file changed at the
    /// recorded version behind the link in place (``SeedLink/seedChanged``).
    private static func linkPlan(
        _ observed: DeployObservation, _ request: DeployRequest, to seed: String, action: DeployAction, finishing: Bool = false, seedChanged: Bool = false
    ) -> DeployPlan {
        let recorded = observed.effectiveRecorded
        let linked = observed.workingCopy.seedLinkTarget == seed
        // A run killed after its switch: the generation its marker (or the record) names is
        // the copy; a regular file it replaced (its marker names it) replaced no generation,
        // whatever the record names, and is held under a second name, or already the
        // previous generation.
        let killed = observed.interrupted?.seedLink == seed ? observed.interrupted : nil
        let killedRunsCopy = killed.map { $0.replacingGeneration ?? ($0.replacedAFile ? nil : observed.recordedGeneration) } ?? observed.recordedGeneration
        let keeps: SeedLink.KeptCopy?
        switch observed.workingCopy {
        case .generation(let number): keeps = .generation(number)
        case .file: keeps = .file
        case .seedLink:
            if let held = killed?.heldReplacedFile {
                keeps = .held(held)
            } else {
                keeps = killedRunsCopy.flatMap { observed.generationFiles.contains($0) ? .generation($0) : nil }
            }
        case .absent, .blocked: keeps = nil
        }
        let dropsPrevious = keeps != nil && observed.previousExists
        let replaced = observed.records.current ?? observed.interrupted?.replacingRecord
        // A run killed after its link and after the copy became the previous generation,
        // before its record: the record still names the copy's generation, which is gone,
        // and the previous generation on disk is that copy. Only the record is left.
        // (Or the regular file it replaced, gone from its held name, and no held name left
        // that could be it: renamed to the previous one.)
        let copyAlreadyKept = linked && keeps == nil && observed.previousExists
            && (finishing && killed?.replacedAFile == true && observed.heldCopies.isEmpty
                || observed.recordedSeedLink == nil && killedRunsCopy.map { !observed.generationFiles.contains($0) } == true)
        // (Finishing a killed run: what its marker says it adopted. Its marker keeps the
        // record of a link a file was found in place of.)
        let adopted = (keeps != nil || copyAlreadyKept) && (finishing ? observed.interrupted?.adopting == true : recorded == nil)
        let movesBase = keeps != nil && observed.baseFiles.base
        let recordsPrevious = keeps != nil || copyAlreadyKept
        var link = SeedLink(
            target: seed, from: observed.oldContent, alreadyLinked: linked, keeps: keeps,
            drop: dropsPrevious ? drop(observed, request) : nil,
            // (Finishing a killed run with no `.base` left: its `.previous.base` may be the
            // base that run moved there for the copy it keeps, which the record names.)
            movesBase: movesBase, setsAsidePreviousBase: keeps != nil && observed.baseFiles.previousBase && (movesBase || !finishing),
            previous: recordsPrevious ? previousRecord(observed, adopted: adopted, replaced: replaced, keeps: true, drops: false) : .unchanged,
            base: recordsPrevious ? nil : observed.records.base)
        // The previous generation's bases go with it, whether or not a base takes their place.
        link.setsAsideCompressedPreviousBase = keeps != nil && observed.baseFiles.previousBaseCompressed
        if keeps != nil { link.setsAsidePreviousSidecars = observed.previousSidecars }
        link.finishesKilledRun = finishing
        link.seedChanged = seedChanged
        if finishing, let killed = observed.interrupted { link.signature = killed.signature }
        var steps: [PlannedStep] = [.linkSeed(link), .cleanUp(leftovers: observed.leftovers)]
        // The link alone, where the record already names it (a removed link put back), leaves
        // the record true whenever it is cut: no marker either.
        if (keeps != nil || (!linked && observed.recordedSeedLink != seed)) && !finishing {
            let kept = if case .generation(let number) = keeps { number } else { Int?.none }
            var withdraw = PlannedStep.Withdraw(replacing: replaced, base: .staged, replacingGeneration: kept, adopting: adopted, seedLink: seed)
            // Its marker names the file it replaces: killed once the link took the file's
            // place, the run's finish finds it under its held name.
            withdraw.replacesFile = keeps == .file
            withdraw.isReseed = request.kind == .reseed
            steps.insert(.withdraw(withdraw), at: 0)
        }
        var plan = DeployPlan(action: action, strategy: nil, steps: steps)
        plan.adopted = adopted
        return plan
    }
}
