import SeedDBCore

/// What a deploy did (or, in a dry run, would do) to one seed.
public struct DeployReport: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// What happened.
    public var action: DeployAction
    /// The version recorded before the run; `nil` when none was.
    public var from: SeedVersion?
    /// The version the working copy holds after the run.
    public var to: SeedVersion
    /// The working copy's path.
    public var workingCopy: String
    /// How the content was put in place (``DeployStrategy/swap`` or
    /// ``DeployStrategy/live``); `nil` when nothing was installed.
    public var strategy: DeployStrategy?
    /// The tables carried from the old working copy (preserved, and those the app
    /// created); empty when none were.
    public var carried: [String] = []
    /// What the three-way merge of the user's edits did; `nil` when merging is off.
    public var merge: MergeSummary?
    /// Whether the database found at the working-copy path had no record that matched it
    /// and was kept as the previous generation.
    public var adopted: Bool = false
    /// For ``DeployAction/held``: the version the rollback that holds it restored from.
    public var heldFrom: SeedVersion?
    /// The side each conflict of the merge kept, in the order `seeddb conflicts` lists
    /// them; empty when the merge met none (or none ran).
    public var conflictsKept: [MergeConflict.Kept] = []
    /// The seed tables the user had changed whose changes the run replaced with the
    /// seed's rows (their merge policy is `off`, or a merge with a base could not merge
    /// them: no primary key, a virtual table), in name order: empty when the user had
    /// changed none; `nil` when no table's changes were replaced (every table merges, or
    /// nothing was there to replace), or when the run could not tell which (a warning says
    /// so). A dry run (``Deployer/plan(_:force:)``) names those whose policy is `off`,
    /// compared as the run compares them (but for a base kept compressed, which it does
    /// not restore); the tables a merge could not merge are known only once it ran.
    public var discarded: [String]? = nil
    /// Whether the run merges the user's changes into the new copy (some table's merge
    /// policy is not `off`, and there is an old copy to merge from): a run that merged has
    /// its ``merge``; a dry run, which merges nothing, says so here.
    public var merging = false
    /// Whether the run kept the replaced content as the previous generation
    /// (``SeedPaths/previousGeneration``), for ``Deployer/rollback(_:)``.
    public var keptPrevious = false
    /// Where the run kept the replaced content when it kept no previous generation (a
    /// rollback, or `keepPrevious` off) and its merge replaced some of the user's changes
    /// (``discarded``): an adopted copy (``SeedPaths/adoptedCopy(_:)``), which
    /// `seeddb purge --adopted` removes. `nil` otherwise. A dry run names the one the run
    /// would make for the tables it names in ``discarded`` (the run's name has the run's
    /// time in it).
    public var oldCopyKeptAs: String? = nil
    /// Whether the merge the seed asks for was skipped: the working copy was the seed's
    /// own content, unwritten since its deploy, so nothing of the user's was there.
    public var mergeSkipped = false
    /// The signature the run checked: who signed the manifest and its serial; `nil` when
    /// no key is trusted for the app and none is pinned (and for a rollback, which checks
    /// none).
    public var signature: SeedSignature? = nil
    /// The pin ``DeployConfiguration/forgetSignature`` forgot: the record no longer pins
    /// that key (it pins the one in ``signature``, if any).
    public var forgotSignature: SeedSignature? = nil
    /// For a read-only seed: the seed file the working copy is a link to (``Seed/readOnly``);
    /// `nil` when the working copy is a copy.
    public var seedLink: String? = nil
}

/// The state of one seed, as `status` reports it.
public struct SeedStatus: Sendable {
    /// The working copy's file name.
    public var name: SeedName
    /// The version the app ships now.
    public var currentVersion: SeedVersion
    /// The version recorded in the settings store; `nil` when none is.
    public var recordedVersion: SeedVersion?
    /// The working copy's path.
    public var workingCopy: String
    /// Whether an app opening the working-copy path finds a database there: a regular
    /// file, SeedDB's link to its generation file or to a read-only seed that is there, or
    /// a link SeedDB did not make (``blocked``) to a regular file.
    public var exists: Bool
    /// The state the decision derives from the above.
    public var state: SeedState
    /// What is wrong with the settings file, if anything (reported, never repaired here).
    public var settingsProblem: SettingsSnapshot.Problem?
    /// The version a rollback restored from, while it holds the working copy.
    public var heldFrom: SeedVersion?
    /// What is at the working-copy path when it is something SeedDB never replaces (a
    /// directory, a link it did not make, a link to a file that is gone).
    public var blocked: String?
    /// Files a killed run left beside the working copy that SeedDB proved disposable (the
    /// next run that succeeds removes them): never a database the user may have written.
    public var leftovers: [String] = []
    /// The adopted copies kept beside the working copy (`<name>.adopted-<stamp>`):
    /// databases SeedDB found with no record that matched them, kept instead of being
    /// rotated away; only `purge` removes them.
    public var adoptedCopies: [String] = []
    /// Generation files beside the working copy that nothing names (no link, no record,
    /// no killed run's marker) and that may hold what the user wrote (a link the user
    /// replaced by another file once named one): never removed but by `purge`.
    public var unaccountedGenerations: [String] = []
    /// The key id and serial of the signed manifest the recorded version came from;
    /// `nil` when nothing is recorded or it was not signed.
    public var signature: SeedSignature? = nil
    /// The key id the record pins: a deploy takes only what this key or a trusted one
    /// signed (see ``SeedSignature``); `nil` when none is pinned.
    public var pinnedKeyID: String? = nil
    /// What a deploy would refuse for the seed's signature, as the error it would fail
    /// with (``Deployer/checkSignature(_:digest:)``), or a read-only seed the app's user
    /// could write (73); `nil` when it would not. The seed's digest is compared only when
    /// a deploy would copy it.
    public var refusal: SeedDBError? = nil
    /// The seed file the working copy is a link to, when it is a read-only seed's
    /// (``Seed/readOnly``); `nil` for a copy.
    public var seedLink: String? = nil
    /// The version a run under way, or killed, was installing (its `"interrupted"`
    /// marker): the next deploy, reseed or rollback finishes or undoes it. `nil` when none is.
    public var interruptedVersion: SeedVersion? = nil
}

/// What `verify` found in one file.
public enum IntegrityResult: Sendable, Hashable, CustomStringConvertible {
    /// `PRAGMA integrity_check` found nothing wrong.
    case ok
    /// The problems `integrity_check` listed, one per element, in its order (or why the
    /// file could not be read as a database); never empty.
    case damaged([String])
    /// A version is recorded as deployed, but no working copy is there (for the seed: its
    /// file is not there).
    case missing
    /// Nothing is recorded and no working copy is there: not deployed yet (not a failure).
    case notDeployed
    /// Something SeedDB did not make is at the working-copy path (what it is: `a
    /// directory`), which a deploy refuses to touch.
    case blocked(String)

    /// `ok`, the first problem, `missing`, `not deployed` or `blocked: …`: one line.
    public var description: String {
        switch self {
        case .ok: return "ok"
        case .damaged(let problems): return problems.first ?? "damaged"
        case .missing: return "missing"
        case .notDeployed: return "not deployed"
        case .blocked(let what): return "blocked: \(what)"
        }
    }

    /// Every problem found (empty unless ``damaged(_:)``).
    public var problems: [String] {
        if case .damaged(let problems) = self { return problems }
        return []
    }
}

/// The result of `verify` for one seed: the seed's and the working copy's integrity, and
/// the failure they amount to.
public struct VerifyReport: Sendable {
    /// The working copy's file name.
    public var name: SeedName
    /// The seed file's path.
    public var source: String
    /// The working copy's path.
    public var workingCopyPath: String
    /// What the seed's check found (``IntegrityResult/ok``, ``IntegrityResult/damaged(_:)``,
    /// or ``IntegrityResult/missing`` for a seed file that is not there).
    public var seed: IntegrityResult
    /// What the working copy's check found.
    public var workingCopy: IntegrityResult
    /// The signature checked, when the app has trusted keys (see
    /// ``DeployConfiguration/trustedKeys``); `nil` otherwise.
    public var signature: SeedSignature? = nil
    /// What a deploy would refuse for the seed's signature, its digest included (see
    /// ``Deployer/checkSignature(_:digest:)``), or a read-only seed the app's user could
    /// write (73); `nil` when it would not.
    public var refusal: SeedDBError? = nil

    /// The first failure, as the error a command exits with: what a deploy would refuse
    /// (``refusal``), a damaged seed (`invalidSeed`), a seed file not there
    /// (`seedUnavailable`), a damaged working copy
    /// (`corruptWorkingCopy`), a working copy recorded but missing (`seedUnavailable`),
    /// or something else in its place (`cannotCreate`, as a deploy refuses it); `nil` when
    /// the seed passed (a working copy not deployed yet is not a failure).
    public var failure: SeedDBError? {
        if let refusal { return refusal }
        switch seed {
        case .damaged(let problems):
            return SeedDBError(.invalidSeed, "integrity check failed for seed \(source): \(Self.summary(problems))")
        case .missing:
            return SeedDBError(.seedUnavailable, "seed not found: \(source)")
        default:
            break
        }
        switch workingCopy {
        case .damaged(let problems):
            return SeedDBError(.corruptWorkingCopy, "integrity check failed for working copy \(workingCopyPath): \(Self.summary(problems))")
        case .missing:
            return SeedDBError(.seedUnavailable, "working copy missing: \(workingCopyPath) is recorded as deployed but does not exist; a deploy restores it")
        case .blocked(let what):
            return WorkingCopy.blocked(workingCopyPath, what: what, operation: "verify")
        case .ok, .notDeployed:
            return nil
        }
    }

    /// Whether both files passed (a working copy not deployed yet is not a failure).
    public var passed: Bool { failure == nil }

    /// The first problem, and how many more there are.
    private static func summary(_ problems: [String]) -> String {
        let first = problems.first ?? "damaged"
        return problems.count > 1 ? "\(first) (and \(problems.count - 1) more problems)" : first
    }
}
