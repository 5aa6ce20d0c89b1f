import SeedDBCore
import SystemPackage

/// The file-system operations a deploy makes, and nothing else: what the observation
/// reads and what the executor's steps change beside the working copy.
///
/// ``LocalFileSystem`` is the real one (the IO room: ``FileSystem`` and ``Syscalls``); the
/// simulator's is an in-memory model that can stop the process before or after any call
/// (`Tests/SeedDBSimulation`). Every path is absolute; nothing follows a symbolic link at
/// a path's last component unless it says so.
protocol DeployFileSystem: Sendable {
    /// The type of the file at `path` (not following a final link); `nil` when nothing is there.
    func fileType(at path: String) throws(SeedDBError) -> FileType?
    /// The entries of `directory`, in no particular order; empty when it does not exist.
    func entries(of directory: String) throws(SeedDBError) -> [DirectoryEntry]
    /// The target the symbolic link `link` in `directory` names, as written (`nil` when
    /// it is not a symbolic link or not there), and the entries of `directory`, from one
    /// open of the directory.
    func linkTargetAndEntries(of directory: String, link: String) throws(SeedDBError) -> (linkTarget: String?, entries: [DirectoryEntry])
    /// What identifies the content of the file at `path` without reading it (following links).
    func identity(of path: String) throws(SeedDBError) -> FileIdentity
    /// The permission bits and owner of the file at `path` (of the file a final link names
    /// when `followingLinks`); `nil` when nothing is there.
    func modeAndOwner(of path: String, followingLinks: Bool) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner)?
    /// The permission bits, owner and identity of the file at `path`, following links, from
    /// one `stat`; `nil` when nothing is there.
    func statusFollowingLinks(of path: String) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner, identity: FileIdentity)?
    /// The first `count` bytes of the file at `path`.
    func readPrefix(of path: String, count: Int) throws(SeedDBError) -> [UInt8]
    /// The SHA-256 of the file at `path`.
    func sha256(of path: String) throws(SeedDBError) -> SHA256Digest
    /// The SHA-256 and size of the file at `path`, which is then flushed.
    func digestAndSync(_ path: String) throws(SeedDBError) -> (SHA256Digest, Int64)

    /// Atomically replaces `destination` with `source`.
    func rename(_ source: String, to destination: String) throws(SeedDBError)
    /// Renames `source` to `destination`, failing if `destination` exists.
    func renameNoReplace(_ source: String, to destination: String) throws(SeedDBError)
    /// Makes `new` a second name for the file at `existing`.
    func link(_ existing: String, as new: String) throws(SeedDBError)
    /// Removes the file or link at `path` (nothing there is no error).
    func remove(_ path: String) throws(SeedDBError)
    /// Atomically makes `path` a symbolic link to `target`.
    func replaceWithLink(_ path: String, to target: String, owner: FileOwner?) throws(SeedDBError)
    /// Flushes `directory`'s entries.
    func syncDirectory(_ directory: String) throws(SeedDBError)
    /// Flushes the file at `path` (its data and metadata).
    func sync(_ path: String) throws(SeedDBError)
    /// Sets the modification time of the file at `path` back, so any later write changes
    /// its identity (see ``FileSystem/backdateModificationTime(of:)``).
    func backdateModificationTime(of path: String) throws(SeedDBError)
    /// Gives the file at `path` `mode` and `owner` (each when given).
    func setMode(_ mode: UInt16?, owner: FileOwner?, of path: String) throws(SeedDBError)
    /// Writes `bytes` to `path` atomically (a temporary file, flushed, renamed).
    func writeAtomically(_ bytes: [UInt8], to path: String, permissions: FilePermissions, owner: FileOwner?) throws(SeedDBError)
    /// A new temporary path `.<stem>.seeddb-<random>.<kind>.tmp` in `directory` that no
    /// file has, nor any of its SQLite sidecars.
    func temporaryPath(in directory: String, stem: String, kind: String) throws(SeedDBError) -> String
    /// A read-only copy of `source` (whose digest is `digest`) at the new path `path`:
    /// a clone where the file system shares extents, otherwise a full copy when
    /// `evenByCopy`, flushed. Returns whether the copy was made; `created` is told the
    /// path as soon as the file exists, so a failure can remove it.
    func keepCopy(of source: String, digest: SHA256Digest, at path: String, evenByCopy: Bool, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> Bool
    /// Makes the new path `path` a second name (a hard link) of the file at `source`, when
    /// that is still the file `identity` describes (``FileIdentity/sameContent(as:)``): a
    /// read-only copy that costs no bytes. Returns whether it did; a link the kernel
    /// refuses (another file system, `fs.protected_hardlinks` for a file that is not the
    /// process's) or a file replaced since leaves nothing at `path` and is no error.
    /// `created` is told the path as soon as the link exists, so a failure can remove it.
    func linkCopy(of source: String, identity: FileIdentity, at path: String, created: (String) -> Void) throws(SeedDBError) -> Bool
    /// How many names the file at `path` has (its link count), and whether some of its
    /// blocks are shared with another file by a reflink (`false` where the file system
    /// cannot tell).
    func sharing(of path: String) throws(SeedDBError) -> (names: Int, sharedExtents: Bool)
    /// Whether zstd is at hand (Debian's `libzstd.so.1` loads): without it no base is
    /// kept compressed, and a plain seed never needs it.
    var compresses: Bool { get }
    /// The SHA-256 of what the delta at `path` restores against the file at `reference`;
    /// `nil` when it is not whole zstd data.
    func sha256(ofDelta path: String, against reference: String) throws(SeedDBError) -> SHA256Digest?
    /// A read-only compressed delta of `source` against `reference` (``BaseDelta``) at the
    /// new path `path`, flushed; `created` is told the path as soon as the file exists, so
    /// a failure can remove it.
    func compressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError)
    /// What the delta `source` restores against `reference`, written to a read-only file at
    /// the new path `path`, flushed; `created` as above. The SHA-256 of what was written.
    func decompressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> SHA256Digest
    /// Refuses a directory root must not write in: one a non-root user other than
    /// `owner` could change (see `FileSystem.requireSafeForRoot`).
    func requireSafeForRoot(_ directory: String, owner: FileOwner?) throws(SeedDBError)
    /// Refuses, as root, the directory that holds `directory` (an app's) when an account
    /// other than root could rename entries in it (see `FileSystem.requireSafeParentForRoot`):
    /// the deploy lock checks it, and a dry run, which takes none, checks it as the lock would.
    func requireSafeParentForRoot(of directory: String) throws(SeedDBError)
    /// Refuses a directory this process (or `owner`) cannot create files in.
    func requireWritableDirectory(_ directory: String, owner: FileOwner?) throws(SeedDBError)
    /// Removes `directory` when it is empty; whether it did.
    func removeIfEmpty(_ directory: String) throws(SeedDBError) -> Bool
    /// The owner of `path` when it is not root's (an install made with `--owner`).
    func nonRootOwner(of path: String) -> FileOwner?
    /// `path` with every symbolic link on it resolved, as far as it resolves.
    func resolvingLinks(_ path: String) -> String
}

extension DeployFileSystem {
    /// The previous generation's merge base, restored from `<name>.previous.base.xor.zst`
    /// against `<name>.previous` into a new file in `directory`, which `created` is told of
    /// as soon as it exists; its digest must be `digest`, the recorded one (a file changed
    /// since the run looked stops it). The delta stays as it is.
    /// - Returns: The restored file's path.
    func restoredPreviousBase(
        of paths: SeedPaths, in directory: String, digest: SHA256Digest, owner: FileOwner?, created: (String) -> Void
    ) throws(SeedDBError) -> String {
        let restored = try temporaryPath(in: directory, stem: paths.name.rawValue, kind: "base")
        let found = try decompressedCopy(of: paths.previousBaseCompressed, against: paths.previousGeneration, at: restored, owner: owner, created: created)
        guard found == digest else {
            throw SeedDBError(.ioFailure, "cannot restore the merge base of \(paths.workingCopy): \(paths.previousBaseCompressed) restores SHA-256 \(found), the record names \(digest); it changed since the run looked")
        }
        return restored
    }

    /// The permission bits and owner of the file at `path` itself (a link's own); `nil`
    /// when nothing is there.
    func modeAndOwner(of path: String) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner)? {
        try modeAndOwner(of: path, followingLinks: false)
    }

    /// The first of `sidecars` (SQLite sidecars of the database file `database`, by name)
    /// that holds content SQLite would replay into that file
    /// (``SeedPaths/sidecarHoldsContent(suffix:size:)``), with its size; one `stat` each.
    func sidecarWithContent(of database: String, among sidecars: [String]) -> DeployObservation.SidecarFile? {
        sidecars.lazy.compactMap { path in
            // (One gone since it was listed holds nothing.)
            guard let size = try? identity(of: path).size,
                  SeedPaths.sidecarHoldsContent(suffix: String(path.dropFirst(database.count)), size: size)
            else { return nil }
            return DeployObservation.SidecarFile(path: path, size: size)
        }.first
    }

    /// Whether the database file at `path` was written since it had `identity`: not when
    /// it keeps that identity (device, inode, size, modification and change times) with no
    /// `-journal` beside it (unless `journalIsOurs`: the caller holds the write lock whose
    /// transaction it is) and no `-wal`, or an empty one (no frame was committed).
    func isUnwritten(_ path: String, since identity: FileIdentity, journalIsOurs: Bool = false) throws(SeedDBError) -> Bool {
        guard try self.identity(of: path) == identity else { return false }
        if !journalIsOurs, try fileType(at: path + "-journal") != nil { return false }
        guard try fileType(at: path + "-wal") != nil else { return true }
        return try self.identity(of: path + "-wal").size == 0
    }
}

/// The real file system: every call goes through ``FileSystem`` (and so ``Syscalls``).
struct LocalFileSystem: DeployFileSystem {
    /// Creates the real file system.
    init() {}

    func fileType(at path: String) throws(SeedDBError) -> FileType? { try FileSystem.fileType(at: path) }
    func entries(of directory: String) throws(SeedDBError) -> [DirectoryEntry] { try FileSystem.entries(of: directory) }
    func linkTargetAndEntries(of directory: String, link: String) throws(SeedDBError) -> (linkTarget: String?, entries: [DirectoryEntry]) {
        try FileSystem.linkTargetAndEntries(of: directory, link: link)
    }
    func identity(of path: String) throws(SeedDBError) -> FileIdentity { try FileDigest.identity(ofFileAt: path) }
    func modeAndOwner(of path: String, followingLinks: Bool) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner)? {
        try FileSystem.status(at: path, followingLinks: followingLinks).map { ($0.permissionBits, $0.owner) }
    }
    func statusFollowingLinks(of path: String) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner, identity: FileIdentity)? {
        try FileSystem.status(at: path, followingLinks: true).map { ($0.permissionBits, $0.owner, FileIdentity($0)) }
    }
    func readPrefix(of path: String, count: Int) throws(SeedDBError) -> [UInt8] { try FileSystem.readPrefix(of: path, count: count) }
    func sha256(of path: String) throws(SeedDBError) -> SHA256Digest { try FileDigest.sha256(ofFileAt: path) }
    func digestAndSync(_ path: String) throws(SeedDBError) -> (SHA256Digest, Int64) { try FileSystem.digestAndSync(path) }
    func rename(_ source: String, to destination: String) throws(SeedDBError) { try FileSystem.rename(source, to: destination) }
    func renameNoReplace(_ source: String, to destination: String) throws(SeedDBError) { try FileSystem.renameNoReplace(source, to: destination) }
    func link(_ existing: String, as new: String) throws(SeedDBError) { try FileSystem.link(existing, as: new) }
    func remove(_ path: String) throws(SeedDBError) { try FileSystem.remove(path) }
    func replaceWithLink(_ path: String, to target: String, owner: FileOwner?) throws(SeedDBError) {
        try FileSystem.replaceWithLink(path, to: target, owner: owner)
    }
    func syncDirectory(_ directory: String) throws(SeedDBError) { try FileSystem.syncDirectory(directory) }
    func sync(_ path: String) throws(SeedDBError) { try FileSystem.sync(path) }
    func backdateModificationTime(of path: String) throws(SeedDBError) { try FileSystem.backdateModificationTime(of: path) }
    func setMode(_ mode: UInt16?, owner: FileOwner?, of path: String) throws(SeedDBError) {
        try FileSystem.setMode(mode, owner: owner, of: path)
    }
    func writeAtomically(_ bytes: [UInt8], to path: String, permissions: FilePermissions, owner: FileOwner?) throws(SeedDBError) {
        try FileSystem.writeAtomically(bytes, to: path, permissions: permissions, owner: owner)
    }
    func temporaryPath(in directory: String, stem: String, kind: String) throws(SeedDBError) -> String {
        while true {
            let path = FileSystem.temporaryPath(in: directory, stem: stem, kind: kind)
            var taken = false
            for name in [path] + SeedPaths.sqliteSidecars(of: path) where try FileSystem.fileType(at: name) != nil { taken = true }
            if !taken { return path }
        }
    }

    func requireSafeForRoot(_ directory: String, owner: FileOwner?) throws(SeedDBError) { try FileSystem.requireSafeForRoot(directory, owner: owner) }
    func requireSafeParentForRoot(of directory: String) throws(SeedDBError) { try FileSystem.requireSafeParentForRoot(of: directory) }
    func requireWritableDirectory(_ directory: String, owner: FileOwner?) throws(SeedDBError) { try FileSystem.requireWritableDirectory(directory, owner: owner) }
    func removeIfEmpty(_ directory: String) throws(SeedDBError) -> Bool { FileSystem.removeIfEmpty(directory) }
    func nonRootOwner(of path: String) -> FileOwner? { FileSystem.nonRootOwner(of: path) }
    func resolvingLinks(_ path: String) -> String { FileSystem.resolvingLinks(path) }
    func linkCopy(of source: String, identity: FileIdentity, at path: String, created: (String) -> Void) throws(SeedDBError) -> Bool {
        do throws(Errno) {
            try Syscalls.link(source, path)
        } catch .fileExists {
            throw SeedDBError.io(Errno.fileExists, "cannot link \(source) to", path)
        } catch {
            // EXDEV, EPERM (`fs.protected_hardlinks`), EMLINK, a seed gone: a copy instead.
            return false
        }
        created(path)
        guard let linked = try FileSystem.status(at: path), linked.type == .regular, FileIdentity(linked).sameContent(as: identity) else {
            // Replaced since it was copied: not the content the digest names.
            try FileSystem.remove(path)
            return false
        }
        return true
    }

    func sharing(of path: String) throws(SeedDBError) -> (names: Int, sharedExtents: Bool) {
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.noFollow, .closeOnExec])
            defer { try? descriptor.close() }
            let names = try descriptor.stat().linkCount
            // A file system without FIEMAP (tmpfs) shares no extents either.
            return (names, (try? Syscalls.sharesExtents(descriptor)) ?? false)
        } catch {
            throw SeedDBError.io(error, "cannot inspect", path)
        }
    }

    var compresses: Bool { (try? ZstdLibrary.loaded()) != nil }

    func sha256(ofDelta path: String, against reference: String) throws(SeedDBError) -> SHA256Digest? {
        do {
            return try BaseDelta.sha256(of: path, against: reference)
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot restore \(path) against", reference)
        }
    }

    func compressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) {
        let descriptor = try createReadOnly(path, created: created)
        try FileSystem.writing(descriptor, path: path) { () throws(SeedDBError) in
            if let owner { try FileSystem.setOwner(owner, of: path) }
            do {
                try BaseDelta.opened(source) { base in
                    try BaseDelta.opened(reference) { reference in
                        try BaseDelta.encode(base, against: reference) { chunk in _ = try descriptor.writeAll(chunk) }
                    }
                }
            } catch let error as SeedDBError {
                throw error
            } catch {
                throw SeedDBError.io(error, "cannot compress \(source) against \(reference) to", path)
            }
            try FileSystem.sync(descriptor, path: path)
        }
    }

    func decompressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> SHA256Digest {
        let descriptor = try createReadOnly(path, created: created)
        return try FileSystem.writing(descriptor, path: path) { () throws(SeedDBError) -> SHA256Digest in
            if let owner { try FileSystem.setOwner(owner, of: path) }
            let digest: SHA256Digest?
            do {
                digest = try BaseDelta.sha256(of: source, against: reference, writingTo: descriptor)
            } catch let error as SeedDBError {
                throw error
            } catch {
                throw SeedDBError.io(error, "cannot restore \(source) against \(reference) to", path)
            }
            guard let digest else { throw SeedDBError(.ioFailure, "cannot restore \(source) to \(path): not whole zstd data") }
            try FileSystem.sync(descriptor, path: path)
            return digest
        }
    }

    /// A new read-only file at `path` (never an existing one), open for writing;
    /// `created` is told its path.
    private func createReadOnly(_ path: String, created: (String) -> Void) throws(SeedDBError) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                permissions: [.ownerRead, .groupRead, .otherRead])
        } catch {
            throw SeedDBError.io(error, "cannot create temporary file", path)
        }
        created(path)
        return descriptor
    }

    func keepCopy(of source: String, digest: SHA256Digest, at path: String, evenByCopy: Bool, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> Bool {
        let descriptor = try createReadOnly(path, created: created)
        if !evenByCopy {
            let cloned = FileSystem.clone(source, into: descriptor)
            try? descriptor.close()
            return cloned
        }
        // The source's digest is known: the copy does not hash it again.
        let known = try FileSystem.status(at: source).map { SourceDigest(identity: FileIdentity($0), sha256: digest) }
        _ = try FileSystem.writing(descriptor, path: path) { () throws(SeedDBError) -> SeedSource.CopyResult in
            if let owner { try FileSystem.setOwner(owner, of: path) }
            return try SeedSource(path: source).copy(to: descriptor, destinationPath: path, known: known, progress: nil) { () throws(SeedDBError) in
                try FileSystem.sync(descriptor, path: path)
            }
        }
        return true
    }
}
