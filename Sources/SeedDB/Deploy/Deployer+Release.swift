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
    /// every seed is prepared are they installed, one after the other, each undoable until
    /// the last is recorded; then each one's clean-up. When any seed fails, every seed
    /// is undone: each settings entry, working copy and directory as it was.
    ///
    /// A run killed between two installs leaves the later seeds with their record (or
    /// their `"interrupted"` marker), and the next run of the release finishes every
    /// seed. A live install cannot be undone once its backup commits: a later seed's
    /// failure then leaves it installed (see NOTES.md).
    ///
    /// - Parameters:
    ///   - seeds: The release's seeds (a manifest's), deployed in this order.
    ///   - force: Reseed every seed, whatever the versions say.
    public func deploy(release seeds: [Seed], force: Bool = false) -> ReleaseOutcome {
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
                return ReleaseOutcome(reports: unchanged(seeds, answered, except: index), failure: (seed.name, error))
            }
        }
        let release = ReleaseRuns(kind: kind)
        do {
            try prepareEach(work[...], release) { () throws(SeedDBError) in
                for entry in release.prepared.indices {
                    release.failing = release.prepared[entry].work.seed.name
                    try complete(release, entry)
                }
                for entry in release.prepared {
                    answered[entry.index] = try finished(entry.executor.finish(entry.plan, entry.run), entry.work, kind)
                }
            }
        } catch {
            let failed = release.failing ?? work.first?.work.seed.name ?? seeds[0].name
            return ReleaseOutcome(reports: unchanged(seeds, answered, except: seeds.firstIndex { $0.name == failed }), failure: (failed, error))
        }
        for (index, found) in work where answered[index] == nil {
            // Nothing to copy once locked (another run did it meanwhile).
            answered[index] = release.unchanged[found.seed.name]
        }
        return ReleaseOutcome(reports: seeds.indices.compactMap { answered[$0] }, failure: nil)
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
        /// The reports of seeds that turned out to have nothing to do under their lock.
        var unchanged: [SeedName: DeployReport] = [:]
        /// The seed being prepared or completed.
        var failing: SeedName?

        init(kind: DeployRequest.Kind) { self.kind = kind }
    }

    /// Takes the deploy lock of the first seed of `work`, finishes an interrupted run of
    /// it (not part of this release), prepares it, and recurses: `body` runs with every
    /// lock held and every seed prepared. A failure anywhere undoes every run, completed
    /// ones included, newest first.
    private func prepareEach(_ work: ArraySlice<(index: Int, work: Work)>, _ release: ReleaseRuns, _ body: () throws(SeedDBError) -> Void) throws(SeedDBError) {
        guard let (index, first) = work.first else { return try body() }
        release.failing = first.seed.name
        try withDeployLock(first.paths) { (lock, deadline) throws(SeedDBError) in
            var observed = try observe(first.seed, paths: first.paths, lock: lock, known: first.quick.sourceDigest, planning: release.kind)
            try requirePinned(first.signature, entry: observed.entry, seed: first.seed)
            var plan = try decide(observed, release.kind, paths: first.paths)
            if plan.finishesInterrupted, plan.action.copies, plan.names.contains(where: { $0 != .cleanUp && $0 != .repairOwnership }) {
                // A killed run of this seed (an earlier release's) is finished first.
                _ = try executor(first, observed, plan, release.kind, lock: lock, deadline: deadline).run(plan)
                observed = try observe(first.seed, paths: first.paths, lock: lock, known: first.quick.sourceDigest, planning: release.kind)
                plan = try decide(observed, release.kind, paths: first.paths)
            }
            guard plan.action.copies, plan.names.contains(where: { $0 != .cleanUp && $0 != .repairOwnership }) else {
                try rememberSignature(first.signature, entry: observed.entry, plan: plan, paths: first.paths)
                removeLeftovers(observed)
                try repairOwnershipWithoutCopy(plan, observed, paths: first.paths)
                release.unchanged[first.seed.name] = signed(report(observed, plan, release.kind, paths: first.paths), first.signature, pinned: first.quick.entry.signature)
                return try prepareEach(work.dropFirst(), release, body)
            }
            let executor = try executor(first, observed, plan, release.kind, lock: lock, deadline: deadline)
            let entry = release.prepared.count
            release.prepared.append(ReleaseRuns.Entry(index: index, work: first, observed: observed, plan: plan, executor: executor, run: try executor.prepare(plan)))
            do throws(SeedDBError) {
                try prepareEach(work.dropFirst(), release, body)
            } catch {
                release.prepared[entry].run.undo(logger: logger)
                throw error
            }
        }
    }

    /// Completes prepared entry `entry` (its plan's busy branch, if the swap found the
    /// database busy under `auto`, as a single run does).
    private func complete(_ release: ReleaseRuns, _ index: Int) throws(SeedDBError) {
        let entry = release.prepared[index]
        (release.prepared[index].plan, release.prepared[index].run) = try entry.executor.complete(entry.plan, entry.run)
    }

    /// The executor of one seed's plan.
    private func executor(_ work: Work, _ observed: Observed, _ plan: DeployPlan, _ kind: DeployRequest.Kind, lock: any DeployLock, deadline: ContinuousClock.Instant) throws(SeedDBError) -> DeployExecutor {
        var target = try target(observed, plan, kind, paths: work.paths)
        (target.signature, target.manifest) = (work.signature, work.seed.manifest)
        let context = DeployContext(configuration: configuration, logger: logger, records: records(at: work.paths), effects: effects)
        return DeployExecutor(context: context, target: target, lock: lock, deadline: deadline)
    }

    /// Every seed of a failed release as it was: what the quick look answered, or the
    /// seed unchanged at its recorded version; the failing seed left out.
    private func unchanged(_ seeds: [Seed], _ answered: [Int: DeployReport], except failing: Int?) -> [DeployReport] {
        seeds.indices.compactMap { index in
            if index == failing { return nil }
            if let report = answered[index] { return report }
            let seed = seeds[index]
            let paths = paths(for: seed)
            guard let observed = try? observe(seed, paths: paths, quick: true) else { return nil }
            return report(observed, .nothing, .deploy, paths: paths)
        }
    }
}
