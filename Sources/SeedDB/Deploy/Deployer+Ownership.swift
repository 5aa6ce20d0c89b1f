import SeedDBCore

extension Deployer {
    /// What differs between the content file at `path` and the owner and mode the
    /// configuration asks for (``FilePolicy/owner``, ``FilePolicy/workingCopyMode``), as
    /// words for a log line (`mode 0664 -> 0640, owner 0:0 -> 65534:65534`); `nil` when
    /// nothing does. One `lstat`, and none when neither is asked for.
    func ownershipDrift(of path: String?) throws(SeedDBError) -> String? {
        let files = configuration.files
        guard files.asksForOwnership, let path, let status = try FileSystem.status(at: path) else { return nil }
        var drift: [String] = []
        if let wanted = files.workingCopyMode, status.permissionBits != wanted {
            drift.append("mode \(FilePolicy.octal(status.permissionBits)) -> \(FilePolicy.octal(wanted))")
        }
        if let owner = files.owner, status.owner != owner {
            drift.append("owner \(status.owner.uid):\(status.owner.gid) -> \(owner.uid):\(owner.gid)")
        }
        return drift.isEmpty ? nil : drift.joined(separator: ", ")
    }

    /// Gives the working copy at `paths` the owner and mode the configuration asks for
    /// when its content file has drifted from them (someone ran `chmod` or `chown`), and
    /// says so in a warning; the run's action is unchanged.
    ///
    /// The repair runs under the deploy lock, which gives the directory and the lock file
    /// to the owner; then the content file gets the mode and owner, the link and the
    /// previous generation the same, and the settings file the owner.
    func repairOwnership(_ paths: SeedPaths, contentFile: String?, holdingTheLock: Bool = false) throws(SeedDBError) {
        guard let drift = try ownershipDrift(of: contentFile) else { return }
        let files = configuration.files
        let repair = { () throws(SeedDBError) in
            guard let content = try WorkingCopy.inspect(paths).contentFile else { return }
            try FileSystem.setMode(files.workingCopyMode, owner: files.owner, of: content)
            if content != paths.workingCopy { try FileSystem.setMode(nil, owner: files.owner, of: paths.workingCopy) }
            if try FileSystem.fileType(at: paths.previousGeneration) == .regular {
                try FileSystem.setMode(files.workingCopyMode, owner: files.owner, of: paths.previousGeneration)
            }
            if let owner = files.owner, try FileSystem.fileType(at: paths.settingsFile) != nil {
                try FileSystem.setOwner(owner, of: paths.settingsFile)
            }
        }
        // A run with work repairs under the deploy lock it holds; the fast path takes it.
        if holdingTheLock {
            try repair()
        } else {
            try withDeployLock(paths) { (_, _) throws(SeedDBError) in try repair() }
        }
        logger.warning("\(paths.workingCopy): owner and mode set as asked: \(drift)")
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
