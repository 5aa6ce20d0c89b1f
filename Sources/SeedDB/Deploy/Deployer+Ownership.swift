import SeedDBCore

extension Deployer {
    /// The startup check's repair: gives an up-to-date working copy at `paths` the owner
    /// and mode the configuration asks for when its content file drifted from them
    /// (someone ran `chmod` or `chown`), under the deploy lock, and says so in a warning;
    /// the run's answer is unchanged. (A run with work does this as its
    /// `repair-ownership` step.)
    /// For a read-only seed's link, the link's owner: the repair gives the link (never the
    /// seed), the directory, the lock file, the settings file and a previous generation
    /// kept beside it the owner (and that copy the mode).
    func repairOwnership(_ workingCopy: WorkingCopy) throws(SeedDBError) {
        let policy = configuration.files, paths = workingCopy.paths
        guard let drift = try OwnershipRepair.drift(of: workingCopy, policy: policy, files: effects.files) else { return }
        let seedLinks = workingCopy.seedLinkTarget.map { [$0] } ?? []
        try withDeployLock(paths) { (_, _) throws(SeedDBError) in
            // Still the copy (or the link) the drift was seen on.
            let found = try WorkingCopy.inspect(paths, seedLinks: seedLinks, files: effects.files)
            let same = if let link = workingCopy.seedLinkTarget { found.seedLinkTarget == link } else { found.contentFile != nil }
            guard same else { return }
            try OwnershipRepair.apply(paths, content: found.contentFile, drift: drift, policy: policy, files: effects.files, logger: logger)
        }
    }
}

extension FilePolicy {
    /// Whether an owner or a working-copy mode is asked for (`--owner`, `--mode`).
    var asksForOwnership: Bool { owner != nil || workingCopyMode != nil }

    /// `mode` in octal with a leading zero, as `chmod` takes it (`0640`).
    static func octal(_ mode: UInt16) -> String {
        "0" + String(mode, radix: 8)
    }
}
