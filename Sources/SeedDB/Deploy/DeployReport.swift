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
}

/// The state of one seed, as `status` reports it.
public struct SeedStatus: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// The version the app ships now.
    public var currentVersion: SeedVersion
    /// The version recorded in the settings store; `nil` when none is.
    public var recordedVersion: SeedVersion?
    /// The working copy's path.
    public var workingCopy: String
    /// Whether a regular file is at the working-copy path.
    public var exists: Bool
    /// The state the decision derives from the above.
    public var state: SeedState
    /// What is wrong with the settings file, if anything (reported, never repaired here).
    public var settingsProblem: SettingsSnapshot.Problem?
    /// Temporary files a killed run left beside the working copy (the next run that
    /// takes the deploy lock removes them).
    public var leftovers: [String] = []
}

/// The result of `verify` for one seed.
public struct VerifyReport: Sendable, Hashable {
    /// The working copy's file name.
    public var name: SeedName
    /// `"ok"` or the first problem found in the seed.
    public var seed: String
    /// `"ok"`, the first problem found in the working copy, or ``notDeployed``.
    public var workingCopy: String

    /// What ``workingCopy`` says when there is no working copy to check.
    public static let notDeployed = "not deployed"

    /// Whether both files passed (a working copy not deployed yet is not a failure).
    public var passed: Bool {
        seed == "ok" && (workingCopy == "ok" || workingCopy == Self.notDeployed)
    }
}
