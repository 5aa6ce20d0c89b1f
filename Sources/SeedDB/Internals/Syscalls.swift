import Glibc
import CSeedDBSystem
import SystemPackage

/// The one place SeedDB calls libc directly, for what swift-system does not wrap.
///
/// Each function retries on `EINTR` and throws the `Errno` of a failure; callers add
/// the path and operation when they turn it into a ``SeedDBError``.
enum Syscalls {
    /// Runs `body` until it does not fail with `EINTR`; throws the `Errno` of any other failure.
    @discardableResult
    static func retrying<Result: BinaryInteger>(_ body: () -> Result) throws(Errno) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            let error = Errno(rawValue: errno)
            if error != .interrupted { throw error }
        }
    }

    /// `fsync(2)`: flushes a file's data and metadata to stable storage.
    static func fsync(_ fd: FileDescriptor) throws(Errno) {
        try retrying { Glibc.fsync(fd.rawValue) }
    }

    /// `fstatvfs(3)` and `fstat(2)`: the bytes an unprivileged writer may still use on the
    /// file system of `fd`, and the bytes `fd`'s file occupies there.
    static func space(_ fd: FileDescriptor) throws(Errno) -> (available: Int64, allocated: Int64) {
        var system = statvfs()
        try retrying { Glibc.fstatvfs(fd.rawValue, &system) }
        var file = stat()
        try retrying { Glibc.fstat(fd.rawValue, &file) }
        return (Int64(system.f_bavail) * Int64(system.f_frsize), Int64(file.st_blocks) * 512)
    }

    /// `fstatvfs(3)` of the directory `path`: the bytes an unprivileged writer may still
    /// use on the file system that holds it.
    static func availableBytes(inDirectory path: String) throws(Errno) -> Int64 {
        let fd = try retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        var system = statvfs()
        try retrying { Glibc.fstatvfs(fd, &system) }
        return Int64(system.f_bavail) * Int64(system.f_frsize)
    }

    /// `mkdir(2)`.
    static func mkdir(_ path: String, mode: mode_t) throws(Errno) {
        try retrying { Glibc.mkdir(path, mode) }
    }

    /// `fchmod(2)`: sets the permission bits of an open file.
    static func fchmod(_ fd: FileDescriptor, mode: mode_t) throws(Errno) {
        try retrying { Glibc.fchmod(fd.rawValue, mode) }
    }

    /// `chmod(2)` that never follows a symbolic link at `path` (`fchmodat(2)` with
    /// `AT_SYMLINK_NOFOLLOW`: a link there is refused, `EOPNOTSUPP`). SeedDB sets modes as
    /// root in directories another account may own: a link that account put in a file's
    /// place must not carry the mode to the file it names (a shipped seed).
    static func chmod(_ path: String, mode: mode_t) throws(Errno) {
        try retrying { Glibc.fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW) }
    }

    /// `utimensat(2)` that never follows a symbolic link at `path`: sets the file's
    /// modification time to `modified`, its access time unchanged.
    static func setModificationTime(_ path: String, to modified: timespec) throws(Errno) {
        let omit = (1 << 30) - 2  // `UTIME_OMIT`, a macro Swift does not import
        let times = [timespec(tv_sec: 0, tv_nsec: omit), modified]
        try retrying { Glibc.utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) }
    }

    /// `fchmod(2)` of the directory at `path`, opened without following a symbolic link
    /// there (`O_NOFOLLOW`: a link is refused, `ELOOP`). Unlike ``chmod(_:mode:)``, it needs
    /// no /proc, which glibc's `fchmodat` with `AT_SYMLINK_NOFOLLOW` goes through (a chroot
    /// or a `dpkg --root` install may have none).
    static func chmodDirectory(_ path: String, mode: mode_t) throws(Errno) {
        let fd = try retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        try retrying { Glibc.fchmod(fd, mode) }
    }

    /// `chown(2)`.
    static func chown(_ path: String, uid: UInt32, gid: UInt32) throws(Errno) {
        try retrying { Glibc.chown(path, uid, gid) }
    }

    /// `fchown(2)`.
    static func fchown(_ fd: FileDescriptor, uid: UInt32, gid: UInt32) throws(Errno) {
        try retrying { Glibc.fchown(fd.rawValue, uid, gid) }
    }

    /// `rename(2)`: atomically replaces `destination` with `source`.
    static func rename(_ source: String, _ destination: String) throws(Errno) {
        try retrying { Glibc.rename(source, destination) }
    }

    /// `renameat2(2)` with `RENAME_NOREPLACE`: renames, failing with `EEXIST` rather than
    /// replacing `destination`.
    static func renameNoReplace(_ source: String, _ destination: String) throws(Errno) {
        try retrying { cseeddb_rename_noreplace(source, destination) }
    }

    /// `unlink(2)`: removes a directory entry; a symbolic link is removed, never followed.
    static func unlink(_ path: String) throws(Errno) {
        try retrying { Glibc.unlink(path) }
    }

    /// The kinds of `fcntl` lock, as the C shim numbers them.
    enum LockType: Int32 {
        case unlocked = -1
        case shared = 0
        case exclusive = 1
    }

    /// `link(2)`: a second name for an existing file.
    static func link(_ existing: String, _ new: String) throws(Errno) {
        try retrying { Glibc.link(existing, new) }
    }

    /// Takes or releases an open-file-description lock (`F_OFD_SETLK`) on one byte.
    ///
    /// OFD locks belong to the open file description, not the process: closing another
    /// descriptor on the same file does not drop them, and two descriptors in one process
    /// conflict like two processes do.
    ///
    /// - Returns: `false` when another holder conflicts (`EAGAIN`/`EACCES`).
    static func setLock(_ fd: FileDescriptor, byte: Int, type: LockType) throws(Errno) -> Bool {
        while true {
            if cseeddb_ofd_setlk(fd.rawValue, type.rawValue, Int64(byte)) == 0 { return true }
            let error = Errno(rawValue: errno)
            switch error {
            case .interrupted: continue
            case .resourceTemporarilyUnavailable, .permissionDenied: return false
            default: throw error
            }
        }
    }

    /// Whether another open file description holds a lock on `byte` that conflicts with `type`.
    static func lockConflicts(_ fd: FileDescriptor, byte: Int, exclusive: Bool) throws(Errno) -> Bool {
        let result = try retrying { cseeddb_ofd_conflicts(fd.rawValue, exclusive ? 1 : 0, Int64(byte)) }
        return result == 1
    }

    /// `mmap(2)` of `length` bytes of a file at `offset` (a multiple of the page size),
    /// read-only and shared: the page cache itself, no copy.
    static func mapReadOnly(_ fd: FileDescriptor, offset: Int64, length: Int) throws(Errno) -> UnsafeRawBufferPointer {
        guard let address = Glibc.mmap(nil, length, PROT_READ, MAP_SHARED, fd.rawValue, off_t(offset)), address != MAP_FAILED else {
            throw Errno(rawValue: errno)
        }
        _ = Glibc.madvise(address, length, MADV_SEQUENTIAL)
        return UnsafeRawBufferPointer(start: address, count: length)
    }

    /// `munmap(2)` of a mapping from ``mapReadOnly(_:offset:length:)``.
    static func unmap(_ region: UnsafeRawBufferPointer) {
        _ = Glibc.munmap(UnsafeMutableRawPointer(mutating: region.baseAddress), region.count)
    }

    /// `copy_file_range(2)` from the current offsets: the kernel copies without passing
    /// the bytes through user space.
    /// - Returns: The number of bytes copied; 0 at the end of the input.
    static func copyFileRange(from input: FileDescriptor, to output: FileDescriptor, count: Int) throws(Errno) -> Int {
        try retrying { cseeddb_copy_file_range(input.rawValue, output.rawValue, count) }
    }

    /// `ioctl(FICLONE)`: makes `output` share `input`'s extents on a reflink file system.
    static func cloneFile(from input: FileDescriptor, to output: FileDescriptor) throws(Errno) {
        try retrying { cseeddb_ficlone(output.rawValue, input.rawValue) }
    }

    /// `ioctl(FS_IOC_FIEMAP)`: whether an extent of the file shares its blocks with
    /// another file (a reflink).
    static func sharesExtents(_ descriptor: FileDescriptor) throws(Errno) -> Bool {
        try retrying { cseeddb_shares_extents(descriptor.rawValue) } == 1
    }

    /// `rmdir(2)`: removes an empty directory.
    static func rmdir(_ path: String) throws(Errno) {
        try retrying { Glibc.rmdir(path) }
    }

    /// `symlink(2)`: creates a symbolic link at `path` whose target is `target`.
    static func symlink(_ target: String, at path: String) throws(Errno) {
        try retrying { Glibc.symlink(target, path) }
    }

    /// `open(2)` and `getdents64(2)`: the entries of the directory at `path` (see
    /// ``entries(ofDirectory:)``).
    static func directoryEntries(_ path: String) throws(Errno) -> [DirectoryEntry] {
        let fd = try retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        return try entries(ofDirectory: fd)
    }

    /// `open(2)` of the directory at `path`, `readlinkat(2)` of `name` in it and
    /// `getdents64(2)`: the target of the symbolic link `name` (`nil` when `name` is not a
    /// link or not there) and the directory's entries (see ``entries(ofDirectory:)``). One
    /// walk of `path`, which a `readlink` of the link's own path would make again.
    static func linkTargetAndEntries(_ path: String, link name: String) throws(Errno) -> (linkTarget: String?, entries: [DirectoryEntry]) {
        let fd = try retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        let target: String?
        do {
            target = try readlinkat(fd, name)
        } catch .invalidArgument, .noSuchFileOrDirectory {
            target = nil
        }
        return (target, try entries(ofDirectory: fd))
    }

    /// `getdents64(2)` until the end: the entries of the open directory `fd`, without `.`
    /// and `..`, in the order the file system gives them, each with the type its `d_type`
    /// gives (`nil` for `DT_UNKNOWN`). (`opendir(3)` would add an `fstat` to every startup
    /// check's look at the working copy's directory.)
    private static func entries(ofDirectory fd: Int32) throws(Errno) -> [DirectoryEntry] {
        try withUnsafeTemporaryAllocation(byteCount: 32_768, alignment: 8) { (buffer) throws(Errno) in
            var entries: [DirectoryEntry] = []
            while true {
                let filled = try retrying { cseeddb_getdents64(fd, buffer.baseAddress, buffer.count) }
                if filled == 0 { return entries }
                var offset = 0
                while offset < filled {
                    // struct linux_dirent64: inode (8), offset (8), record length (2), type (1), name.
                    let length = Int(buffer.load(fromByteOffset: offset + 16, as: UInt16.self))
                    let type = buffer.load(fromByteOffset: offset + 18, as: UInt8.self)
                    let name = UnsafeRawBufferPointer(rebasing: buffer[(offset + 19)..<(offset + length)])
                    let bytes = name[..<(name.firstIndex(of: 0) ?? name.count)]
                    // An ASCII name (the usual one) is valid UTF-8 as it is: no validation.
                    let exact = bytes.allSatisfy { $0 < 0x80 } ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
                    let text = exact ?? String(decoding: bytes, as: UTF8.self)
                    if text != "." && text != ".." {
                        // A `DT_` value is its file type's `S_IF` bits shifted down by 12.
                        let fileType = type == 0 ? nil : FileType(rawValue: CInterop.Mode(type) << 12)
                        entries.append(DirectoryEntry(name: text, type: fileType, nameIsExact: exact != nil))
                    }
                    offset += length
                }
            }
        }
    }

    /// `realpath(3)`: the absolute path of `path` with every symbolic link resolved.
    static func realpath(_ path: String) throws(Errno) -> String {
        guard let resolved = Glibc.realpath(path, nil) else { throw Errno(rawValue: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `readlink(2)`: the target of the symbolic link at `path`.
    static func readlink(_ path: String) throws(Errno) -> String {
        try readlinkat(AT_FDCWD, path)
    }

    /// `readlinkat(2)`: the target of the symbolic link `path` names, relative to the open
    /// directory `directory` (or the working directory, `AT_FDCWD`).
    private static func readlinkat(_ directory: Int32, _ path: String) throws(Errno) -> String {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX)) { buffer in
            Result { () throws(Errno) in
                let count = try retrying { Glibc.readlinkat(directory, path, buffer.baseAddress!, buffer.count) }
                return String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]), as: UTF8.self)
            }
        }.get()
    }

    /// `lchown(2)`: changes the owner of a symbolic link itself.
    static func lchown(_ path: String, uid: UInt32, gid: UInt32) throws(Errno) {
        try retrying { Glibc.lchown(path, uid, gid) }
    }

    /// `geteuid(2)`: whether this process runs as root.
    static var isRoot: Bool { Glibc.geteuid() == 0 }

    /// `geteuid(2)`: the user id this process acts as.
    static var effectiveUserID: UInt32 { Glibc.geteuid() }

    /// `sysconf(_SC_PAGESIZE)`: the memory page size.
    static let memoryPageSize = Int64(Glibc.sysconf(Int32(_SC_PAGESIZE)))

    /// `getenv(3)`: the value of the process's environment variable `name`, `nil` when
    /// unset (one variable, where `ProcessInfo.environment` copies them all).
    static func environmentVariable(_ name: String) -> String? {
        Glibc.getenv(name).map { String(cString: $0) }
    }

    /// `time(2)`: the system clock's time now, in whole seconds since the Unix epoch.
    static func secondsSinceEpoch() -> Int64 {
        Int64(Glibc.time(nil))
    }

    /// `nanosleep(2)` for `duration`, resumed after signals.
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while Glibc.nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// A user's ids from `getpwnam(3)` (a name) or `getpwuid(3)` (a number); `nil` when unknown.
    static func user(named name: String) -> (uid: UInt32, gid: UInt32)? {
        if let entry = Glibc.getpwnam(name) { return (entry.pointee.pw_uid, entry.pointee.pw_gid) }
        guard let id = UInt32(name) else { return nil }
        return (id, Glibc.getpwuid(id)?.pointee.pw_gid ?? id)
    }

    /// A group's id from `getgrnam(3)` (a name) or a number; `nil` when unknown.
    static func group(named name: String) -> UInt32? {
        if let entry = Glibc.getgrnam(name) { return entry.pointee.gr_gid }
        return UInt32(name)
    }

    /// `access(2)`: whether this process may read (and, if `writable`, write and search) `path`.
    static func requireAccess(_ path: String, writable: Bool) throws(Errno) {
        try retrying { Glibc.access(path, writable ? W_OK | X_OK : R_OK) }
    }

    /// Why `dlopen(3)` failed, as `dlerror(3)` says.
    struct LoadFailure: Error {
        var message: String
    }

    /// `dlopen(3)` with `RTLD_NOW | RTLD_LOCAL`: a shared library loaded at run time.
    static func loadLibrary(_ name: String) -> Result<UnsafeMutableRawPointer, LoadFailure> {
        guard let handle = Glibc.dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadFailure(message: Glibc.dlerror().map { String(cString: $0) } ?? "not found"))
        }
        return .success(handle)
    }

    /// `dlsym(3)`: the address of `name` in a library from ``loadLibrary(_:)``.
    static func symbol(_ name: String, in handle: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Glibc.dlsym(handle, name)
    }
}
