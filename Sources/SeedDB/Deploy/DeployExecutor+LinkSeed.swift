import SeedDBCore

extension DeployExecutor {
    /// `link-seed`: a read-only seed's deploy, as the planned ``SeedLink`` says. The seed
    /// is inspected (a regular SQLite file, its digest the expected one), unless the step
    /// finishes a killed run (``linkedContent(_:_:)``); the copy being
    /// replaced is kept reachable; a symbolic link straight to the seed file takes the
    /// working-copy path (a temporary link renamed over it: an app opening the path finds
    /// the old copy or the seed, never nothing); the old copy is fenced and becomes the
    /// previous generation; the record names the seed it links to. Nothing is copied.
    /// Each part registers its undo: the old link or file put back, the previous
    /// generation renamed back, the settings' bytes restored.
    func linkSeed(_ link: SeedLink, _ run: DeployRun) throws(SeedDBError) {
        let paths = target.paths, fs = context.effects.files, owner = context.configuration.files.owner
        let content = link.finishesKilledRun ? linkedContent(link, run) : try seedContent(link, run)
        if link.keeps != nil {
            try lock.waitUntilNoHandle(until: deadline) {
                SeedDBError(.inUse, "cannot replace \(paths.workingCopy) by a link to the read-only seed: database in use by another process")
            }
        }

        // The copy being replaced stays reachable: for the undo, and as the previous generation.
        var old: String?
        switch link.keeps {
        case .file: old = try holdOldFile(run)
        case .held(let held): old = held
        case .generation(let number): old = paths.inDirectory(paths.generationName(number))
        case nil: break
        }

        func switchAndKeep() throws(SeedDBError) {
            if !link.alreadyLinked {
                try fs.replaceWithLink(paths.workingCopy, to: link.target, owner: owner)
                undoLinkSwitch(from: link.from, run)
                try fs.syncDirectory(paths.directory)
            }
            run.installed = true
            if let old { try keepAsPrevious(old, link, run) }
        }
        if let old {
            // Under the writer's lock on the copy, as a swap takes it: a copy in WAL mode
            // leaves it first, so the frames in its `-wal` (a crashed app's commits among
            // them) are in the file before its sidecars go, and nobody commits between the
            // switch and the fence.
            let sqlitePath = link.keeps == .file ? paths.workingCopy : old
            try context.effects.database.underSwapLock(
                sqlitePath, waiting: "replace \(paths.workingCopy) by a link to the read-only seed", patience: nil, until: deadline, logger: context.logger
            ) { (_) throws(SeedDBError) in try switchAndKeep() }
        } else {
            try switchAndKeep()
        }
        try recordLink(link, content: content, run)
    }

    /// The seed as the link will name it: a regular SQLite file (its header read, 100
    /// bytes), whose digest is the expected one. The digest is the one known for the
    /// seed's identity (`version: auto`, or remembered); a seed with an expected digest
    /// and none known is hashed once (read, never copied) and remembered for its
    /// identity; otherwise it is not read at all, and the record has no digest.
    private func seedContent(_ link: SeedLink, _ run: DeployRun) throws(SeedDBError) -> LinkedSeed {
        let inspected = try context.effects.database.inspectSeed(link.target, readingHeader: true)
        var digest: SHA256Digest?
        if let known = target.knownSourceDigest, known.identity == inspected.identity {
            digest = known.sha256
        } else if target.expectedSHA256 != nil {
            digest = try context.effects.files.sha256(of: link.target)
        }
        if let digest {
            run.sourceDigest = SourceDigest(identity: inspected.identity, sha256: digest)
            if let expected = target.expectedSHA256, expected != digest {
                throw target.digestMismatch(digest, expected: expected)
            }
        }
        return LinkedSeed(digest: digest, size: inspected.identity.size, identity: inspected.identity)
    }

    /// What the record of a link says of its seed file.
    struct LinkedSeed {
        /// Its SHA-256, when known.
        var digest: SHA256Digest?
        /// Its size in bytes.
        var size: Int64
        /// Its identity as the run saw it (``SettingsEntry/pristine``); `nil` when the run
        /// did not look at it (the finish of a killed run), so the next run does.
        var identity: FileIdentity?
    }

    /// The seed a killed run's link names, as its finish records it: never read (the
    /// package may have removed or replaced it since; the pass after the finish, or the
    /// next run, looks at it), its
    /// digest the one known for its identity, if any, its size the file's (0 when nothing
    /// is there). The finish never fails on it: every run after a kill finishes it first.
    private func linkedContent(_ link: SeedLink, _ run: DeployRun) -> LinkedSeed {
        guard let identity = try? context.effects.files.identity(of: link.target) else { return LinkedSeed(size: 0) }
        guard let known = target.knownSourceDigest, known.identity == identity else { return LinkedSeed(size: identity.size) }
        run.sourceDigest = known
        return LinkedSeed(digest: known.sha256, size: identity.size)
    }

    /// The copy the link replaced becomes `<name>.previous`, fenced (a connection still
    /// holding it gets an error on its next write) and with its merge base; the previous
    /// generation it replaces is set aside (or kept as an adopted copy).
    private func keepAsPrevious(_ old: String, _ link: SeedLink, _ run: DeployRun) throws(SeedDBError) {
        let paths = target.paths, fs = context.effects.files
        // A regular file's sidecars are named after the working-copy path it had.
        let sidecarsOf = if case .generation = link.keeps { old } else { paths.workingCopy }
        try fence(old, sidecarsOf: sidecarsOf, run)
        try dropPrevious(link.drop, run)
        try setAsidePreviousSidecars(link.setsAsidePreviousSidecars, run)
        // The merge base follows its copy: `<name>.base` becomes `<name>.previous.base`.
        try setAsidePreviousBases(plain: link.setsAsidePreviousBase, compressed: link.setsAsideCompressedPreviousBase, run)
        if link.movesBase {
            try fs.rename(paths.base, to: paths.previousBase)
            run.onFailure("the merge base") { () throws(SeedDBError) in try fs.rename(paths.previousBase, to: paths.base) }
        }
        // `--owner` and `--mode` as a copy's previous generation gets them; its own mode
        // otherwise (the link's is the seed's).
        try giveWorkingCopyOwnership(to: old, installed: old, run)
        try fs.rename(old, to: paths.previousGeneration)
        run.setAside.removeAll { $0 == old }
        run.onFailure("the new previous generation") { () throws(SeedDBError) in try fs.rename(paths.previousGeneration, to: old) }
        try fs.syncDirectory(paths.directory)
    }

    /// Records the seed the working copy links to, its version and digest, and the copy
    /// kept as the previous generation. Undone by restoring the settings' bytes. One seed
    /// of a release (``DeployTarget/release``) leaves its change in
    /// ``DeployRun/pendingRecord``, as `record` does.
    private func recordLink(_ link: SeedLink, content: LinkedSeed, _ run: DeployRun) throws(SeedDBError) {
        let paths = target.paths, store = context.records
        if target.release == nil {
            run.onFailure("the record") { [backup = target.settingsBackup] () throws(SeedDBError) in
                try store.restore(backup, timeout: context.configuration.wait)
            }
        }
        let previous = try previousRecord(link.previous)
        let record = DeployRecord(version: target.version, sha256: content.digest, size: content.size, deployedAt: context.now())
        let change = { (table: inout SettingsTable) in
            var entry = table[paths.name.rawValue] ?? SettingsEntry()
            var record = record
            // A seed changed behind the link at this version: deployed when it was linked.
            if link.seedChanged, let linked = entry.record { record.deployedAt = linked.deployedAt }
            entry.record = record
            entry.seedLink = link.target
            entry.generation = nil
            // The seed file as this run saw it: while it keeps this identity, the startup
            // check answers from the record; another file renamed into its path is looked at.
            entry.pristine = content.identity
            entry.interrupted = nil
            entry.heldFrom = nil
            entry.base = link.base
            entry.baseIdentity = nil // not looked at by this run: hashed before a merge uses it
            if let previous { entry.previous = previous }
            entry.signature = recorded(link.signature)
            // The seed's identity and digest, when known; an older one would name another file.
            entry.source = run.sourceDigest
            entry.location = target.location
            table[paths.name.rawValue] = entry
        }
        try commitRecord(change, run)
    }
}
