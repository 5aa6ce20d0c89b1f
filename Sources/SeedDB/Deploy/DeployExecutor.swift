import Foundation
import GRDB
import Logging
import SeedDBCore

/// Runs a ``DeployPlan``: its steps in order, each step that changes something durable
/// registering how it is undone; when a step fails (or the run is interrupted), every
/// completed step is undone in reverse order, so a run that fails leaves the settings
/// file byte for byte, the working copy and the directory as they were.
///
/// The steps that read the old working copy run inside ``WriterLock`` (see
/// ``DeployPlan/writerLockedSteps``); for a live replace the install is that lock's own
/// commit. Runs under the deploy lock, which ``Deployer`` holds.
struct DeployExecutor {
    /// What the run needs of its deployer.
    let context: DeployContext
    /// What the run replaces, and with what.
    let target: DeployTarget
    /// The deploy lock (it tells whether a `SeedDatabase` is open).
    let lock: any DeployLock
    /// When waiting for other processes gives up.
    let deadline: ContinuousClock.Instant

    /// Thrown (as the underlying error of an `inUse` ``SeedDBError``) when `carry` finds
    /// the old copy written since the run found it unwritten (``DeployTarget/unwrittenSince``):
    /// the run is undone, and the caller looks again and plans the merge.
    struct WrittenSinceLooked: Error {}

    /// Runs `plan`: ``prepare(_:)``, ``complete(_:_:)``, ``finish(_:_:)``.
    /// - Throws: ``SeedDBError``, after undoing every completed step.
    func run(_ plan: DeployPlan) throws(SeedDBError) -> DeployReport {
        let (ran, run) = try complete(plan, try prepare(plan))
        return finish(ran, run)
    }

    /// Runs the steps that only prepare (`stage`, `migrate`, `check`): nothing anybody reads has
    /// changed when it returns. A release prepares every seed before it completes any.
    /// - Throws: ``SeedDBError``, after undoing what it did.
    func prepare(_ plan: DeployPlan) throws(SeedDBError) -> DeployRun {
        let run = DeployRun()
        do {
            try execute(plan, run, from: 0, to: Self.preparing(plan))
        } catch {
            run.undo(logger: context.logger)
            throw error
        }
        return run
    }

    /// Runs the rest of the plan but the clean-up; the run keeps how to undo all of it
    /// (``DeployRun/undo(downTo:logger:)``) until ``finish(_:_:)``. When the swap finds
    /// the old copy busy and the plan names a branch for that (``DeployPlan/whenBusy``),
    /// everything is undone and the branch runs instead.
    /// - Returns: The plan that ran (`plan` or its branch) and its run.
    /// - Throws: ``SeedDBError``, after undoing every completed step, the prepared ones too.
    /// - Parameter branching: Told the busy branch's plan and prepared run before they
    ///   complete (a release rewrites the branch's marker).
    func complete(
        _ plan: DeployPlan, _ run: DeployRun, branching: (DeployPlan, DeployRun) throws(SeedDBError) -> Void = { _, _ in }
    ) throws(SeedDBError) -> (DeployPlan, DeployRun) {
        do {
            try execute(plan, run, from: Self.preparing(plan), to: plan.names.firstIndex(of: .cleanUp) ?? plan.steps.count)
            return (plan, run)
        } catch {
            run.undo(logger: context.logger)
            guard error.underlying is WriterLock.SwapRefused, let busy = plan.whenBusy else { throw error }
            context.logger.debug("\(target.paths.workingCopy) is in use; replacing it live")
            let branch = try prepare(busy)
            do throws(SeedDBError) {
                try branching(busy, branch)
            } catch {
                branch.undo(logger: context.logger)
                throw error
            }
            return try complete(busy, branch)
        }
    }

    /// Removes what the run set aside and reports it: from here on the run cannot be
    /// undone (what the undo would need is gone), and says so by forgetting its undo.
    func finish(_ plan: DeployPlan, _ run: DeployRun) -> DeployReport {
        run.forgetUndo()
        var leftovers: [String] = []
        for case .cleanUp(let disposable) in plan.steps { leftovers = disposable }
        context.keepHeldCopies(plan.keepsHeldCopies, of: target.paths)
        cleanUp(leftovers, run)
        context.reached(.cleanUp)
        var report = DeployReport(
            name: target.paths.name, action: plan.action, from: target.replacedVersion, to: target.version,
            workingCopy: target.paths.workingCopy, strategy: plan.strategy, carried: run.carried, merge: run.merge?.summary,
            adopted: plan.adopted, conflictsKept: run.merge?.conflicts.map(\.kept) ?? [])
        report.mergeSkipped = plan.skipsMerge && target.merge.mergesAnything
        report.discarded = run.discarded
        report.oldCopyKeptAs = run.keepsOldCopyAs.map(target.paths.adoptedCopy)
        // (A copy made in a read-only seed's link's place leaves what it carried in the
        // previous generation, which stays.)
        report.keptPrevious = plan.leavesReplacedContentAsPrevious
        report.seedLink = plan.seedLink?.target
        return report
    }

    /// How many of the plan's first steps only prepare.
    private static func preparing(_ plan: DeployPlan) -> Int {
        plan.names.prefix { $0 == .stage || $0 == .migrate || $0 == .check || $0 == .fingerprint }.count
    }

    private func execute(_ plan: DeployPlan, _ run: DeployRun, from start: Int, to end: Int) throws(SeedDBError) {
        let locked = plan.writerLockedSteps
        var index = start
        while index < end {
            let step = plan.steps[index]
            if step.name == .cleanUp { return }
            if locked.first == step.name {
                let count = plan.names[index...].prefix { locked.contains($0) || (plan.strategy == .live && $0 == .install) }.count
                let lockedSteps = plan.steps[index..<(index + count)].filter { locked.contains($0.name) }
                try underWriterLock(plan, run) { (scope) throws(SeedDBError) in
                    for step in lockedSteps { try perform(step, plan, run, scope: scope) }
                }
                if plan.strategy == .live { context.reached(.install) }
                index += count
                continue
            }
            try perform(step, plan, run, scope: nil)
            index += 1
        }
    }

    /// Runs `body` under the writer's lock the plan's strategy takes; undoes the steps
    /// `body` completed before the lock is released when it fails.
    private func underWriterLock(_ plan: DeployPlan, _ run: DeployRun, _ body: (WriterScope) throws(SeedDBError) -> Void) throws(SeedDBError) {
        guard let old = plan.oldContent.flatMap(target.paths.file(of:)) else { return try body(.swap(old: nil)) }
        let mark = run.undoCount
        func guarded(_ scope: WriterScope) throws(SeedDBError) {
            do throws(SeedDBError) {
                try body(scope)
            } catch {
                run.undo(downTo: mark, logger: context.logger)
                throw error
            }
        }
        let tables = target.preservedTables.map { NameRules.quoted($0) }.joined(separator: ", ")
        let waiting = target.preservedTables.isEmpty
            ? "replace \(target.paths.workingCopy)"
            : "carry table\(target.preservedTables.count == 1 ? "" : "s") \(tables) from \(target.paths.workingCopy)"
        let database = context.effects.database
        switch plan.strategy {
        case .live:
            try database.replaceLive(
                old, staged: try run.staged(for: .install).path, waiting: waiting, until: deadline,
                progress: context.configuration.progress, isInterrupted: context.configuration.isInterrupted
            ) { (live, oldCopy) throws(SeedDBError) in
                try guarded(.live(staged: live, old: oldCopy))
            }
            run.installed = true
        default:
            try lock.waitUntilNoHandle(until: deadline) {
                SeedDBError(.inUse, "cannot \(waiting): database in use by another process")
            }
            // `auto` chose a swap because nobody was seen using the copy; if someone turns
            // up, it does not wait: the plan's live branch runs instead.
            var patience: Duration?
            for case .install(.swap(let swap)) in plan.steps where swap.onBusy == .goLive { patience = .zero }
            try database.underSwapLock(old, waiting: waiting, patience: patience, until: deadline, logger: context.logger) { (oldCopy) throws(SeedDBError) in
                try guarded(.swap(old: oldCopy))
            }
        }
    }

    /// Runs one step, after checking for an interruption, and tells the observers.
    private func perform(_ step: PlannedStep, _ plan: DeployPlan, _ run: DeployRun, scope: WriterScope?) throws(SeedDBError) {
        if !run.installed, context.configuration.isInterrupted?() == true {
            throw SeedDBError(.interrupted, "interrupted; nothing was changed")
        }
        context.configuration.stepStarted?(step.name)
        switch step {
        case .stage(let stage): try self.stage(stage, run)
        case .migrate: try migrate(run)
        case .check(let check): try self.check(check, run)
        case .fingerprint(let remembered): try fingerprint(remembered, run)
        case .withdraw(let withdraw): try self.withdraw(withdraw, run)
        case .carry(let carry): try self.carry(carry, plan, run, scope: scope)
        case .keepPrevious(let keep): try keepPrevious(keep, plan, run, scope: scope)
        case .install(.swap(let swap)): try installBySwap(swap, run)
        case .install(.live): return  // SQLite's backup commits as the writer's lock closes.
        case .relink(let generation): try relink(generation, run)
        case .reinstate(let record): try reinstate(record, run)
        case .linkSeed(let link): try linkSeed(link, run)
        case .record(let record): try self.record(record, plan, run)
        case .repairOwnership(let drift): try repairOwnership(drift, plan)
        case .cleanUp: return
        }
        context.reached(step.name)
    }
}

/// What an executor needs of the ``Deployer`` that runs it, and nothing more: how deploys
/// behave, where the working copy's record is kept, where warnings go.
struct DeployContext {
    /// How deploys behave (strategy, waits, file policy, the step observers).
    var configuration: DeployConfiguration
    /// Where warnings and debug traces go.
    var logger: Logger
    /// The settings store the working copy is recorded in.
    var records: any DeployRecordStore
    /// The file system, the databases, the locks and the clock.
    var effects: DeployEffects

    /// The clock's time now as an extended UTC timestamp (a record's `deployedAt`).
    func now() -> String {
        UTCTimestamp.extended(secondsSinceEpoch: effects.clock())
    }

    /// Tells the configured observer that `step` completed.
    func reached(_ step: DeployStep) {
        configuration.stepObserver?(step)
    }

    /// Keeps each held copy a killed run left as the adopted copy the plan names
    /// (``DeployPlan/keepsHeldCopies``), saying so. Failures are logged, never thrown:
    /// the held copy stays, and the next run keeps it.
    func keepHeldCopies(_ held: [PlannedStep.HeldCopy], of paths: SeedPaths) {
        for copy in held {
            let adopted = paths.adoptedCopy(copy.stamp)
            do {
                try effects.files.renameNoReplace(copy.path, to: adopted)
                logger.warning("\(copy.path) held the database a killed run replaced at \(paths.workingCopy); it is kept as \(adopted) (`seeddb purge --adopted` removes it)")
            } catch {
                logger.warning("could not keep \(copy.path) as \(adopted): \(error.message)")
            }
        }
    }
}

/// What a replace puts in place of the working copy, and what was recorded before.
struct DeployTarget {
    /// The working copy's paths.
    var paths: SeedPaths
    /// The file whose content is deployed: the seed, or the previous generation.
    var source: String
    /// The version that content is recorded as.
    var version: SeedVersion
    /// The digest the source must have, when known.
    var expectedSHA256: SHA256Digest?
    /// The seed file's identity and digest as known before the run (from the settings or
    /// the version's resolution); ``DeployRun/sourceDigest`` adds what the copy learnt.
    var knownSourceDigest: SourceDigest?
    /// Tables whose rows survive the replace.
    var preservedTables: [String]
    /// How the user's edits are merged into the new seed, when the plan merges.
    var merge: MergePolicies
    /// Where the working copy lives.
    var location: SeedLocation
    /// The version recorded when the run started, for the report.
    var replacedVersion: SeedVersion?
    /// The identity the old copy kept from its deploy when the run found it the seed's
    /// own, unwritten (the plan then skips its merge): `carry` looks again under the
    /// writer's lock, and a copy written since stops the run (``WrittenSinceLooked``).
    var unwrittenSince: FileIdentity?
    /// The settings file as the run found it, to put back on failure.
    var settingsBackup: SettingsStore.Backup
    /// The signed manifest the seed came from and who signed it, when its app has trusted
    /// keys (see `Deployer+Signature.swift`); recorded by `record`.
    var signature: SeedSignature? = nil
    /// That manifest's path, for the refusal of a seed whose digest differs.
    var manifest: String? = nil
    /// When the run is one seed of a release (`Deployer.deploy(release:force:)`): every
    /// seed the release installs. The release writes every seed's `"interrupted"` marker
    /// (naming them all) in one settings write before any `withdraw`, records every seed
    /// in one write after the last install, and puts the settings back once every seed is
    /// undone; `withdraw` and `record` leave the settings file to it.
    var release: [SettingsEntry.ReleaseSeed]? = nil
}

/// How the steps under the writer's lock reach the old copy.
enum WriterScope {
    /// A swap: the old copy to attach (`nil` when it is not a database).
    case swap(old: WriterLock.OldCopy)
    /// A live replace: the staged copy's connection, inside the backup, and the old copy.
    case live(staged: any LiveReplace, old: WriterLock.OldCopy)
}

/// The state of one run: what the steps produced, and how to undo them.
final class DeployRun {
    /// The staged copy, once staged (see ``staged(for:)``).
    var staged: StagedCopy?
    /// The seed file's identity and digest to remember, once `stage` copied the seed.
    var sourceDigest: SourceDigest?
    /// The check the staged content passed, to remember.
    var memo: ValidationMemo?
    /// The tables carried.
    var carried: [String] = []
    /// The pristine copy of the new seed, kept as the next merge base, and its digest.
    var pristine: (path: String, digest: SHA256Digest)?
    /// Whether ``pristine`` is a hard link to the seed file (which changes its change time).
    var linkedSeed = false
    /// What the three-way merge did.
    var merge: MergeResult?
    /// The generation file a swap installs (named by `withdraw`).
    var generation: String?
    /// The tables of the content installed, before anything was carried into it.
    var seedTables: [String]?
    /// The digests of those tables, when the plan records them (`fingerprint`).
    var tableDigests: [String: SHA256Digest]?
    /// The seed tables the user had changed whose changes the carry replaced (their merge
    /// policy is `off`); `nil` when the carry replaced none, or could not tell.
    var discarded: [String]?
    /// The old content's file after a swap moved it out of the way.
    var oldContent: String?
    /// The stamp the old generation file is kept under as an adopted copy instead of
    /// retired: the carry replaced some of the user's changes
    /// (``PlannedStep/Carry/keepsOldCopyIfDiscarded``).
    var keepsOldCopyAs: String?
    /// Whether the new content is in place (past that, an interruption finishes the run).
    var installed = false
    /// The identity of the generation file a swap installs, taken before the link names
    /// it (no app can have written it yet): recorded as the seed's own, unwritten, when
    /// nothing was carried into it.
    var installedIdentity: FileIdentity?
    /// Files to remove once the run succeeded.
    var setAside: [String] = []
    /// One seed of a release: what `record` changes in the settings, written with every
    /// other seed's record by the release.
    var pendingRecord: ((inout SettingsTable) -> Void)?
    private var undoStack: [(String, () throws(SeedDBError) -> Void)] = []

    /// The staged copy, for `step`, which comes after `stage`: the planner puts `stage`
    /// first in every plan that copies, and a plan that does not copy has no step that
    /// needs one.
    /// - Throws: ``SeedDBError`` `ioFailure` when the plan broke that rule.
    func staged(for step: DeployStep) throws(SeedDBError) -> StagedCopy {
        guard let staged else {
            throw SeedDBError(.ioFailure, "cannot \(step.rawValue): the plan staged no copy")
        }
        return staged
    }

    /// Flushes and hashes the staged copy again, after something wrote into it.
    func rehashStaged(_ files: any DeployFileSystem) throws(SeedDBError) {
        guard var copy = staged else { return }
        (copy.digest, copy.size) = try files.digestAndSync(copy.path)
        staged = copy
    }

    /// How many undo actions are registered.
    var undoCount: Int { undoStack.count }

    /// Registers how to undo what a step just did.
    func onFailure(_ what: String, _ action: @escaping () throws(SeedDBError) -> Void) {
        undoStack.append((what, action))
    }

    /// Forgets every undo action: the run is done.
    func forgetUndo() {
        undoStack.removeAll()
    }

    /// Undoes, newest first, every action registered after the first `mark`.
    func undo(downTo mark: Int = 0, logger: Logger) {
        while undoStack.count > mark {
            let (what, action) = undoStack.removeLast()
            do {
                try action()
            } catch {
                logger.error("could not undo \(what): \(error.message)")
            }
        }
    }
}

/// A checked, flushed copy of the new content in a temporary file beside the working copy.
struct StagedCopy {
    var path: String
    var digest: SHA256Digest
    var size: Int64
}
