/// What a run observed of a seed deployed read-only (``Seed/readOnly``): the path the
/// working copy's link names and what decides whether it may name it. Pure: the facts
/// are gathered by the caller (`stat`s of the seed and of the directories on its path),
/// the rules are here, so
/// ``DeployPlanner`` can refuse with no I/O and a test can read why.
package struct ReadOnlySeed: Sendable, Hashable {
    /// The seed's path as the app gives it: the target of the working copy's link. Not
    /// resolved, so the file a package manager renames into that path is what the link
    /// names afterwards.
    package var path: String
    /// Whether the seed is compressed (`.zst`, `.gz`): it needs a copy to be opened.
    package var compressed: Bool
    /// Why the path is not absolute and stable (see ``unstableReason(_:)``); `nil` when it is.
    package var unstable: String?
    /// Who could write the seed file through the link (see
    /// ``writer(mode:ownerID:appUserID:)``); `nil` when nobody the app runs as could, or
    /// when it was not looked at (the startup check, which plans no link).
    package var writableBy: String?
    /// Who could put another file at the seed's path through a directory on it (see
    /// ``directoryWriter(_:mode:ownerID:entryOwnerID:appUserID:)``); `nil` when nobody
    /// the app runs as could, or when it was not looked at. Refuses a new link; a link
    /// already recorded at this version is kept up to date on ``writableBy`` alone, the
    /// one fact the startup check also reads.
    package var replaceableBy: String?
    /// Whether nothing is at the seed's path (looked at): a link to it opens nothing.
    package var missing: Bool
    /// Whether the seed's header says WAL (looked at): a connection reads such a file
    /// only where it can create its `-shm` beside it, which the app's user cannot beside
    /// a seed it may not write; it needs a copy.
    package var inWALMode: Bool = false
    /// The size the seed's header declares (``SQLiteHeader/declaredSize``), when it
    /// declares one (looked at).
    package var declaredSize: Int64? = nil
    /// The seed file's size (looked at).
    package var size: Int64? = nil
    /// Whether the seed file is not the one the record of its link remembers (looked at):
    /// its identity (device, inode, size, modification and change time) differs from the
    /// one the run that recorded the link saw, or none was recorded (a record written
    /// before it was, or by the finish of a killed run, which does not read the seed). A
    /// package renamed (or wrote) new content into the path at the recorded version: the
    /// link already serves it, and the run looks at it as at a new link's seed.
    package var changedSinceLinked: Bool = false

    /// Why the seed cannot be linked, as ``DeployPlanner`` refuses it; `nil` when it can.
    /// A file of another size than its header declares (cut short: a truncated download)
    /// is refused as a copied deploy refuses it.
    package var refusal: DeployRefusal? {
        if missing { return .readOnlySeedMissing(path) }
        if compressed { return .readOnlyNeedsCopy(path) }
        if let declaredSize, let size, declaredSize != size { return .readOnlySeedWrongSize(path, declared: declaredSize, size: size) }
        if inWALMode { return .readOnlySeedInWALMode(path) }
        if let unstable { return .readOnlySeedUnstable(path, unstable) }
        if let who = writableBy ?? replaceableBy { return .readOnlySeedWritable(path, who) }
        return nil
    }

    /// Creates the observation of a read-only seed.
    package init(path: String, compressed: Bool = false, unstable: String? = nil, writableBy: String? = nil, replaceableBy: String? = nil, missing: Bool = false) {
        self.path = path
        self.compressed = compressed
        self.unstable = unstable
        self.writableBy = writableBy
        self.replaceableBy = replaceableBy
        self.missing = missing
    }

    /// Why `path` cannot be the target of a working copy's link, or `nil` when it can: it
    /// must be absolute (the link is read from the working copy's directory, and the app
    /// may run from anywhere) and in its plain form, with no `.` or `..` component, no
    /// empty component and no trailing `/`, so the link names one file the way the package
    /// that ships it names it (a `..` through a symbolic link would name another).
    package static func unstableReason(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "it is not an absolute path" }
        let components = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if components.contains(where: { $0.isEmpty }) { return "it has an empty component (`//` or a trailing `/`)" }
        if components.contains(where: { $0 == "." || $0 == ".." }) { return "it has a `.` or `..` component" }
        return nil
    }

    /// Who could write a file of `mode` owned by `ownerID` through a link, when the app
    /// runs as `appUserID` (`nil`: an account that is not the file's owner, as in system
    /// mode without `--owner`, where the app's own account is not known). Everyone when
    /// the others' write bit is set; anyone in its group when the group's is; its owner
    /// when that is the app's user, who may set a write bit it lacks (`chmod u+w`). `nil`
    /// when none of these holds. For root the bits decide: root writes any file whatever
    /// its mode, SQLite opens the link read-only, and a root-owned file without write
    /// bits is read-only by intent.
    package static func writer(mode: UInt16, ownerID: UInt32, appUserID: UInt32?) -> String? {
        if mode & 0o002 != 0 { return "everyone (mode \(octal(mode)))" }
        if mode & 0o020 != 0 { return "its group (mode \(octal(mode)))" }
        guard appUserID == ownerID else { return nil }
        if mode & 0o200 != 0 { return "its owner, uid \(ownerID), the app's user (mode \(octal(mode)))" }
        if ownerID != 0 { return "its owner, uid \(ownerID), the app's user, who may make it writable (mode \(octal(mode)))" }
        return nil
    }

    /// Who could put another file at the seed's path through `directory`, one of the
    /// directories on that path, of `mode` and owned by `ownerID`, whose entry on the path
    /// is owned by `entryOwnerID`, when the app runs as `appUserID` (as in
    /// ``writer(mode:ownerID:appUserID:)``). Everyone or the directory's group when its
    /// mode lets them write it, unless it is sticky (`/tmp`: only an entry's owner may
    /// rename or remove it) and the entry is not the app's user's (root's are root's
    /// anyway); the app's user when it owns the directory (it may make it writable).
    /// Root's own directories are not counted against a root app: every directory is
    /// root's to write.
    package static func directoryWriter(_ directory: String, mode: UInt16, ownerID: UInt32, entryOwnerID: UInt32, appUserID: UInt32?) -> String? {
        let shown = NameRules.shown(path: directory)
        if mode & 0o1000 != 0 {
            // Sticky: only the entry's owner (or the directory's) may rename or remove it.
            if entryOwnerID == appUserID, entryOwnerID != 0, mode & 0o022 != 0 {
                return "the app's user, uid \(entryOwnerID), through its own entry in \(shown) (mode \(octal(mode)))"
            }
        } else {
            if mode & 0o002 != 0 { return "everyone, through its directory \(shown) (mode \(octal(mode)))" }
            if mode & 0o020 != 0 { return "its directory's group, through \(shown) (mode \(octal(mode)))" }
        }
        if appUserID == ownerID, ownerID != 0 { return "the app's user, uid \(ownerID), through its directory \(shown), which it owns" }
        return nil
    }

    /// The directories on an absolute `path` from `/` to the one that holds its last
    /// component, each with the path of its entry on `path`.
    package static func directories(on path: String) -> [(directory: String, entry: String)] {
        let components = path.split(separator: "/")
        var found: [(directory: String, entry: String)] = []
        var directory = "/"
        for component in components {
            let entry = directory == "/" ? "/" + component : directory + "/" + component
            found.append((directory, entry))
            directory = entry
        }
        return found
    }

    /// `mode`'s permission bits as `0644`.
    private static func octal(_ mode: UInt16) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
