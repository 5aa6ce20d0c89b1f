import SeedDBCore

extension Deployer {
    /// Restores the previous generation kept by the last replace, atomically, and records
    /// its version. The previous generation is consumed: a second rollback has nothing to
    /// restore. Preserved tables are carried from the current copy as on any replace.
    ///
    /// - Throws: ``SeedDBError`` `seedUnavailable` (exit 66) when there is no previous
    ///   generation; otherwise as ``deploy(_:)``.
    @discardableResult
    public func rollback(_ seed: Seed) throws(SeedDBError) -> DeployReport {
        let paths = paths(for: seed)
        return try underDeployLock(seed) { (lock, entry, oldCopyExists, deadline) throws(SeedDBError) in
            guard let previous = entry.previous, try FileSystem.fileType(at: paths.previousGeneration) == .regular else {
                throw SeedDBError(.seedUnavailable, "no previous generation of \(paths.workingCopy) to roll back to")
            }
            let replacement = Replacement(source: paths.previousGeneration, version: previous.version, expectedSHA256: nil, keepPrevious: false, sourceDigest: nil)
            let strategy = try replace(seed, with: replacement, lock: lock, entry: entry, oldCopyExists: oldCopyExists, until: deadline)
            try settings(for: seed).update(timeout: remaining(until: deadline)) { $0[seed.name.rawValue]?.previous = nil }
            try FileSystem.remove(paths.previousGeneration)
            return report(seed, from: entry.record?.version, to: previous.version, .rolledBack, strategy: strategy)
        }
    }
}
