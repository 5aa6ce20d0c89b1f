import Crypto
import Foundation
import SeedDBCore
import SystemPackage

/// File-system operations with the durability and safety rules SeedDB relies on.
///
/// Every failure becomes a ``SeedDBError`` naming the operation, the path and the cause.
/// Nothing here follows a symbolic link at the final component of a path it creates.
enum FileSystem {
    /// The type of the file at `path`, not following a final symbolic link; `nil` when
    /// nothing is there.
    static func fileType(at path: String) throws(SeedDBError) -> FileType? {
        do {
            return try stat(path, followingLinks: false).type
        } catch .noSuchFileOrDirectory, .notDirectory {
            return nil
        } catch {
            throw SeedDBError.io(error, "cannot inspect", path)
        }
    }

    /// `lstat` of `path` (`stat` when `followingLinks`), or `nil` when nothing is there.
    static func status(at path: String, followingLinks: Bool = false) throws(SeedDBError) -> Stat? {
        do {
            return try stat(path, followingLinks: followingLinks)
        } catch .noSuchFileOrDirectory, .notDirectory {
            return nil
        } catch {
            throw SeedDBError.io(error, "cannot inspect", path)
        }
    }

    /// `stat` (`followingLinks`) or `lstat` of `path`, handed to swift-system as the C
    /// string it already is (a `FilePath` would first normalise and copy it: a startup
    /// check makes a few of these). A path ending in `/` goes through `FilePath`, which
    /// drops the slash (the kernel would follow a link named so).
    static func stat(_ path: String, followingLinks: Bool) throws(Errno) -> Stat {
        if path.utf8.count > 1, path.hasByteSuffix("/") { return try FilePath(path).stat(followTargetSymlink: followingLinks) }
        return try path.withCString { pointer in Result { () throws(Errno) in try Stat(pointer, followTargetSymlink: followingLinks) } }.get()
    }

    /// Creates `path` and any missing parents, each with `mode` (0700 unless a
    /// ``FilePolicy`` says otherwise); directories that already exist keep their mode.
    /// - Returns: The directories it created, outermost first.
    /// - Throws: ``SeedDBError`` when one cannot be created or given its mode; the
    ///   directories it created are then removed again (while empty), so a failure leaves
    ///   the directory entries as they were.
    @discardableResult
    static func createDirectories(_ path: String, mode: UInt16 = 0o700) throws(SeedDBError) -> [String] {
        var current = FilePath(path)
        current.components.removeAll()
        var created: [String] = []
        do throws(SeedDBError) {
            for component in FilePath(path).components {
                current.append(component)
                let current = current.string
                do {
                    try Syscalls.mkdir(current, mode: mode_t(mode))
                    created.append(current)
                    // mkdir applies the umask; set the mode exactly.
                    try Syscalls.chmodDirectory(current, mode: mode_t(mode))
                } catch .fileExists {
                    continue
                } catch {
                    throw SeedDBError.io(error, "cannot create directory", current)
                }
            }
            guard try fileType(at: path) == .directory || (try? FilePath(path).stat().type) == .directory else {
                throw SeedDBError(.cannotCreate, "cannot create directory \(path): a file that is not a directory is in the way")
            }
        } catch {
            for directory in created.reversed() { _ = removeIfEmpty(directory) }
            throw error
        }
        return created
    }

    /// Reads the whole file at `path`; `nil` when it does not exist.
    ///
    /// One `open`, one `fstat`, usually one `read` into a buffer of the file's size, one
    /// `close`. With `expectingAtMost`, no `fstat`: one `read` of up to that many bytes
    /// and one more, and the rest read only when the file held more. A file read so that a
    /// network file system cut short reads as fewer bytes: only a caller that can tell a
    /// cut read (the startup check's settings JSON, which then does not parse) and reads
    /// again without it may ask for it.
    static func readFile(at path: String, expectingAtMost capacity: Int? = nil) throws(SeedDBError) -> [UInt8]? {
        let descriptor: FileDescriptor
        do {
            descriptor = try path.withCString { try FileDescriptor.open($0, .readOnly, options: [.noFollow, .closeOnExec]) }
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch {
            throw SeedDBError.io(error, "cannot read", path)
        }
        do {
            return try descriptor.closeAfter {
                let expected = try capacity ?? Int(descriptor.stat().size)
                var failure: (any Error)?
                var bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, count in
                    do {
                        count = try descriptor.read(into: UnsafeMutableRawBufferPointer(buffer))
                    } catch {
                        (failure, count) = (error, 0)
                    }
                }
                if let failure { throw failure }
                // A file that grew since the stat, or holds more than expected (or a read
                // cut short of its stat's size): read the rest.
                if bytes.count > expected || (capacity == nil && bytes.count < expected) {
                    bytes += try readAll(descriptor)
                }
                return bytes
            }
        } catch {
            throw SeedDBError.io(error, "cannot read", path)
        }
    }

    /// Reads `descriptor` from its current offset to the end.
    static func readAll(_ descriptor: FileDescriptor) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Reads up to `count` bytes from the start of the file at `path`.
    static func readPrefix(of path: String, count: Int) throws(SeedDBError) -> [UInt8] {
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            return try descriptor.closeAfter {
                var buffer = [UInt8](repeating: 0, count: count)
                let read = try buffer.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
                return Array(buffer[0..<read])
            }
        } catch {
            throw SeedDBError.io(error, "cannot read", path)
        }
    }

    /// Creates a new file in `directory` exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`), under a
    /// name no other file has: `.<stem>.seeddb-<random>.tmp`.
    static func createTemporaryFile(in directory: String, stem: String, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]) throws(SeedDBError) -> (FileDescriptor, String) {
        while true {
            let path = joined(directory, temporaryPrefix(stem) + randomSuffix() + ".tmp")
            // A name any file has, a stale journal of an earlier temporary file included, is never taken.
            if SeedPaths.sqliteSidecars(of: path).contains(where: { (try? fileType(at: $0)) != nil }) { continue }
            do {
                let descriptor = try FileDescriptor.open(
                    FilePath(path), .readWrite,
                    options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                    permissions: permissions)
                return (descriptor, path)
            } catch Errno.fileExists {
                continue
            } catch {
                throw SeedDBError.io(error, "cannot create temporary file in", directory)
            }
        }
    }

    /// Creates the temporary file `.<stem>.seeddb-<name>.tmp` in `directory` exclusively,
    /// replacing one a killed run left under that name: for a file a later run must find
    /// by name (the merge base staged for a generation).
    static func createNamedTemporaryFile(in directory: String, stem: String, name: String, permissions: FilePermissions) throws(SeedDBError) -> (FileDescriptor, String) {
        let path = namedTemporaryPath(in: directory, stem: stem, name: name)
        try remove(path)
        do {
            let descriptor = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec], permissions: permissions)
            return (descriptor, path)
        } catch {
            throw SeedDBError.io(error, "cannot create temporary file", path)
        }
    }

    /// The path of the temporary file `.<stem>.seeddb-<name>.tmp` in `directory`.
    static func namedTemporaryPath(in directory: String, stem: String, name: String) -> String {
        joined(directory, temporaryPrefix(stem) + name + ".tmp")
    }

    /// The prefix of every temporary file SeedDB creates for `stem`.
    static func temporaryPrefix(_ stem: String) -> String { "." + stem + ".seeddb-" }

    /// The temporary files a killed run left for `stem` in `directory`, with the journals
    /// SQLite made beside them (`.tmp-journal`, `.tmp-wal`, `.tmp-shm`).
    static func staleTemporaryFiles(in directory: String, stem: String) throws(SeedDBError) -> [String] {
        staleTemporaryFiles(in: directory, listing: try entries(of: directory).map(\.name), stems: [stem])
    }

    /// Like ``staleTemporaryFiles(in:stem:)`` for several stems, from a listing of
    /// `directory` already read.
    static func staleTemporaryFiles(in directory: String, listing: [String], stems: [String]) -> [String] {
        let prefixes = stems.map(temporaryPrefix)
        return listing.filter { name in
            prefixes.contains(where: name.hasBytePrefix)
                && (name.hasByteSuffix(".tmp") || SeedPaths.sqliteSidecarSuffixes.contains { name.hasByteSuffix(".tmp" + $0) })
        }.map { joined(directory, $0) }
    }

    /// Removes the temporary files a crashed run left for `stem` in `directory`; the
    /// paths removed.
    ///
    /// Only call this while holding the lock that serialises writers of `stem`.
    @discardableResult
    static func removeStaleTemporaryFiles(in directory: String, stem: String) throws(SeedDBError) -> [String] {
        let stale = try staleTemporaryFiles(in: directory, stem: stem)
        for path in stale { try remove(path) }
        return stale
    }

    /// Removes the entry at `path` (a symbolic link itself, never its target); nothing
    /// there is not an error.
    static func remove(_ path: String) throws(SeedDBError) {
        do {
            try Syscalls.unlink(path)
        } catch .noSuchFileOrDirectory {
            return
        } catch {
            throw SeedDBError.io(error, "cannot remove", path)
        }
    }

    /// Removes the directory at `path` if it exists and is empty.
    /// - Returns: Whether it was removed.
    static func removeIfEmpty(_ path: String) -> Bool {
        (try? Syscalls.rmdir(path)) != nil
    }

    /// Atomically replaces `destination` with `source`.
    static func rename(_ source: String, to destination: String) throws(SeedDBError) {
        do {
            try Syscalls.rename(source, destination)
        } catch {
            throw SeedDBError.io(error, "cannot rename \(source) to", destination)
        }
    }

    /// Renames `source` to `destination`, which must not exist: a file that took the name
    /// since it was observed stops the caller instead of being replaced.
    static func renameNoReplace(_ source: String, to destination: String) throws(SeedDBError) {
        do {
            try Syscalls.renameNoReplace(source, destination)
        } catch {
            throw SeedDBError.io(error, "cannot rename \(source) to", destination)
        }
    }

    /// Gives the file or directory at `path` to `owner`.
    static func setOwner(_ owner: FileOwner, of path: String) throws(SeedDBError) {
        do {
            try Syscalls.chown(path, uid: owner.uid, gid: owner.gid)
        } catch {
            throw SeedDBError.io(error, "cannot change the owner of", path)
        }
    }

    /// Sets the modification time of the file at `path` a second before now. A write's
    /// time stamps come from a clock that moves in ticks (4 ms on many kernels, and file
    /// systems keep a change time per tick before Linux 6.13): a write made in the tick
    /// of the file's last change may leave its size and times as they were. Set back by
    /// more than a tick, the modification time changes with any later write.
    static func backdateModificationTime(of path: String) throws(SeedDBError) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        now.tv_sec -= 1
        do {
            try Syscalls.setModificationTime(path, to: now)
        } catch {
            throw SeedDBError.io(error, "cannot set the modification time of", path)
        }
    }

    /// Sets the permission bits of the file at `path` to `mode` and gives it to `owner`,
    /// each only when given. The owner is set with `lchown`: a symbolic link is given
    /// itself, never its target (`mode` is for regular files only).
    static func setMode(_ mode: UInt16?, owner: FileOwner?, of path: String) throws(SeedDBError) {
        do {
            if let mode { try Syscalls.chmod(path, mode: mode_t(mode)) }
            if let owner { try Syscalls.lchown(path, uid: owner.uid, gid: owner.gid) }
        } catch {
            throw SeedDBError.io(error, "cannot set the owner or mode of", path)
        }
    }

    /// Sets the owner and mode of an open file, as a ``FilePolicy`` asks for the working copy.
    static func apply(_ policy: FilePolicy, to descriptor: FileDescriptor, path: String) throws(SeedDBError) {
        do {
            if let mode = policy.workingCopyMode { try Syscalls.fchmod(descriptor, mode: mode_t(mode)) }
            if let owner = policy.owner { try Syscalls.fchown(descriptor, uid: owner.uid, gid: owner.gid) }
        } catch {
            throw SeedDBError.io(error, "cannot set the owner or mode of", path)
        }
    }

    /// Refuses, when running as root, to write into a directory that someone other than
    /// root (or `owner`) could change: group- or world-writable, or owned by another user.
    /// A file planted there could redirect root's writes.
    ///
    /// - Parameter sticky: Also accept a root-owned sticky directory (`/tmp`): others may
    ///   add entries there but never rename or remove root's. Right for the parent of a
    ///   directory that is itself checked strictly.
    static func requireSafeForRoot(_ path: String, owner: FileOwner?, sticky: Bool = false) throws(SeedDBError) {
        try requireSafeForRoot(path, owner: owner, sticky: sticky, remedy: "tighten it", offeringOwner: true)
    }

    /// Checks, as root, that the directory that holds `directory` (an app's working copies,
    /// named after the app) is one no other account can rename entries in: root's and not
    /// writable by others, or root's and sticky (`/tmp`). `--owner` does not make it safe:
    /// the account that could write it could move `directory` away under a run. A run that
    /// writes checks it under its lock, and a dry run checks it as the run would.
    static func requireSafeParentForRoot(of directory: String) throws(SeedDBError) {
        try requireSafeForRoot(
            FileSystem.directory(of: directory), owner: nil, sticky: true,
            remedy: "tighten it, or run SeedDB as that account", offeringOwner: false)
    }

    /// ``requireSafeForRoot(_:owner:sticky:)``, its refusal ending with `remedy`, and
    /// offering `--owner` (``SeedDBError/Remedy/owner``) when `offeringOwner`.
    private static func requireSafeForRoot(_ path: String, owner: FileOwner?, sticky: Bool, remedy: String, offeringOwner: Bool) throws(SeedDBError) {
        guard Syscalls.isRoot, let status = try? FilePath(path).stat() else { return }
        let mode = status.permissions.rawValue
        let uid = status.userID.rawValue
        let ownersOwn = owner.map { uid == $0.uid && mode & 0o002 == 0 } ?? false
        let stickyRoot = sticky && uid == 0 && mode & 0o1000 != 0
        guard (uid == 0 && mode & 0o022 == 0) || ownersOwn || stickyRoot else {
            throw SeedDBError(.cannotCreate, "refusing to write into \(path) as root: it can be written by a non-root user (owner uid \(uid), mode \(String(mode & 0o7777, radix: 8))); \(remedy)", remedy: offeringOwner ? .owner : nil)
        }
    }

    /// Checks, creating nothing, that a run could create or write in `path`: its nearest
    /// existing ancestor is a directory this process may write into, and one that is
    /// safe for root (see ``requireSafeForRoot(_:owner:sticky:)``).
    static func requireWritableDirectory(_ path: String, owner: FileOwner? = nil) throws(SeedDBError) {
        var existing = path
        while try fileType(at: existing) == nil, existing != "/" { existing = directory(of: existing) }
        guard (try? FilePath(existing).stat().type) == .directory else {
            throw SeedDBError(.cannotCreate, "cannot create directory \(path): a file that is not a directory is in the way")
        }
        do {
            try Syscalls.requireAccess(existing, writable: true)
        } catch {
            throw SeedDBError.io(error, "cannot write into", existing)
        }
        if existing == path { try requireSafeForRoot(path, owner: owner) }
    }

    /// The owner of the directory at `path` when this process runs as root and it is a
    /// non-root user's (a service account's, as `--owner` made it); otherwise `nil`.
    static func nonRootOwner(of path: String) -> FileOwner? {
        guard Syscalls.isRoot, let status = try? FilePath(path).stat(), status.type == .directory, status.userID.rawValue != 0 else { return nil }
        return status.owner
    }

    /// Makes `destination` share the extents of the file at `source` (`FICLONE`, a reflink),
    /// when the file system can; writes nothing otherwise.
    /// - Returns: Whether the clone was made.
    static func clone(_ source: String, into destination: FileDescriptor) -> Bool {
        guard let input = try? FileDescriptor.open(FilePath(source), .readOnly, options: [.closeOnExec]) else { return false }
        defer { try? input.close() }
        return (try? Syscalls.cloneFile(from: input, to: destination)) != nil
    }

    /// Makes `new` a second name for the file at `existing`.
    static func link(_ existing: String, as new: String) throws(SeedDBError) {
        do {
            try Syscalls.link(existing, new)
        } catch {
            throw SeedDBError.io(error, "cannot link \(existing) to", new)
        }
    }

    /// The SHA-256 and size of the file at `path`, which is also flushed to stable storage:
    /// the flush runs while a second thread hashes, so the two take the longer one's time.
    static func digestAndSync(_ path: String) throws(SeedDBError) -> (SeedDBCore.SHA256Digest, Int64) {
        do {
            let descriptor = try path.withCString { try FileDescriptor.open($0, .readOnly, options: [.noFollow, .closeOnExec]) }
            defer { try? descriptor.close() }
            let size = try descriptor.stat().size
            return (try CopyEngine.hash(descriptor, upTo: size) { () throws(SeedDBError) in try sync(descriptor, path: path) }, size)
        } catch CopyEngine.Failure.step(let error) {
            // The flush's own failure, which names what it could not do.
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot read", path)
        }
    }

    /// The buffer size streaming reads use; memory use stays at this.
    static let chunkSize = 1 << 20

    /// Reads `descriptor` from its current offset to the end in chunks of ``chunkSize``.
    static func forEachChunk(of descriptor: FileDescriptor, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count = try descriptor.read(into: buffer)
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Runs `body`, which writes to `descriptor`, then closes it (also when `body`
    /// throws); a failure to close is a failure to write `path`.
    static func writing<Result>(_ descriptor: FileDescriptor, path: String, _ body: () throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        do {
            return try descriptor.closeAfter { () throws -> Result in try body() }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError.io(error, "cannot write", path)
        }
    }

    /// Flushes `descriptor` to stable storage.
    static func sync(_ descriptor: FileDescriptor, path: String) throws(SeedDBError) {
        do {
            try Syscalls.fsync(descriptor)
        } catch {
            throw SeedDBError.io(error, "cannot flush", path)
        }
    }

    /// Flushes the file at `path` to stable storage.
    static func sync(_ path: String) throws(SeedDBError) {
        try flush(path, options: [.noFollow, .closeOnExec], what: "cannot flush")
    }

    /// Flushes a directory, making the renames and unlinks done in it durable.
    static func syncDirectory(_ path: String) throws(SeedDBError) {
        try flush(path, options: [.directory, .closeOnExec], what: "cannot flush directory")
    }

    /// Opens `path` read-only with `options` and flushes it; a failure is `what` `path`.
    private static func flush(_ path: String, options: FileDescriptor.OpenOptions, what: String) throws(SeedDBError) {
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: options)
            try descriptor.closeAfter { try Syscalls.fsync(descriptor) }
        } catch {
            throw SeedDBError.io(error, what, path)
        }
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same directory,
    /// written, flushed, renamed over `path`, then the directory flushed.
    static func writeAtomically(_ bytes: [UInt8], to path: String, permissions: FilePermissions, owner: FileOwner? = nil) throws(SeedDBError) {
        let directory = Self.directory(of: path)
        let (descriptor, temporary) = try createTemporaryFile(in: directory, stem: Self.fileName(of: path), permissions: permissions)
        do {
            try descriptor.closeAfter {
                // The umask may have narrowed the mode; set it exactly.
                try Syscalls.fchmod(descriptor, mode: mode_t(permissions.rawValue))
                if let owner { try Syscalls.fchown(descriptor, uid: owner.uid, gid: owner.gid) }
                _ = try descriptor.writeAll(bytes)
                try Syscalls.fsync(descriptor)
            }
        } catch {
            try? remove(temporary)
            throw SeedDBError.io(error, "cannot write", path)  // the temporary file is gone
        }
        try renameOrRemove(temporary, to: path)
        try syncDirectory(directory)
    }

    /// Renames `temporary` over `path`; when that fails, removes `temporary`.
    private static func renameOrRemove(_ temporary: String, to path: String) throws(SeedDBError) {
        do {
            try rename(temporary, to: path)
        } catch {
            try? remove(temporary)
            throw error
        }
    }

    /// `$TMPDIR` (or `/tmp`) without a trailing slash.
    static func trimmedTemporaryDirectory() -> String {
        PathText.trimmingTrailingSlashes(NSTemporaryDirectory())
    }

    /// The directory part of `path` (`"/a/b"` → `"/a"`, `"/b"` → `"/"`, `"b"` → `"."`).
    static func directory(of path: String) -> String {
        let parent = FilePath(path).removingLastComponent()
        return parent.isEmpty ? "." : parent.string
    }

    /// The last component of `path` (`"a/b.sqlite"` → `"b.sqlite"`).
    static func fileName(of path: String) -> String { FilePath(path).lastComponent?.string ?? "" }

    /// `name` in `directory`.
    static func joined(_ directory: String, _ name: String) -> String {
        FilePath(directory).appending(name).string
    }

    /// The entries of `directory`, in the order the file system gives them; none when
    /// there is no directory at that path (nothing, or a file in its place or on its way).
    /// - Throws: ``SeedDBError`` when it exists but cannot be read.
    static func entries(of directory: String) throws(SeedDBError) -> [DirectoryEntry] {
        try linkTargetAndEntries(of: directory, link: nil).entries
    }

    /// The target of the symbolic link `link` in `directory` (`nil` when it is not a link
    /// or not there, or for no `link`) and the entries of `directory` (``entries(of:)``),
    /// from one open of the directory.
    /// - Throws: ``SeedDBError`` when the directory exists but cannot be read.
    static func linkTargetAndEntries(of directory: String, link: String?) throws(SeedDBError) -> (linkTarget: String?, entries: [DirectoryEntry]) {
        do {
            guard let link else { return (nil, try Syscalls.directoryEntries(directory)) }
            return try Syscalls.linkTargetAndEntries(directory, link: link)
        } catch .noSuchFileOrDirectory, .notDirectory {
            return (nil, [])
        } catch {
            // Whatever the cause, an unreadable listing is an I/O failure (exit 74).
            throw SeedDBError(.ioFailure, SeedDBError.io(error, "cannot list directory", directory).message, underlying: error)
        }
    }

    /// `path` made absolute with every symbolic link resolved (`realpath(3)`); when that
    /// fails (a missing file, a dangling link, a loop), Foundation's reading of it, which
    /// resolves what it can.
    static func resolvingLinks(_ path: String) -> String {
        (try? Syscalls.realpath(path)) ?? URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// The target of the symbolic link at `path`.
    static func linkTarget(of path: String) throws(SeedDBError) -> String {
        do {
            return try Syscalls.readlink(path)
        } catch {
            throw SeedDBError.io(error, "cannot read the link", path)
        }
    }

    /// Makes `path` a symbolic link to `target` atomically: a link under a temporary name,
    /// renamed over whatever `path` is (never followed).
    static func replaceWithLink(_ path: String, to target: String, owner: FileOwner?) throws(SeedDBError) {
        let directory = directory(of: path)
        let temporary = joined(directory, temporaryPrefix(fileName(of: path)) + randomSuffix() + ".link.tmp")
        do {
            try Syscalls.symlink(target, at: temporary)
            if let owner { try Syscalls.lchown(temporary, uid: owner.uid, gid: owner.gid) }
        } catch {
            try? remove(temporary)
            throw SeedDBError.io(error, "cannot create the link", temporary)
        }
        try renameOrRemove(temporary, to: path)
    }

    /// A new name for a temporary file of `stem` in `directory` (`.<stem>.seeddb-<random>.<kind>.tmp`);
    /// nothing is created.
    static func temporaryPath(in directory: String, stem: String, kind: String) -> String {
        joined(directory, temporaryPrefix(stem) + randomSuffix() + "." + kind + ".tmp")
    }

    private static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
