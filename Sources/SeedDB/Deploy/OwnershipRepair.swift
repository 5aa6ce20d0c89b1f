import Logging
import SeedDBCore

/// Gives a working copy the owner and mode the configuration asks for (`--owner`,
/// `--mode`): the `repair-ownership` step, and the startup check's repair of an up-to-date
/// copy. Through the effects, so the simulator runs it too.
enum OwnershipRepair {
    /// What differs between `workingCopy` and the owner and mode `policy` asks for, as
    /// words for a log line (`mode 0664 -> 0640, owner 0:0 -> 65534:65534`); `nil` when
    /// nothing does, or nothing is there. One `lstat` of its content file, and none when
    /// neither is asked for. For a read-only seed's link, the link's own owner only: a
    /// link has no mode of its own, and `--mode` never reaches the seed through it.
    static func drift(of workingCopy: WorkingCopy, policy: FilePolicy, files: any DeployFileSystem) throws(SeedDBError) -> String? {
        let seedLink = workingCopy.seedLinkTarget != nil
        guard policy.asksForOwnership, let path = seedLink ? workingCopy.paths.workingCopy : workingCopy.contentFile,
              let (mode, owner) = try files.modeAndOwner(of: path)
        else { return nil }
        var drift: [String] = []
        if !seedLink, let wanted = policy.workingCopyMode, mode != wanted {
            drift.append("mode \(FilePolicy.octal(mode)) -> \(FilePolicy.octal(wanted))")
        }
        if let wanted = policy.owner, owner != wanted {
            drift.append("owner \(owner.uid):\(owner.gid) -> \(wanted.uid):\(wanted.gid)")
        }
        return drift.isEmpty ? nil : drift.joined(separator: ", ")
    }

    /// Gives `content` (the working copy's content file) the mode and owner asked for, the
    /// link and the previous generation the same, and the settings file the owner, and
    /// says what was set (`drift`) in a warning. Runs under the deploy lock, which gave the
    /// directory and the lock file to the owner.
    ///
    /// - Parameter content: `nil` for a read-only seed's link: only the link itself is
    ///   given the owner (never the seed it names).
    static func apply(_ paths: SeedPaths, content: String?, drift: String, policy: FilePolicy, files: any DeployFileSystem, logger: Logger) throws(SeedDBError) {
        if let content { try files.setMode(policy.workingCopyMode, owner: policy.owner, of: content) }
        if content != paths.workingCopy, policy.owner != nil { try files.setMode(nil, owner: policy.owner, of: paths.workingCopy) }
        if try files.fileType(at: paths.previousGeneration) == .regular {
            try files.setMode(policy.workingCopyMode, owner: policy.owner, of: paths.previousGeneration)
        }
        if let owner = policy.owner, try files.fileType(at: paths.settingsFile) != nil {
            try files.setMode(nil, owner: owner, of: paths.settingsFile)
        }
        logger.warning("\(paths.workingCopy): owner and mode set as asked: \(drift)")
    }
}
