import SeedDBCore

extension Deployer {
    /// The startup check's repair: gives an up-to-date working copy at `paths` the owner
    /// and mode the configuration asks for when its content file drifted from them
    /// (someone ran `chmod` or `chown`), under the deploy lock, and says so in a warning;
    /// the run's answer is unchanged. (A run with work does this as its
    /// `repair-ownership` step.)
    /// For a read-only seed's link (`seedLink`, the seed it names), the link's owner: the
    /// repair gives the link (never the seed), the directory, the lock file, the settings
    /// file and a previous generation kept beside it the owner (and that copy the mode).
    func repairOwnership(_ paths: SeedPaths, contentFile: String?, seedLink: String?) throws(SeedDBError) {
        let policy = configuration.files
        guard let drift = try OwnershipRepair.drift(of: seedLink != nil ? paths.workingCopy : contentFile, policy: policy, files: effects.files, seedLink: seedLink != nil)
        else { return }
        try withDeployLock(paths) { (_, _) throws(SeedDBError) in
            let found = try WorkingCopy.inspect(paths, seedLinks: seedLink.map { [$0] } ?? [], files: effects.files)
            if let seedLink {
                guard found.seedLinkTarget == seedLink else { return }
                try OwnershipRepair.apply(paths, content: nil, drift: drift, policy: policy, files: effects.files, logger: logger)
            } else if let content = found.contentFile {
                try OwnershipRepair.apply(paths, content: content, drift: drift, policy: policy, files: effects.files, logger: logger)
            }
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
