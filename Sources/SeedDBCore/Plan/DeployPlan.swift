/// What a run will do to one working copy: the action, every choice made, and the named
/// steps in order. A value, made by ``DeployPlanner`` with no I/O, so a test can read it
/// without touching a disk; `DeployExecutor` (in `SeedDB`) runs it.
public struct DeployPlan: Sendable, Hashable {
    /// The action the plan carries out (``DeployAction/unchanged`` for an empty plan).
    public var action: DeployAction
    /// How the new content is installed; `nil` when nothing is installed.
    public var strategy: DeployStrategy?
    /// The check the staged copy gets (``IntegrityLevel/none`` when it already passed one
    /// at least as strict).
    public var integrity: IntegrityLevel
    /// Whether the old working copy becomes the previous generation.
    public var keepsPrevious: Bool
    /// Whether an existing previous generation is removed (it is replaced, consumed by a
    /// rollback, or generations were turned off).
    public var dropsPrevious: Bool
    /// The steps, in order.
    public var steps: [DeployStep]

    /// The steps that run under the writer's lock on the old working copy: everything that
    /// reads the old copy and everything up to the moment the new content is in place
    /// (and, for a swap, recorded), so no row committed by an app is lost.
    public var writerLockedSteps: [DeployStep] {
        guard strategy != nil, steps.contains(.carry) else { return [] }
        let locked: Set<DeployStep> = strategy == .swap
            ? [.carry, .install, .keepPrevious, .record]
            : [.carry, .keepPrevious]
        return steps.filter(locked.contains)
    }

    /// The plan that does nothing.
    public static let nothing = DeployPlan(action: .unchanged, strategy: nil, integrity: .none, keepsPrevious: false, dropsPrevious: false, steps: [])
}

/// What the caller asks of a run, beside what was observed.
public struct DeployRequest: Sendable, Hashable {
    /// What kind of run this is.
    public enum Kind: Sendable, Hashable {
        /// `deploy`: only when missing or outdated.
        case deploy
        /// `reseed`: whatever the versions say.
        case reseed
        /// `rollback`: the previous generation back in place.
        case rollback
    }

    /// What kind of run this is.
    public var kind: Kind
    /// The configured strategy.
    public var strategy: DeployStrategy
    /// Whether replaces keep the old copy as the previous generation.
    public var keepPrevious: Bool
    /// The configured integrity level.
    public var integrity: IntegrityLevel

    /// Creates a request.
    public init(kind: Kind, strategy: DeployStrategy = .auto, keepPrevious: Bool = true, integrity: IntegrityLevel = .quick) {
        self.kind = kind
        self.strategy = strategy
        self.keepPrevious = keepPrevious
        self.integrity = integrity
    }
}

/// The deploy decision: a pure function from what was observed and what was asked to a
/// ``DeployPlan``.
public enum DeployPlanner {
    /// Plans one run.
    ///
    /// - The action follows ``DeployDecision/action(recorded:current:workingCopyExists:force:)``;
    ///   a rollback is ``DeployAction/rolledBack``.
    /// - The strategy: a first install is always a swap (there is nothing to be in use);
    ///   `auto` swaps unless the working copy was seen in use, then goes live.
    /// - A previous generation is kept when asked and there is a recorded working copy to
    ///   keep; a rollback consumes the one it restores.
    /// - The check is skipped when the content already passed one at least as strict.
    public static func plan(_ observed: DeployObservation, _ request: DeployRequest) -> DeployPlan {
        let action: DeployAction
        switch request.kind {
        case .rollback:
            action = .rolledBack
        case .deploy, .reseed:
            action = DeployDecision.action(
                recorded: observed.recorded, current: observed.current,
                workingCopyExists: observed.workingCopyExists, force: request.kind == .reseed)
        }
        guard action.copies else { return .nothing }

        let replacing = observed.workingCopyExists
        let strategy: DeployStrategy
        switch request.strategy {
        case _ where !replacing: strategy = .swap
        case .auto: strategy = observed.usage.inUse ? .live : .swap
        case .swap, .live: strategy = request.strategy
        }
        let keepsPrevious = request.kind != .rollback && request.keepPrevious && replacing && observed.recorded != nil
        let dropsPrevious = observed.previousExists && (keepsPrevious || request.kind == .rollback || !request.keepPrevious)
        let integrity = observed.alreadyChecked.map { $0 >= request.integrity } == true ? .none : request.integrity

        var steps: [DeployStep] = [.stage]
        if integrity != .none { steps.append(.check) }
        if observed.recorded != nil || observed.previousRecorded { steps.append(.withdraw) }
        if replacing { steps.append(.carry) }
        switch strategy {
        case .swap:
            steps.append(.install)
            if keepsPrevious || dropsPrevious { steps.append(.keepPrevious) }
        default:
            if keepsPrevious || dropsPrevious { steps.append(.keepPrevious) }
            steps.append(.install)
        }
        steps += [.record, .cleanUp]
        return DeployPlan(
            action: action, strategy: strategy, integrity: integrity,
            keepsPrevious: keepsPrevious, dropsPrevious: dropsPrevious, steps: steps)
    }
}
