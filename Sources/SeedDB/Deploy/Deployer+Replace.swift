import Foundation
import SeedDBCore
import SystemPackage

extension Deployer {
    /// What one replacement puts in place of the working copy.
    struct Replacement {
        /// The file whose content is deployed: the seed, or the previous generation.
        var source: String
        /// The version that content is recorded as.
        var version: SeedVersion
        /// The digest the source must have, when known.
        var expectedSHA256: SHA256Digest?
        /// Whether the old working copy becomes the previous generation.
        var keepPrevious: Bool
        /// The seed file's identity and digest to remember, for `version: auto`.
        var sourceDigest: SourceDigest?
    }

    /// A checked, flushed copy of the new content in a temporary file beside the working copy.
    struct StagedCopy {
        var path: String
        var digest: SHA256Digest
        var size: Int64
        var pageSize: Int
        /// The seed content's digest and the check it passed, remembered in the settings.
        var memo: ValidationMemo?
    }

    /// Deploys (or, when `force`, reseeds) `seed`.
    func run(_ seed: Seed, force: Bool) throws(SeedDBError) -> DeployReport {
        // The startup hot path: one settings read and one lstat; no lock, no hashing, no
        // SQLite, no look at the seed (with `version: auto`, one stat of it).
        let quick = try currentState(of: seed)
        let resolved = try resolve(seed, quick)
        let seed = resolved.seed
        if !force, quick.problem == nil,
           DeployDecision.action(recorded: quick.record?.version, current: seed.version, workingCopyExists: quick.exists) == .unchanged {
            if resolved.isNewDigest {
                // Same content under a new identity (touched, copied): remember it.
                try settings(for: seed).update(timeout: configuration.wait) { $0[seed.name.rawValue]?.source = resolved.source }
            }
            return report(seed, from: quick.record?.version, .unchanged)
        }
        return try underDeployLock(seed) { (lock, entry, oldCopyExists, deadline) throws(SeedDBError) in
            // Another process may have finished the job while this one waited for the lock.
            let action = DeployDecision.action(recorded: entry.record?.version, current: seed.version, workingCopyExists: oldCopyExists, force: force)
            guard action.copies else { return report(seed, from: entry.record?.version, action) }
            let replacement = Replacement(
                source: seed.source, version: seed.version, expectedSHA256: seed.expectedSHA256,
                keepPrevious: configuration.keepPrevious, sourceDigest: resolved.source)
            let strategy = try replace(seed, with: replacement, lock: lock, entry: entry, oldCopyExists: oldCopyExists, until: deadline)
            return report(seed, from: entry.record?.version, action, strategy: strategy)
        }
    }

    /// Runs `body` holding the deploy lock, after removing what crashed runs left, with
    /// the settings entry and the working copy's state as they are under the lock.
    func underDeployLock<Result>(
        _ seed: Seed,
        _ body: (FileLock, SettingsEntry, Bool, ContinuousClock.Instant) throws(SeedDBError) -> Result
    ) throws(SeedDBError) -> Result {
        let deadline = deadline()
        let paths = paths(for: seed)
        let files = configuration.files
        try FileSystem.createDirectories(paths.directory, mode: files.directoryMode)
        try FileSystem.requireSafeForRoot(FileSystem.directory(of: paths.directory), owner: nil, sticky: true)
        try FileSystem.requireSafeForRoot(paths.directory, owner: files.owner)
        if let owner = files.owner { try FileSystem.setOwner(owner, of: paths.directory) }
        let lock = try FileLock.acquire(paths.lockFile, kind: .exclusive, timeout: configuration.wait, owner: files.owner)
        defer { lock.close() }
        try FileSystem.removeStaleTemporaryFiles(in: paths.directory, stem: seed.name.rawValue)
        let existing = try FileSystem.fileType(at: paths.workingCopy)
        try requireReplaceable(existing, at: paths.workingCopy)
        let entry = try settings(for: seed).snapshot().entries[seed.name.rawValue] ?? SettingsEntry()
        return try body(lock, entry, existing == .regular, deadline)
    }

    /// A working copy path must be free or hold a regular file: never follow or replace a
    /// symbolic link, directory, FIFO or device someone put there.
    private func requireReplaceable(_ type: FileType?, at path: String) throws(SeedDBError) {
        guard let type, type != .regular else { return }
        let kind: String
        switch type {
        case .symbolicLink: kind = "a symbolic link"
        case .directory: kind = "a directory"
        case .fifo: kind = "a FIFO"
        case .socket: kind = "a socket"
        default: kind = "a device or special file"
        }
        throw SeedDBError(.cannotCreate, "cannot replace working copy \(path): it is \(kind), not a regular file; remove it and deploy again")
    }

    /// Stages the new content, puts it in place by the configured strategy, and records
    /// it. Runs under the deploy lock.
    /// - Returns: The strategy used.
    func replace(
        _ seed: Seed, with replacement: Replacement, lock: FileLock, entry: SettingsEntry,
        oldCopyExists: Bool, until deadline: ContinuousClock.Instant
    ) throws(SeedDBError) -> DeployStrategy {
        let paths = paths(for: seed)
        try settings(for: seed).requireWritable(timeout: remaining(until: deadline))
        let staged = try stage(seed, replacement, entry: entry, oldCopyExists: oldCopyExists)
        defer { try? FileSystem.remove(staged.path) }

        // The previous generation is replaced only when there is a deployed copy to keep.
        let keeping = replacement.keepPrevious && oldCopyExists && entry.record != nil
        let withdraw = { () throws(SeedDBError) in
            guard entry.record != nil || keeping else { return }
            try settings(for: seed).update(timeout: remaining(until: deadline)) { table in
                table[seed.name.rawValue]?.record = nil
                if keeping { table[seed.name.rawValue]?.previous = nil }
            }
            reached(.withdrawn)
        }

        let strategy = try install(staged, paths: paths, lock: lock, oldCopyExists: oldCopyExists, keeping: keeping, withdraw: withdraw, until: deadline)

        let record = DeployRecord(version: replacement.version, sha256: staged.digest, size: staged.size, deployedAt: Date().ISO8601Format())
        try settings(for: seed).update(timeout: remaining(until: deadline)) { table in
            var updated = table[seed.name.rawValue] ?? SettingsEntry()
            updated.record = record
            if keeping { updated.previous = entry.record }
            if let memo = staged.memo { updated.checked = memo }
            if let digest = replacement.sourceDigest { updated.source = digest }
            table[seed.name.rawValue] = updated
        }
        reached(.recorded)
        logger.debug("deployed \(seed.name) \(replacement.version) to \(paths.workingCopy) (\(strategy.rawValue))")
        return strategy
    }

    /// Copies the source to a temporary file, checks it, carries the preserved tables
    /// into it and flushes it.
    private func stage(_ seed: Seed, _ replacement: Replacement, entry: SettingsEntry, oldCopyExists: Bool) throws(SeedDBError) -> StagedCopy {
        let paths = paths(for: seed)
        let source = SeedSource(path: replacement.source)
        let inspected = try source.inspect()
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: paths.directory, stem: seed.name.rawValue)
        var staged = false
        defer { if !staged { try? FileSystem.remove(temporary) } }
        reached(.temporaryCreated)
        try FileSystem.apply(configuration.files, to: descriptor, path: temporary)

        let copy: SeedSource.CopyResult
        do {
            copy = try descriptor.closeAfter { () throws(SeedDBError) -> SeedSource.CopyResult in
                // The flush overlaps the end of the hashing.
                try source.copy(to: descriptor, destinationPath: temporary, progress: configuration.progress) { () throws(SeedDBError) in
                    reached(.copied)
                    try FileSystem.sync(descriptor, path: temporary)
                    reached(.synced)
                }
            }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot write", temporary)
        }
        if let expected = replacement.expectedSHA256, expected != copy.digest {
            throw SeedDBError(.invalidSeed, "invalid seed \(replacement.source): SHA-256 is \(copy.digest), expected \(expected)")
        }
        let decompressedHeader = inspected == nil ? SQLiteHeader(try FileSystem.readPrefix(of: temporary, count: SQLiteHeader.length)) : nil
        guard let header = inspected ?? decompressedHeader else {
            throw SeedDBError(.invalidSeed, "invalid seed \(replacement.source): not an SQLite 3 database once decompressed (bad header)")
        }
        if let declared = header.declaredSize, declared != copy.size {
            throw SeedDBError(.invalidSeed, "invalid seed \(replacement.source): its header declares \(declared) bytes but \(copy.size) were read (truncated, or changed while copying)")
        }
        let memo = try validate(temporary, source: replacement.source, digest: copy.digest, entry: entry)

        var result = StagedCopy(path: temporary, digest: copy.digest, size: copy.size, pageSize: header.pageSize, memo: memo)
        if oldCopyExists && !seed.preservedTables.isEmpty {
            try PreservedTables.carry(seed.preservedTables, from: paths.workingCopy, into: temporary, logger: logger)
            (result.digest, result.size) = try FileSystem.digestAndSync(temporary)
        }
        staged = true
        return result
    }

    /// Runs the configured integrity check on the staged copy unless this content already
    /// passed one at least as strict.
    private func validate(_ path: String, source: String, digest: SHA256Digest, entry: SettingsEntry) throws(SeedDBError) -> ValidationMemo? {
        let level = configuration.integrity
        guard level != .none else { return nil }
        if let checked = entry.checked, checked.sha256 == digest, checked.integrity >= level {
            return checked
        }
        let result = SQLiteFile.check(path, access: .immutable, full: level == .full)
        guard result == "ok" else {
            throw SeedDBError(.invalidSeed, "invalid seed \(source): \(level == .full ? "integrity_check" : "quick_check") failed: \(result)")
        }
        return ValidationMemo(sha256: digest, integrity: level)
    }

    /// Puts the staged copy in place by swap or live, as configured and as the working
    /// copy's use allows.
    private func install(
        _ staged: StagedCopy, paths: SeedPaths, lock: FileLock, oldCopyExists: Bool, keeping: Bool,
        withdraw: () throws(SeedDBError) -> Void, until deadline: ContinuousClock.Instant
    ) throws(SeedDBError) -> DeployStrategy {
        let swap = { () throws in
            try withdraw()
            for sidecar in paths.sqliteSidecars { try FileSystem.remove(sidecar) }
            reached(.sidecarsRemoved)
            if keeping { try keepPreviousBySwap(paths) }
            try FileSystem.rename(staged.path, to: paths.workingCopy)
            reached(.renamed)
            try FileSystem.syncDirectory(paths.directory)
            reached(.directorySynced)
        }
        let inUse = { SeedDBError(.inUse, "cannot replace \(paths.workingCopy): database in use by another process") }
        guard oldCopyExists else {
            try rethrowing(swap, paths.workingCopy)
            return .swap
        }
        switch configuration.strategy {
        case .live:
            try replaceLive(staged, paths: paths, keeping: keeping, withdraw: withdraw, until: deadline)
            return .live
        case .swap:
            try lock.waitUntilFree(.readers, until: deadline, error: inUse)
            do {
                try WorkingCopyGuard.withExclusiveAccess(paths.workingCopy, timeout: remaining(until: deadline), logger: logger, swap)
            } catch is WorkingCopyGuard.Busy {
                throw inUse()
            } catch {
                throw SeedDBError.io(error, "cannot replace", paths.workingCopy)
            }
            return .swap
        case .auto:
            if try !lock.isHeldElsewhere(.readers) {
                do {
                    try WorkingCopyGuard.withExclusiveAccess(paths.workingCopy, timeout: .zero, logger: logger, swap)
                    return .swap
                } catch is WorkingCopyGuard.Busy {
                    logger.debug("\(paths.workingCopy) is in use; replacing it live")
                } catch {
                    throw SeedDBError.io(error, "cannot replace", paths.workingCopy)
                }
            }
            try replaceLive(staged, paths: paths, keeping: keeping, withdraw: withdraw, until: deadline)
            return .live
        }
    }

    /// Keeps the old working copy as the previous generation: a second name for the same
    /// file, made under a temporary name and renamed into place. The old copy is
    /// consistent on its own here: the swap guard has resolved its journal or WAL into it.
    private func keepPreviousBySwap(_ paths: SeedPaths) throws(SeedDBError) {
        let link = FileSystem.directory(of: paths.workingCopy) + "/" + FileSystem.temporaryPrefix(FileSystem.fileName(of: paths.workingCopy)) + "previous.tmp"
        try FileSystem.remove(link)
        try FileSystem.link(paths.workingCopy, as: link)
        try FileSystem.rename(link, to: paths.previousGeneration)
    }

    /// Replaces the content through SQLite's backup API; other processes' connections
    /// stay valid.
    private func replaceLive(
        _ staged: StagedCopy, paths: SeedPaths, keeping: Bool,
        withdraw: () throws(SeedDBError) -> Void, until deadline: ContinuousClock.Instant
    ) throws(SeedDBError) {
        let live = try LiveReplacement(path: paths.workingCopy, timeout: remaining(until: deadline))
        defer { live.close() }
        try live.requireCompatible(pageSize: staged.pageSize)
        try withdraw()
        if keeping {
            let (descriptor, snapshot) = try FileSystem.createTemporaryFile(in: paths.directory, stem: FileSystem.fileName(of: paths.workingCopy))
            try? descriptor.close()
            defer { try? FileSystem.remove(snapshot) }
            try live.snapshot(to: snapshot)
            if let owner = configuration.files.owner { try FileSystem.setOwner(owner, of: snapshot) }
            try FileSystem.rename(snapshot, to: paths.previousGeneration)
        }
        try live.replace(with: staged.path, until: deadline)
        reached(.renamed)
        try FileSystem.syncDirectory(paths.directory)
        reached(.directorySynced)
    }

    private func rethrowing(_ body: () throws -> Void, _ path: String) throws(SeedDBError) {
        do {
            try body()
        } catch {
            throw SeedDBError.io(error, "cannot replace", path)
        }
    }
}
