import SeedDBCore

extension Deployer {
    /// The absolute seed paths a link at `seed`'s working-copy path may name and still be
    /// SeedDB's own: the read-only seed the record names, the one an interrupted read-only
    /// deploy was linking (its marker names it), and `seed` itself when it is deployed
    /// read-only.
    static func seedLinks(_ seed: Seed, entry: SettingsEntry) -> [String] {
        [entry.seedLink, entry.interrupted?.seedLink, seed.readOnly ? seed.source : nil].compactMap { $0 }
    }

    /// What the planner needs to know of a read-only seed: its path, whether it is
    /// compressed, whether the path is absolute and stable and, when `looking` (a run
    /// under the deploy lock), its header (WAL mode, the size it declares) and size, who
    /// could write the file through the link (one `stat`, following links, as the app's
    /// connection would) or put another file at its path (two for each directory on it,
    /// and on it with its links resolved). `nil` for a seed that is copied.
    ///
    /// The app's user is `--owner` when given; otherwise, for a run as root, the owner of
    /// what is at the working-copy path when that is another account (a run with `--owner`
    /// made it so); otherwise, in system mode run by root, an account that is not the
    /// seed's owner (services run under their own), and otherwise the user running SeedDB
    /// (a user's own files, or a service deploying its own seed as itself,
    /// `ExecStartPre=` under `User=`): ``appUserID(workingCopy:)``.
    ///
    /// - Parameter entry: The seed's settings entry: when it records a link to this seed,
    ///   whether the seed file is still the one it remembers
    ///   (``ReadOnlySeed/changedSinceLinked``).
    func readOnlySeed(_ seed: Seed, looking: Bool, entry: SettingsEntry? = nil) throws(SeedDBError) -> ReadOnlySeed? {
        guard seed.readOnly else { return nil }
        var observed = ReadOnlySeed(
            path: seed.source, compressed: SeedCompression(path: seed.source) != .none,
            unstable: ReadOnlySeed.unstableReason(seed.source))
        guard looking, !observed.compressed, observed.unstable == nil else { return observed }
        // One of SeedDB's own files of this working copy (a generation, `.base`,
        // `.previous`): the run itself renames or removes it.
        let paths = paths(for: seed)
        let resolved = effects.files.resolvingLinks(seed.source)
        let (folder, file) = (FileSystem.directory(of: resolved), String(resolved.split(separator: "/").last ?? ""))
        if paths.namesOwnDatabase(file), folder.hasSameBytes(as: effects.files.resolvingLinks(paths.directory)) {
            observed.unstable = "it is one of SeedDB's own files of \(paths.workingCopy), which SeedDB renames and removes"
            return observed
        }
        // Missing: nothing there, or a link to nothing (the link would open nothing). A seed
        // that is not a file is refused by the link step, as a copy's would be.
        guard let (mode, owner) = try? effects.files.modeAndOwner(of: seed.source, followingLinks: true) else {
            let type = try effects.files.fileType(at: seed.source)
            observed.missing = type == nil || type == .symbolicLink
            return observed
        }
        // Not a file (a directory): the link step refuses it, as a copy's would be.
        if let type = try? effects.files.fileType(at: resolved), type != .regular { return observed }
        // Its header (a file that is no database is refused by the link step): in WAL mode
        // (its read and write versions), and the size it declares, against the file's.
        let header = (try? effects.files.readPrefix(of: seed.source, count: SQLiteHeader.length)).flatMap(SQLiteHeader.init)
        observed.inWALMode = header?.isWAL == true
        observed.declaredSize = header?.declaredSize
        let identity = try? effects.files.identity(of: seed.source)
        observed.size = identity?.size
        if let entry, entry.seedLink == seed.source { observed.changedSinceLinked = Self.seedChanged(identity, entry: entry, expected: seed.expectedSHA256) }
        let appUser = appUserID(workingCopy: paths.workingCopy)
        observed.writableBy = ReadOnlySeed.writer(mode: mode, ownerID: owner.uid, appUserID: appUser)
        // Or could put another file at its path: each directory on it, as written (followed,
        // as the app's open follows them) and with every link on it resolved (the
        // directories that hold a link's target), with its entry's owner.
        let written = ReadOnlySeed.directories(on: seed.source)
        let walked = written + ReadOnlySeed.directories(on: resolved).filter { step in !written.contains { $0.entry == step.entry } }
        for (directory, entry) in walked where observed.replaceableBy == nil {
            guard let (mode, owner) = try? effects.files.modeAndOwner(of: directory, followingLinks: true),
                  let (_, entryOwner) = try? effects.files.modeAndOwner(of: entry, followingLinks: false) else { continue }
            observed.replaceableBy = ReadOnlySeed.directoryWriter(directory, mode: mode, ownerID: owner.uid, entryOwnerID: entryOwner.uid, appUserID: appUser)
        }
        return observed
    }

    /// The account a read-only seed must be read-only to (``readOnlySeed(_:looking:)``):
    /// `--owner`'s; for a run as root without it, the owner of what is at `workingCopy`
    /// when that is another account (a run with `--owner` made it so, and the app runs as
    /// that account); else the runner, or `nil` when it is not known (system mode run by
    /// root).
    func appUserID(workingCopy: String) -> UInt32? {
        let files = configuration.files
        if let owner = files.owner { return owner.uid }
        let runner = Syscalls.effectiveUserID
        if runner == 0, let (_, found) = try? effects.files.modeAndOwner(of: workingCopy, followingLinks: false), found.uid != 0 {
            return found.uid
        }
        return files.isSystem && runner == 0 ? nil : runner
    }

    /// Whether the app's user could write the read-only seed at `path` that the link at
    /// `workingCopy` names, or nothing is there, or it is not the file `entry` remembers
    /// (renamed in at the recorded version) or not known to have the `expected` digest
    /// (``seedChanged(_:entry:expected:)``), from one `stat`, as the startup check makes
    /// for such a seed: work for a run that looks at it whole, and refuses or records it.
    func seedLinkNeedsALook(_ path: String, workingCopy: String, entry: SettingsEntry, expected: SHA256Digest?) -> Bool {
        guard let (mode, owner, identity) = try? effects.files.statusFollowingLinks(of: path) else { return true }
        return Self.seedChanged(identity, entry: entry, expected: expected)
            || ReadOnlySeed.writer(mode: mode, ownerID: owner.uid, appUserID: appUserID(workingCopy: workingCopy)) != nil
    }

    /// Whether a read-only seed file of `identity` (`nil`: not there) is not the one
    /// `entry`'s record of its link remembers (``SettingsEntry/pristine``), or the record
    /// remembers none, or the run expects a digest (`expected`: `--sha256`, a manifest's
    /// or a signed one) the record does not hold: a run without one recorded the file
    /// unchecked, and the file must be looked at before a run that expects one says
    /// `unchanged`.
    static func seedChanged(_ identity: FileIdentity?, entry: SettingsEntry, expected: SHA256Digest?) -> Bool {
        entry.pristine == nil || identity != entry.pristine || (expected != nil && expected != entry.record?.sha256)
    }

    /// How a refused read-only deploy's line starts.
    static func readOnlyPrefix(_ paths: SeedPaths) -> String {
        "cannot link \(paths.workingCopy) to a read-only seed"
    }
}

extension Deployer {
    /// The read-only seed `seed`'s record says its working copy links to, as a list for
    /// ``WorkingCopy/inspect(_:seedLinks:files:)``; empty when it records a copy or
    /// nothing (or the settings cannot be read).
    func recordedSeedLinks(_ seed: Seed) -> [String] {
        let entry = try? settings(for: seed).snapshot(only: seed.name).entry(of: seed.name)
        return entry.map { Self.seedLinks(seed, entry: $0) } ?? []
    }
}
