import Foundation
import Logging
import SeedDBCore
import SystemPackage

/// The settings store: a JSON object standing in for Apple's user defaults.
///
/// SeedDB owns the top-level key `"seeddb"` only and keeps one entry per working copy
/// there: `{"seeddb": {"<name>": {"version", "sha256", "size", "deployedAt"}}}`. Every other
/// key belongs to the app and survives every write unchanged.
///
/// Reads take no lock (the file is only ever replaced by an atomic rename). Writes are
/// serialised by a lock file beside the settings file and are atomic: a temporary file
/// in the same directory, flushed, renamed over the old one, and the directory flushed.
///
/// A file that is not a JSON object is moved aside to `settings.json.corrupt-<timestamp>`
/// by the next write, with a warning; a valid object whose `"seeddb"` value has the wrong
/// shape is copied aside the same way and only `"seeddb"` starts afresh.
public struct SettingsStore: Sendable {
    /// The top-level key SeedDB owns.
    public static let key = "seeddb"

    /// The settings file.
    public let path: String
    /// The lock file that serialises writes (`<path>.lock`): made when a write needs it,
    /// not for each store (every startup check makes one and only reads).
    public var lockPath: String { path + ".lock" }
    private let logger: Logger
    private let policy: FilePolicy

    /// Creates a store for the settings file at `path`.
    /// - Parameters:
    ///   - path: The settings file (`settings.json` in the app's configuration directory).
    ///   - logger: Where warnings go (a damaged settings file set aside).
    ///   - policy: The mode and owner of the files and directories it creates.
    public init(path: String, logger: Logger, policy: FilePolicy = .user) {
        self.path = path
        self.logger = logger
        self.policy = policy
    }

    /// What the store holds now, read without a lock and without changing anything.
    ///
    /// A missing file reads as empty. A damaged file reads as empty too, with the
    /// problem in ``SettingsSnapshot/problem``: read-only callers report it, and the next
    /// write repairs it.
    public func snapshot() throws(SeedDBError) -> SettingsSnapshot {
        guard let bytes = try read() else { return SettingsSnapshot() }
        return SettingsSnapshot(parsing: bytes)
    }

    /// The recorded deploy of `name`, if any (the startup hot path: one read, one parse).
    /// - Throws: ``SeedDBError`` `conflictingSeed` when it is recorded under a name that
    ///   only looks like `name` (``SettingsSnapshot/entry(of:)``).
    public func record(for name: SeedName) throws(SeedDBError) -> DeployRecord? {
        try snapshot(only: name).entry(of: name)?.record
    }

    /// Like ``snapshot()``, decoding only `name`'s entry: what the startup check needs.
    ///
    /// The file is read with no `fstat` (``FileSystem/readFile(at:expectingAtMost:)``): a
    /// read a network file system cut short leaves JSON that does not parse, so a file
    /// that reads as damaged is read again, whole, before it is said to be.
    func snapshot(only name: SeedName) throws(SeedDBError) -> SettingsSnapshot {
        guard let bytes = try read(expectingAtMost: 16 * 1024) else { return SettingsSnapshot() }
        let snapshot = SettingsSnapshot(parsing: bytes, only: name.rawValue)
        guard snapshot.problem != nil, let whole = try read() else { return snapshot }
        return SettingsSnapshot(parsing: whole, only: name.rawValue)
    }

    /// The file's bytes, `nil` when it does not exist (read through a symbolic link);
    /// `capacity` as ``FileSystem/readFile(at:expectingAtMost:)`` takes it.
    private func read(expectingAtMost capacity: Int? = nil) throws(SeedDBError) -> [UInt8]? {
        do {
            // One open in the usual case; only a link is resolved first.
            return try FileSystem.readFile(at: path, expectingAtMost: capacity)
        } catch where error.underlying as? Errno == .tooManySymbolicLinkLevels {
            return try FileSystem.readFile(at: try file(), expectingAtMost: capacity)
        }
    }

    /// The file that holds the settings: ``path``, or when ``path`` is a symbolic link (a
    /// configuration managed by a dotfile tool), the file it leads to. Writes replace
    /// that file atomically in its own directory, so the link stays.
    /// - Throws: ``SeedDBError`` for a loop of links or a link that cannot be read.
    func file() throws(SeedDBError) -> String {
        var current = path
        for _ in 0..<40 {
            guard try FileSystem.fileType(at: current) == .symbolicLink else { return current }
            let target = try FileSystem.linkTarget(of: current)
            current = target.hasPrefix("/") ? target : FileSystem.directory(of: current) + "/" + target
        }
        throw SeedDBError(.cannotCreate, "settings file \(path) is a loop of symbolic links")
    }

    /// Changes SeedDB's entries under the write lock and saves the result atomically.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait for another writer.
    ///   - change: Edits the entries, keyed by working-copy name.
    /// - Throws: ``SeedDBError`` `conflictingSeed`, with nothing written, when `change`
    ///   wrote an entry under a name that only looks like a recorded one (``SettingsTable``).
    public func update(timeout: Duration, _ change: (inout SettingsTable) throws -> Void) throws(SeedDBError) {
        let directory = FileSystem.directory(of: path)
        try FileSystem.createDirectories(directory, mode: policy.directoryMode)
        try FileSystem.requireSafeForRoot(directory, owner: policy.owner)
        let lock = try FileLock.acquire(lockPath, kind: .exclusive, timeout: timeout, owner: policy.owner)
        defer { lock.close() }
        let file = try file()
        if file != path { try FileSystem.requireSafeForRoot(FileSystem.directory(of: file), owner: policy.owner) }
        try FileSystem.removeStaleTemporaryFiles(in: FileSystem.directory(of: file), stem: FileSystem.fileName(of: file))

        let current = try snapshot()
        if let problem = current.problem {
            try setAside(problem)
        }
        var table = SettingsTable(current.entries)
        do {
            try change(&table)
        } catch {
            throw SeedDBError.io(error, "cannot update settings", path)
        }
        if let refusal = table.lookalikeError { throw refusal }
        try FileSystem.writeAtomically(current.bytes(with: table.entries), to: file, permissions: FilePermissions(rawValue: CInterop.Mode(policy.settingsMode)), owner: policy.owner)
    }

    /// Removes the temporary files a killed write left beside the settings file, under
    /// the write lock, which is taken only when there are some; the paths removed.
    public func removeStaleTemporaryFiles(timeout: Duration) throws(SeedDBError) -> [String] {
        let file = try file()
        let (directory, stem) = (FileSystem.directory(of: file), FileSystem.fileName(of: file))
        guard try FileSystem.fileType(at: directory) != nil, !(try FileSystem.staleTemporaryFiles(in: directory, stem: stem)).isEmpty else { return [] }
        let lock = try FileLock.acquire(lockPath, kind: .exclusive, timeout: timeout, owner: policy.owner)
        defer { lock.close() }
        return try FileSystem.removeStaleTemporaryFiles(in: directory, stem: stem)
    }

    /// The settings file as it is now, byte for byte, so a failed run can put it back.
    struct Backup: Sendable {
        /// The file's bytes; `nil` when there was no file.
        var bytes: [UInt8]?
        /// Whether the write lock file existed.
        var lockExisted: Bool
        /// Whether the settings directory existed.
        var directoryExisted: Bool
        /// The damaged files set aside earlier (`settings.json.corrupt-…`).
        var setAside: Set<String>
    }

    /// The damaged files set aside so far.
    private func setAsideCopies() -> Set<String> {
        let file = (try? file()) ?? path
        let prefix = FileSystem.fileName(of: file) + ".corrupt-"
        return Set(((try? FileSystem.entries(of: FileSystem.directory(of: file))) ?? []).map(\.name).filter { $0.hasBytePrefix(prefix) })
    }

    /// Takes a ``Backup`` of the file as it is now.
    func backup() throws(SeedDBError) -> Backup {
        let directory = FileSystem.directory(of: path)
        return Backup(
            bytes: try read(),
            lockExisted: try FileSystem.fileType(at: lockPath) != nil,
            directoryExisted: try FileSystem.fileType(at: directory) != nil,
            setAside: setAsideCopies())
    }

    /// Puts the file back as `backup` found it, byte for byte: rewritten atomically under
    /// the write lock, or removed with the lock file and directory this run created. A
    /// `.corrupt-` copy set aside meanwhile is removed too.
    func restore(_ backup: Backup, timeout: Duration) throws(SeedDBError) {
        let directory = FileSystem.directory(of: path)
        guard try FileSystem.fileType(at: directory) == .directory else { return }
        let now = try self.backup()
        if now.bytes == backup.bytes, now.lockExisted == backup.lockExisted, now.directoryExisted == backup.directoryExisted, now.setAside == backup.setAside {
            return
        }
        let lock = try FileLock.acquire(lockPath, kind: .exclusive, timeout: timeout, owner: policy.owner)
        let file = try file()
        if let bytes = backup.bytes {
            if try FileSystem.readFile(at: file) != bytes {
                try FileSystem.writeAtomically(bytes, to: file, permissions: FilePermissions(rawValue: CInterop.Mode(policy.settingsMode)), owner: policy.owner)
            }
            for entry in setAsideCopies().subtracting(backup.setAside) {
                try? FileSystem.remove(FileSystem.directory(of: file) + "/" + entry)
            }
        } else {
            try FileSystem.remove(file)
        }
        if backup.lockExisted {
            lock.close()
        } else {
            lock.removeAndClose()
        }
        if !backup.directoryExisted { _ = FileSystem.removeIfEmpty(directory) }
    }

    /// Moves (unreadable file) or copies (bad `"seeddb"` value) the current file aside.
    private func setAside(_ problem: SettingsSnapshot.Problem) throws(SeedDBError) {
        let file = try file()
        let aside = try asidePath(file)
        switch problem {
        case .notAnObject:
            try FileSystem.rename(file, to: aside)
            try FileSystem.syncDirectory(FileSystem.directory(of: file))
        case .badSeedDBValue:
            guard let bytes = try FileSystem.readFile(at: file) else { return }
            try FileSystem.writeAtomically(bytes, to: aside, permissions: [.ownerReadWrite])
        }
        logger.warning("\(problem.description) in \(path); saved it as \(aside) and starting afresh")
    }

    /// A free `settings.json.corrupt-<UTC timestamp>` name.
    private func asidePath(_ file: String) throws(SeedDBError) -> String {
        let stamp = UTCTimestamp.basic(secondsSinceEpoch: Syscalls.secondsSinceEpoch())
        var candidate = "\(file).corrupt-\(stamp)"
        var counter = 1
        while try FileSystem.fileType(at: candidate) != nil {
            candidate = "\(file).corrupt-\(stamp)-\(counter)"
            counter += 1
        }
        return candidate
    }
}
