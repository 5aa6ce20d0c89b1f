import SeedDBCore

extension Deployer {
    /// The startup check's repair: gives an up-to-date working copy at `paths` the owner
    /// and mode the configuration asks for when its content file drifted from them
    /// (someone ran `chmod` or `chown`), under the deploy lock, and says so in a warning;
    /// the run's answer is unchanged. (A run with work does this as its
    /// `repair-ownership` step.)
    func repairOwnership(_ paths: SeedPaths, contentFile: String?) throws(SeedDBError) {
        let policy = configuration.files
        guard let drift = try OwnershipRepair.drift(of: contentFile, policy: policy, files: effects.files) else { return }
        try withDeployLock(paths) { (_, _) throws(SeedDBError) in
            guard let content = try WorkingCopy.inspect(paths, files: effects.files).contentFile else { return }
            try OwnershipRepair.apply(paths, content: content, drift: drift, policy: policy, files: effects.files, logger: logger)
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
