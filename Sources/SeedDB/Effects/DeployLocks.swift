import SeedDBCore

/// The deploy lock of one working copy, held by a run with work to do.
protocol DeployLock {
    /// Whether an open ``SeedDatabase`` handle holds the working copy (the lock file's
    /// readers byte), seen without touching the database.
    func handleOpenElsewhere() throws(SeedDBError) -> Bool
    /// Waits until no ``SeedDatabase`` handle holds the working copy, at most until `deadline`.
    /// - Throws: `error()` when the deadline passes first.
    func waitUntilNoHandle(until deadline: ContinuousClock.Instant, error: () -> SeedDBError) throws(SeedDBError)
}

/// How runs are serialised: one run with work to do at a time per working copy.
protocol DeployLocks: Sendable {
    /// Runs `body` holding the deploy lock of the working copy at `paths`, creating its
    /// directory (with `files`' mode and owner) first; when `body` fails, what this call
    /// created is removed.
    func withDeployLock<Result>(_ paths: SeedPaths, files: FilePolicy, wait: Duration, _ body: (any DeployLock) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result
}

extension FileLock: DeployLock {
    func handleOpenElsewhere() throws(SeedDBError) -> Bool { try isHeldElsewhere(.readers) }
    func waitUntilNoHandle(until deadline: ContinuousClock.Instant, error: () -> SeedDBError) throws(SeedDBError) {
        try waitUntilFree(.readers, until: deadline, error: error)
    }
}

/// The real deploy lock: an open-file-description lock on `<name>.lock` beside the
/// working copy, in a directory the root safety rule accepts.
struct LocalLocks: DeployLocks {
    /// Creates the real locks.
    init() {}

    func withDeployLock<Result>(_ paths: SeedPaths, files: FilePolicy, wait: Duration, _ body: (any DeployLock) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        try FileSystem.requireSafeParentForRoot(of: paths.directory)
        let created = try FileSystem.createDirectories(paths.directory, mode: files.directoryMode)
        do throws(SeedDBError) {
            try FileSystem.requireSafeForRoot(paths.directory, owner: files.owner)
            if let owner = files.owner { try FileSystem.setOwner(owner, of: paths.directory) }
            let lock = try FileLock.acquire(paths.lockFile, kind: .exclusive, timeout: wait, owner: files.owner)
            do throws(SeedDBError) {
                let result = try body(lock)
                lock.close()
                return result
            } catch {
                if lock.created { lock.removeAndClose() } else { lock.close() }
                throw error
            }
        } catch {
            for directory in created.reversed() { _ = FileSystem.removeIfEmpty(directory) }
            throw error
        }
    }
}
