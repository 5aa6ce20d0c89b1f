import SeedDBCore

/// What a release did to each of its seeds.
public struct ReleaseOutcome: Sendable {
    /// A report for each seed, in the release's order. After a failure, every seed but
    /// the one that failed is reported as it was (``DeployAction/unchanged`` at its
    /// recorded version, or what the quick look answered).
    public var reports: [DeployReport]
    /// The seed that failed and why; `nil` when the release succeeded.
    public var failure: (seed: SeedName, error: SeedDBError)?
}

extension Deployer {
    /// Deploys the seeds of one release (a manifest's) as one: all of them or none.
    ///
    /// Each seed is first looked at as ``deploy(_:)`` looks (an up-to-date seed costs its
    /// startup check, nothing more). Then every seed with work is prepared under its
    /// deploy lock, all locks held together: the seed staged and checked (its digest
    /// against the manifest, header, size, integrity) beside its working copy. Only when
    /// every seed is prepared does the release write to the settings: one write replaces
    /// every seed's record by its `"interrupted"` marker, each naming the whole release
    /// (``SettingsEntry/InterruptedRun/release``); a seed whose plan changes only its
    /// record, or not even that (a link put back), keeps its record. The seeds are then installed one after
    /// the other (live ones last), each undoable, and one settings write records them
    /// all; then each one's clean-up. When any seed fails, every seed is undone: each
    /// settings entry, working copy and directory as it was.
    ///
    /// A run killed between the two writes leaves no seed it withdrew recorded (each has its marker);
    /// the next run of the release finishes every seed and records them all. A run of one
    /// of those seeds alone deploys it and warns which seeds of the release stay
    /// unfinished. A live install cannot be undone once its backup commits: a later
    /// seed's failure keeps it, recorded at the version it holds (see NOTES.md).
    ///
    /// A reseed's own merge (``DeployConfiguration/reseedMerge``) beside seeds that are
    /// all read-only fails the release (`invalidArgument`) before any seed is looked at:
    /// a link has no copy for it to apply to.
    ///
    /// - Parameters:
    ///   - seeds: The release's seeds (a manifest's), deployed in this order.
    ///   - force: Reseed every seed, whatever the versions say.
    public func deploy(release seeds: [Seed], force: Bool = false) -> ReleaseOutcome {
        if let refusal = reseedMergeRefusal(seeds, force: force) { return refusal }
        let (outcome, committed) = deployOnce(release: seeds, force: force)
        // A copy written since the release found it unwritten: every seed was undone (none
        // replaced live had committed); the next look sees the write and merges.
        guard let failure = outcome.failure, failure.error.underlying is DeployExecutor.WrittenSinceLooked, !committed else { return outcome }
        logger.debug("\(failure.seed) was written while the release staged; looking again")
        return deployOnce(release: seeds, force: force).outcome
    }

    /// What ``deploy(release:force:)`` would do, changing nothing: each seed's plan
    /// (``plan(_:force:)``), in order. When one would fail, the release would install
    /// none: the others are reported as they are, as the failed run reports them.
    ///
    /// - Parameters:
    ///   - seeds: The release's seeds (a manifest's), in order.
    ///   - force: Reseed every seed, whatever the versions say.
    public func plan(release seeds: [Seed], force: Bool = false) -> ReleaseOutcome {
        if let refusal = reseedMergeRefusal(seeds, force: force) { return refusal }
        var planned: [Int: DeployReport] = [:]
        for (index, seed) in seeds.enumerated() {
            do {
                planned[index] = try plan(seed, force: force)
            } catch {
                // A seed with nothing to do is reported as its plan says (held, unchanged).
                let asTheyAre = planned.filter { [.unchanged, .held].contains($0.value.action) }
                return ReleaseOutcome(reports: unchanged(seeds, asTheyAre, except: index, force ? .reseed : .deploy), failure: (seed.name, error))
            }
        }
        return ReleaseOutcome(reports: seeds.indices.compactMap { planned[$0] }, failure: nil)
    }

    /// The failed outcome of a reseed (`force`) with its own merge
    /// (``DeployConfiguration/reseedMerge``) of seeds that are all read-only: each is a link
    /// to its seed file, with no copy for the merge to apply to, and taking the setting
    /// silently would let the caller believe it applied (a release that also copies a seed
    /// applies it to that one). The other seeds are reported as they are, as after any
    /// failure. `nil` when it applies, or is not set.
    private func reseedMergeRefusal(_ seeds: [Seed], force: Bool) -> ReleaseOutcome? {
        guard force, configuration.reseedMerge != nil, let first = seeds.first, seeds.allSatisfy(\.readOnly) else { return nil }
        let release = first.manifest.map { NameRules.shown(path: $0) } ?? "the release"
        let error = SeedDBError(.invalidArgument, "every seed of \(release) is read-only, a link to its seed file, not a copy: a reseed's own merge (--merge) has nothing to apply to; drop it")
        return ReleaseOutcome(reports: unchanged(seeds, [:], except: 0, .reseed), failure: (first.name, error))
    }

    /// ``deploy(release:force:)``, once; whether a live install had committed before a failure.
    private func deployOnce(release seeds: [Seed], force: Bool) -> (outcome: ReleaseOutcome, committed: Bool) {
        let kind: DeployRequest.Kind = force ? .reseed : .deploy
        var answered: [Int: DeployReport] = [:]
        var work: [(index: Int, work: Work)] = []
        for (index, seed) in seeds.enumerated() {
            do {
                switch try look(seed, kind) {
                case .answered(let report): answered[index] = report
                case .work(let found): work.append((index, found))
                }
            } catch {
                return (ReleaseOutcome(reports: unchanged(seeds, answered, except: index, kind), failure: (seed.name, error)), false)
            }
        }
        let release = ReleaseRuns(kind: kind)
        do {
            // An older release met after a killed newer one is refused before any seed is
            // touched: under the locks, a seed whose killed run is undone comes first.
            for (_, found) in work {
                guard let plan = try? DeployPlanner.plan(found.quick.observation, request(kind, found.quick.seed)) else { continue }
                release.failing = found.seed.name
                try requirePinned(found.signature, finishing: plan, entry: found.quick.entry, seed: found.seed)
            }
            try prepareEach(work[...], release) { () throws(SeedDBError) in
                try writeMarkers(release)
                // Live installs last: one cannot be undone once it commits, so every swap
                // (and its chance to fail) comes before it.
                let order = release.prepared.indices.filter { release.prepared[$0].plan.strategy != .live }
                    + release.prepared.indices.filter { release.prepared[$0].plan.strategy == .live }
                for entry in order {
                    release.failing = release.prepared[entry].work.seed.name
                    try complete(release, entry)
                }
                try recordAll(release)
                for entry in release.prepared {
                    var done = entry.executor.finish(entry.plan, entry.run)
                    if entry.plan.finishesInterrupted {
                        reportCarry(of: entry.observed.entry.interrupted, in: &done, paths: entry.work.paths)
                        warnOfFinishedRun(done, at: entry.work.paths)
                    }
                    answered[entry.index] = try finished(done, entry.work, kind)
                }
            }
        } catch {
            let failed = release.failing ?? work.first?.work.seed.name ?? seeds[0].name
            var error = error
            if !release.committed.isEmpty {
                let kept = release.committed.values.map { "\($0.name) (\($0.to))" }.sorted().joined(separator: ", ")
                error = SeedDBError(error.code, error.message + "; replaced live before the failure, which cannot be undone, and recorded so: \(kept)", underlying: error.underlying, remedy: error.remedy)
            }
            let outcome = ReleaseOutcome(reports: unchanged(seeds, answered.merging(release.committed) { $1 }, except: seeds.firstIndex { $0.name == failed }, kind), failure: (failed, error))
            return (outcome, !release.committed.isEmpty)
        }
        for (index, found) in work where answered[index] == nil {
            // Nothing to copy once locked (another run did it meanwhile).
            answered[index] = release.unchanged[found.seed.name]
        }
        return (ReleaseOutcome(reports: seeds.indices.compactMap { answered[$0] }, failure: nil), false)
    }

    /// The runs of one release, prepared and then completed, and who failed.
    private final class ReleaseRuns {
        struct Entry {
            /// The seed's place in the release.
            var index: Int
            var work: Work
            var observed: Observed
            var plan: DeployPlan
            var executor: DeployExecutor
            var run: DeployRun
        }
        let kind: DeployRequest.Kind
        var prepared: [Entry] = []
        /// Each settings file as it was before the release wrote its seeds' markers, to put
        /// back once every seed is undone; emptied once every seed is recorded.
        var settingsBackups: [(path: String, store: any DeployRecordStore, backup: SettingsStore.Backup)] = []
        /// The seeds of a failed release whose live install had committed (it cannot be
        /// undone), by their place in the release: kept, and recorded as they are.
        var committed: [Int: DeployReport] = [:]
        /// The reports of seeds that turned out to have nothing to do under their lock.
        var unchanged: [SeedName: DeployReport] = [:]
        /// The seed being prepared or completed.
        var failing: SeedName?

        init(kind: DeployRequest.Kind) { self.kind = kind }
    }

    /// Takes the deploy lock of the first seed of `work`, finishes an interrupted run of
    /// it that installed something else (another version, a rollback; a killed run of
    /// what the release asks, such as this release killed before it recorded, is finished
    /// as the seed's part of the release: ``DeployPlan/finishesWhatWasAsked``), prepares it, and
    /// recurses: `body` runs with every lock held and every seed prepared. A failure
    /// anywhere undoes every run, completed ones included, newest first (a live install
    /// that committed is kept), then puts the settings back.
    private func prepareEach(_ work: ArraySlice<(index: Int, work: Work)>, _ release: ReleaseRuns, _ body: () throws(SeedDBError) -> Void) throws(SeedDBError) {
        guard let (index, first) = work.first else { return try body() }
        release.failing = first.seed.name
        try withDeployLock(first.paths) { (lock, deadline) throws(SeedDBError) in
            var observed = try observe(first.seed, paths: first.paths, lock: lock, known: first.quick.sourceDigest, planning: release.kind)
            try requirePinned(first.signature, entry: observed.entry, seed: first.seed)
            var plan = try decide(observed, release.kind, paths: first.paths)
            try requirePinned(first.signature, finishing: plan, entry: observed.entry, seed: first.seed)
            if plan.finishesInterrupted, plan.names.contains(where: { $0 != .cleanUp && $0 != .repairOwnership }),
               plan.undoesInterrupted || plan.action.copies && !plan.finishesWhatWasAsked {
                // A killed run of this seed that installed something else is finished first;
                // one killed before it installed anything, undone.
                let done = try executor(first, observed, plan, release.kind, lock: lock, deadline: deadline).run(plan)
                if !plan.undoesInterrupted { warnOfFinishedRun(done, at: first.paths) }
                observed = try observe(first.seed, paths: first.paths, lock: lock, known: first.quick.sourceDigest, planning: release.kind)
                // The finish recorded the killed run's signature: a newer serial pins.
                try requirePinned(first.signature, entry: observed.entry, seed: first.seed)
                plan = try decide(observed, release.kind, paths: first.paths, after: plan)
            }
            // (A read-only seed changed behind its link at the recorded version is `unchanged`,
            // but looked at and recorded: `link-seed`.)
            guard plan.action.copies || plan.seedLink?.seedChanged == true,
                  plan.names.contains(where: { $0 != .cleanUp && $0 != .repairOwnership }) else {
                try rememberSignature(first.signature, entry: observed.entry, plan: plan, paths: first.paths)
                removeLeftovers(observed, plan, paths: first.paths)
                try repairOwnershipWithoutCopy(plan, observed, paths: first.paths)
                release.unchanged[first.seed.name] = signed(report(observed, plan, release.kind, paths: first.paths), first.signature, pinned: first.quick.entry.signature)
                return try prepareEach(work.dropFirst(), release, body)
            }
            warnOfReplacedRun(observed, plan, paths: first.paths, dryRun: false)
            let executor = try executor(first, observed, plan, release.kind, lock: lock, deadline: deadline)
            let entry = release.prepared.count
            release.prepared.append(ReleaseRuns.Entry(index: index, work: first, observed: observed, plan: plan, executor: executor, run: try executor.prepare(plan)))
            do throws(SeedDBError) {
                try prepareEach(work.dropFirst(), release, body)
            } catch {
                let prepared = release.prepared[entry]
                if prepared.plan.strategy == .live, prepared.run.installed, prepared.run.pendingRecord != nil {
                    // SQLite's backup committed: the new content is the working copy and
                    // cannot be taken back. It is kept, and recorded with the settings' undo.
                    release.committed[index] = prepared.executor.finish(prepared.plan, prepared.run)
                } else {
                    prepared.run.undo(logger: logger)
                }
                // The first seed is undone last: every seed's files are back, then the settings.
                if entry == 0 { restoreSettings(release) }
                throw error
            }
        }
    }

    /// With every seed prepared, and more than one to install: writes every seed's
    /// `"interrupted"` marker, each naming the whole release, in one settings write (one
    /// per settings file), before any seed is installed; each seed's run then leaves the
    /// settings to the release (``DeployTarget/release``). A seed whose killed run this
    /// release finishes keeps its marker, which then names this release too.
    private func writeMarkers(_ release: ReleaseRuns) throws(SeedDBError) {
        guard release.prepared.count > 1 else { return }
        let seeds = release.prepared.map { SettingsEntry.ReleaseSeed(name: $0.work.paths.name.rawValue, version: $0.executor.target.version) }
        for index in release.prepared.indices {
            let executor = release.prepared[index].executor
            var target = executor.target
            target.release = seeds
            release.prepared[index].executor = DeployExecutor(context: executor.context, target: target, lock: executor.lock, deadline: executor.deadline)
        }
        for (path, store, indices) in settingsFiles(release) {
            release.settingsBackups.append((path, store, try store.backup()))
            try store.update(timeout: configuration.wait) { table in
                for index in indices {
                    let entry = release.prepared[index]
                    let name = entry.work.paths.name.rawValue
                    if entry.plan.finishesInterrupted {
                        table[name]?.interrupted?.release = seeds
                    } else if let withdraw = entry.plan.withdraw {
                        var settings = table[name] ?? SettingsEntry()
                        settings.record = nil
                        settings.interrupted = entry.executor.marker(withdraw, entry.run)
                        table[name] = settings
                    }
                    // A plan with nothing to withdraw (a link put back, a read-only seed's
                    // record rewritten) keeps its record until it writes a new one, if it does.
                }
            }
        }
    }

    /// Once every seed is installed: records them all in one settings write (one per
    /// settings file), each seed's `record` step having left its change pending. From
    /// here on nothing is undone.
    private func recordAll(_ release: ReleaseRuns) throws(SeedDBError) {
        if !release.settingsBackups.isEmpty {
            for (_, store, indices) in settingsFiles(release) {
                try store.update(timeout: configuration.wait) { table in
                    for index in indices { release.prepared[index].run.pendingRecord?(&table) }
                }
            }
            release.settingsBackups = []
        }
        for entry in release.prepared { entry.run.forgetUndo() }
    }

    /// The settings stores the prepared seeds are recorded in, each with its seeds, in the
    /// release's order (a manifest's seeds share one).
    private func settingsFiles(_ release: ReleaseRuns) -> [(path: String, store: any DeployRecordStore, indices: [Int])] {
        var files: [(path: String, store: any DeployRecordStore, indices: [Int])] = []
        for (index, entry) in release.prepared.enumerated() {
            let path = entry.work.paths.settingsFile
            if let known = files.firstIndex(where: { $0.path == path }) {
                files[known].indices.append(index)
            } else {
                files.append((path, records(at: entry.work.paths), [index]))
            }
        }
        return files
    }

    /// Puts back every settings file the release wrote markers to, byte for byte, once
    /// every seed's run is undone. When a live install had committed (it cannot be
    /// undone), that file is written once instead: every other seed's entry as it was,
    /// the committed seeds recorded as they are.
    private func restoreSettings(_ release: ReleaseRuns) {
        let committed = release.prepared.indices.filter { release.committed[release.prepared[$0].index] != nil }
        for (path, store, backup) in release.settingsBackups.reversed() {
            do {
                let recorded = committed.filter { release.prepared[$0].work.paths.settingsFile == path }
                guard !recorded.isEmpty else {
                    try store.restore(backup, timeout: configuration.wait)
                    continue
                }
                let before = backup.bytes.map { SettingsSnapshot(parsing: $0).entries } ?? [:]
                try store.update(timeout: configuration.wait) { table in
                    for entry in release.prepared where entry.work.paths.settingsFile == path {
                        let name = entry.work.paths.name.rawValue
                        table[name] = before[name]
                    }
                    for index in recorded { release.prepared[index].run.pendingRecord?(&table) }
                }
            } catch {
                logger.error("could not undo the release's markers: \(error.message)")
            }
        }
        release.settingsBackups = []
    }

    /// Completes prepared entry `entry` (its plan's busy branch, if the swap found the
    /// database busy under `auto`, as a single run does), the marker rewritten for the
    /// live branch when the release wrote it.
    private func complete(_ release: ReleaseRuns, _ index: Int) throws(SeedDBError) {
        let entry = release.prepared[index]
        let paths = entry.work.paths
        (release.prepared[index].plan, release.prepared[index].run) = try entry.executor.complete(entry.plan, entry.run) { (plan, run) throws(SeedDBError) in
            guard entry.executor.target.release != nil, let withdraw = plan.withdraw else { return }
            let marker = entry.executor.marker(withdraw, run)
            try records(at: paths).update(timeout: configuration.wait) { $0[paths.name.rawValue]?.interrupted = marker }
        }
    }

    /// A run of one seed that finds its marker naming a release (the release was killed
    /// before it recorded its seeds): says which other seeds of that release are still
    /// unfinished. The run (of `kind`) does its own seed; theirs keep their markers (no
    /// record) until the release, or a run of each, finishes them.
    func warnOfUnfinishedRelease(_ observed: Observed, _ kind: DeployRequest.Kind, paths: SeedPaths) {
        guard let seeds = observed.entry.interrupted?.release else { return }
        let entries = (try? records(at: paths).snapshot().entries) ?? [:]
        let unfinished = seeds.filter { $0.name != paths.name.rawValue && entries[$0.name]?.interrupted != nil }
        guard !unfinished.isEmpty else { return }
        let names = unfinished.map { "\($0.name) (\($0.version.rawValue))" }.joined(separator: ", ")
        logger.warning("\(paths.workingCopy) is one seed of a release interrupted before it was recorded; this run \(kind == .rollback ? "rolls it back" : "deploys it") alone: \(names) of that release stay unfinished until the release is deployed again")
    }

    /// The executor of one seed's plan.
    private func executor(_ work: Work, _ observed: Observed, _ plan: DeployPlan, _ kind: DeployRequest.Kind, lock: any DeployLock, deadline: ContinuousClock.Instant) throws(SeedDBError) -> DeployExecutor {
        var target = try target(observed, plan, kind, paths: work.paths)
        (target.signature, target.manifest) = (work.signature, work.seed.manifest)
        return DeployExecutor(context: context(at: work.paths), target: target, lock: lock, deadline: deadline)
    }

    /// Every seed of a failed release as it was: what the quick look answered, or the
    /// seed unchanged at the version it holds (its recorded one; a killed run's, once that
    /// run switched, which the next run finishes); the failing seed left out.
    private func unchanged(_ seeds: [Seed], _ answered: [Int: DeployReport], except failing: Int?, _ kind: DeployRequest.Kind) -> [DeployReport] {
        seeds.indices.compactMap { index in
            if index == failing { return nil }
            if let report = answered[index] { return report }
            let seed = seeds[index]
            let paths = paths(for: seed)
            guard let observed = try? observe(seed, paths: paths, quick: true) else { return nil }
            var unchanged = report(observed, .nothing, .deploy, paths: paths)
            if let killed = observed.entry.interrupted, observed.entry.record == nil,
               let plan = try? DeployPlanner.plan(observed.observation, request(kind, seed)), plan.finishesInterrupted, !plan.undoesInterrupted {
                unchanged.to = killed.version
            }
            return unchanged
        }
    }
}
