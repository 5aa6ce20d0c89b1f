import Crypto
import GRDB
import Logging
@testable import SeedDB
import SeedDBCore
import SystemPackage

/// The simulator's machine: an in-memory file system whose files are labelled database
/// contents, the settings bytes and SQLite's sidecars, behind the same four interfaces
/// the real deployer uses (``DeployFileSystem``, ``DeployDatabase``,
/// ``DeployRecordStore``, ``DeployLocks``), and a clock that advances half a second per
/// run, so a seed's history replays exactly.
///
/// A database's content is what matters to a user: which seed's rows it holds and which
/// rows the user wrote. SQLite's one hazard a name can carry is modelled as SQLite has
/// it: a `-wal` or `-journal` belongs to whatever file next has its database's name, and
/// opening that file replays it (the content becomes ``Content/mixed``).
///
/// The process can be stopped before any mutating call (``crash(beforeCall:)``): from
/// then on every call fails and changes nothing, so the undo a failing run attempts
/// cannot touch the state, exactly as a killed process cannot.
final class SimulatedWorld: @unchecked Sendable {
    /// A database's content.
    struct Database: Hashable, CustomStringConvertible {
        /// The seed version whose rows it holds (`"1"`), or `"adopted"` for a database
        /// found with no record.
        var seed: String
        /// The rows the user wrote in tables of the app's own.
        var userRows: Set<Int> = []
        /// The user's edits of the seed's own rows (kept by a merge, replaced without one).
        var edits: Set<Int> = []
        /// The user's rows in a seed table no merge can merge (one with no primary key): a
        /// carry leaves that table the new seed's, and only the old copy keeps them.
        var unmergeable: Set<Int> = []
        /// Whether SeedDB fenced it (read-only for SQLite).
        var fenced = false
        /// Whether SQLite replayed another database's `-wal` or `-journal` into it.
        var mixed = false
        /// Whether some of its commits are frames only its `-wal` holds (an app crashed in
        /// WAL mode): SQLite replays them when it opens the file beside that `-wal`; the
        /// file away from it has lost them.
        var framesInWAL = false

        var description: String {
            "seed \(seed)\(userRows.isEmpty ? "" : " rows \(userRows.sorted())")\(edits.isEmpty ? "" : " edits \(edits.sorted())")\(unmergeable.isEmpty ? "" : " unmergeable rows \(unmergeable.sorted())")\(fenced ? " fenced" : "")\(mixed ? " MIXED" : "")\(framesInWAL ? " (commits in its -wal)" : "")"
        }
    }

    /// What a file holds.
    enum Content: Hashable {
        /// A database, and the lineage (`id`) its `-wal`/`-journal` frames belong to.
        case database(Database, id: Int)
        /// Plain bytes (the settings file, the conflicts file).
        case bytes([UInt8])
        /// A `-wal`, `-shm` or `-journal` holding frames of database lineage `owner`.
        case sidecar(owner: Int)
        /// A database kept as its difference from another file whose content had digest
        /// `against` (a previous generation's merge base): restored against any other
        /// content, it gives other bytes.
        case delta(Database, against: SeedDBCore.SHA256Digest)
    }

    /// A directory entry.
    enum Node: Hashable {
        case file(Content, inode: UInt64, stamp: Int64)
        case link(String)
    }

    /// Every entry by absolute path (directories are implied).
    private(set) var nodes: [String: Node] = [:]
    private var nextInode: UInt64 = 1
    private var nextLineage = 1
    private var clock: Int64 = 1
    /// The wall clock runs read, in half seconds since the epoch: it advances by one with
    /// every run (a crashed one too), so two runs in a row can share a second (and name
    /// adopted copies alike) and a replayed seed reads the same times.
    private var halfSeconds: Int64 = 2 * 1_795_000_000
    /// The mutating calls made so far.
    private(set) var mutatingCalls = 0
    /// How many carries merged the user's edits (a plan that merges, ``DeployPlan/merges``),
    /// since this world was made or copied.
    fileprivate(set) var merges = 0
    /// Every path SeedDB hashed (`sha256(of:)`, `digestAndSync`), in order.
    fileprivate(set) var hashed: [String] = []
    /// The call before which the process stops, if one was set.
    private var crashBefore: Int?
    /// The app's write made while SeedDB runs, before mutating call ``appWriteBefore``
    /// (or the first call after it that the writer's lock lets it through): it says
    /// whether it could go ahead (`false`: it waits for the lock).
    private var pendingAppWrite: (() -> Bool)?
    private var appWriteBefore: Int?
    /// The file SeedDB holds SQLite's writer's lock on: the old copy during a swap's
    /// locked steps, the working copy during a live replace's backup. The app's writes to
    /// it wait; its writes to any other file (a new generation the link already names) do not.
    fileprivate(set) var writerLocked: String?
    /// Whether the process stopped.
    private(set) var crashed = false
    /// A broken rule the model saw happen (a name reused beside a sidecar, a file
    /// replayed into another's name).
    private(set) var violations: [String] = []

    /// The settings file of the simulated app (for the model's checks of what a merge used).
    var settingsFile: String?

    /// The staged copy of the live replace under way (the model's connection to it).
    fileprivate(set) var liveStaged: String?
    /// Whether the file system shares extents (reflinks): a `keepCopy` that may only
    /// clone then makes one; without, it makes nothing (ext4), and a base may be a hard
    /// link to the seed file.
    var reflinks = true
    /// Whether the kernel makes hard links to the seed (`fs.protected_hardlinks` refuses
    /// them to a process that does not own the file).
    var hardLinks = true
    /// Whether a read of a directory gives each entry's type (`d_type`); without, every
    /// type is unknown (`DT_UNKNOWN`, as some file systems answer) and a reader that needs
    /// one looks at the file itself.
    var directoryTypes = true

    /// The error every call fails with once the process stopped.
    static let crashError = SeedDBError(.ioFailure, "simulated crash")

    init() {}

    /// A copy of the world as it is (the same nodes and counters; no crash set).
    func copy() -> SimulatedWorld {
        let world = SimulatedWorld()
        world.nodes = nodes
        world.reflinks = reflinks
        world.hardLinks = hardLinks
        world.directoryTypes = directoryTypes
        world.nextInode = nextInode
        world.nextLineage = nextLineage
        world.clock = clock
        world.halfSeconds = halfSeconds
        return world
    }

    /// Stops the process before mutating call number `call` (0 is before the first).
    func crash(beforeCall call: Int?) {
        crashBefore = call.map { mutatingCalls + $0 }
        crashed = false
    }

    /// Makes the app write, through `write`, while the process runs: before mutating call
    /// number `call` (0 is before the first), or the first after it the writer's lock lets through.
    func appWrites(beforeCall call: Int, _ write: @escaping () -> Bool) {
        appWriteBefore = mutatingCalls + call
        pendingAppWrite = write
    }

    /// Whether the app's write to the database at `path` (through its link) waits for
    /// SeedDB's writer's lock.
    func writeWaits(_ path: String) -> Bool {
        guard let writerLocked, let (_, _, file) = database(at: path) else { return false }
        return file == writerLocked
    }

    /// Starts a new process on the same disk.
    func restart() {
        pendingAppWrite = nil
        appWriteBefore = nil
        crashBefore = nil
        crashed = false
        halfSeconds += 1
    }

    // MARK: - What the simulator reads and does directly

    /// The directory part of an absolute path (the model's paths are plain: no `..`, no `//`).
    static func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? path
    }

    /// The last component of an absolute path.
    static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// The settings bytes last parsed, and what they parsed to (the model reads the same
    /// bytes many times between two writes).
    private var lastParsed: (bytes: [UInt8], snapshot: SettingsSnapshot)?

    /// `bytes` parsed as the settings file, by SeedDB's own parser.
    func parsed(_ bytes: [UInt8]) -> SettingsSnapshot {
        if let lastParsed, lastParsed.bytes == bytes { return lastParsed.snapshot }
        let snapshot = SettingsSnapshot(parsing: bytes)
        lastParsed = (bytes, snapshot)
        return snapshot
    }

    /// The node at `path`.
    func node(_ path: String) -> Node? { nodes[path] }

    /// The names of the files and links in `directory`.
    func names(in directory: String) -> [String] {
        let prefix = directory + "/"
        return nodes.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    /// The names of the directories in `directory`: those the paths of files below it imply.
    func subdirectories(in directory: String) -> [String] {
        let prefix = directory + "/"
        return Set(nodes.keys.filter { $0.hasPrefix(prefix) && $0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count).prefix { $0 != "/" }) }).sorted()
    }

    /// The path `path` names, following one link (to a file in the same directory, or to
    /// an absolute path: a read-only seed).
    func resolved(_ path: String) -> String {
        guard case .link(let target)? = nodes[path] else { return path }
        return target.hasPrefix("/") ? target : SimulatedWorld.parent(of: path) + "/" + target
    }

    /// Whether `path` is a seed a package ships (out of any deploy): read-only to the app.
    static func isShippedSeed(_ path: String) -> Bool { path.hasPrefix("/sim/seeds/") }

    /// The database at `path`, following one link.
    func database(at path: String) -> (content: Database, id: Int, file: String)? {
        let file = resolved(path)
        guard case .file(.database(let content, let id), _, _)? = nodes[file] else { return nil }
        return (content, id, file)
    }

    /// Puts a seed file on disk, out of any deploy.
    func putSeed(_ path: String, version: String) {
        put(path, .database(Database(seed: version), id: newLineage()))
    }

    /// The app writes row `row` into the working copy at `path` (through its link), the
    /// way SQLite would: a fenced or absent file takes no write.
    @discardableResult
    func appWrites(row: Int, into path: String, _ write: AppWrite = .ownTable) -> Bool {
        guard let (found, id, file) = database(at: path), !found.fenced, !Self.isShippedSeed(file) else { return false }
        var content = opened(found, id: id, at: file)
        switch write {
        case .ownTable: content.userRows.insert(row)
        case .seedRow: content.edits.insert(row)
        case .unmergeableSeedTable: content.unmergeable.insert(row)
        }
        put(file, .database(content, id: id))
        return true
    }

    /// What an app's write changes.
    enum AppWrite {
        /// A row of a table of the app's own (carried whole).
        case ownTable
        /// An edit of a seed row (kept by a merge, replaced without one).
        case seedRow
        /// A row in a seed table no merge can merge (no primary key).
        case unmergeableSeedTable
    }

    /// The app crashes mid-write in WAL or rollback-journal mode: a `-wal` (or hot
    /// `-journal`) of the working copy's lineage stays beside its file.
    func appCrashesLeavingSidecar(_ path: String, suffix: String) {
        guard let (content, id, file) = database(at: path), !Self.isShippedSeed(file) else { return }
        put(file + suffix, .sidecar(owner: id))
        if suffix == "-wal" {
            put(file + "-shm", .sidecar(owner: id))
            // Its last commits are in the `-wal` only, until SQLite opens it again.
            var content = content
            content.framesInWAL = true
            put(file, .database(content, id: id))
        }
    }

    /// A sidecar of a database that is gone (another lineage) is at `path`: one a user or
    /// a tool left when it moved its database away.
    func foreignSidecarAppears(_ path: String) {
        put(path, .sidecar(owner: newLineage()))
    }

    /// Removes `path` as a user or a cleaner would.
    func userRemoves(_ path: String) { nodes[path] = nil }

    /// Writes `bytes` at `path` as a user or a tool would.
    func userWrites(_ path: String, bytes: [UInt8]) { put(path, .bytes(bytes)) }

    // MARK: - Calls

    /// Every call: fails once the process stopped.
    fileprivate func reading() throws(SeedDBError) {
        if crashed { throw Self.crashError }
    }

    /// Every mutating call: fails (and stops the process) when its turn to crash came.
    fileprivate func mutating() throws(SeedDBError) {
        try reading()
        if let write = pendingAppWrite, let appWriteBefore, mutatingCalls >= appWriteBefore, write() {
            pendingAppWrite = nil
        }
        if let crashBefore, mutatingCalls >= crashBefore {
            crashed = true
            throw Self.crashError
        }
        mutatingCalls += 1
    }

    /// Records a broken rule the model saw happen.
    fileprivate func violate(_ rule: String) {
        violations.append(rule)
    }

    fileprivate func newLineage() -> Int {
        nextLineage += 1
        return nextLineage
    }

    fileprivate func put(_ path: String, _ content: Content, inode: UInt64? = nil) {
        clock += 1
        let number: UInt64
        if let inode {
            number = inode
        } else if case .file(_, let existing, _)? = nodes[path] {
            number = existing
        } else {
            nextInode += 1
            number = nextInode
        }
        nodes[path] = .file(content, inode: number, stamp: clock)
    }

    /// What SQLite does when it opens the database file `file`: a `-wal` or hot
    /// `-journal` of another lineage under its name is replayed into it.
    fileprivate func opened(_ content: Database, id: Int, at file: String) -> Database {
        var content = content
        for suffix in ["-wal", "-journal"] {
            if case .file(.sidecar(let owner), _, _)? = nodes[file + suffix], owner != id {
                content.mixed = true
                violations.append("SQLite replayed \(SimulatedWorld.name(of: file))\(suffix) of another database into \(SimulatedWorld.name(of: file))")
            }
        }
        // Its own `-wal`'s frames are read with it.
        if case .file(.sidecar(let owner), _, _)? = nodes[file + "-wal"], owner == id { content.framesInWAL = false }
        return content
    }

    /// The database of lineage `id` appears under `path`: its name must be free of
    /// every sidecar of another lineage.
    fileprivate func appears(at path: String, id: Int) {
        for suffix in SeedPaths.sqliteSidecarSuffixes {
            guard case .file(.sidecar(let owner), _, _)? = nodes[path + suffix], owner != id else { continue }
            violations.append("\(SimulatedWorld.name(of: path)) was created beside \(SimulatedWorld.name(of: path))\(suffix) of a gone database")
        }
    }

    fileprivate func fileContent(_ path: String) throws(SeedDBError) -> (Content, UInt64) {
        guard case .file(let content, let inode, _)? = nodes[path] else {
            throw SeedDBError(.ioFailure, "cannot read \(path): No such file or directory")
        }
        return (content, inode)
    }

    /// A stable digest of what a file holds (copies of the same content share it).
    static func digest(_ content: Content) -> SeedDBCore.SHA256Digest {
        let text: String
        switch content {
        case .database(let database, _): text = "db:\(database.seed):\(database.userRows.sorted()):\(database.edits.sorted()):\(database.fenced):\(database.mixed)"
        case .bytes(let bytes): text = "bytes:" + bytes.map(String.init).joined(separator: ",")
        case .sidecar(let owner): text = "sidecar:\(owner)"
        case .delta(let database, let reference): text = "delta:\(reference):" + digest(.database(database, id: 0)).description
        }
        return SeedDBCore.SHA256Digest(bytes: Array(SHA256.hash(data: Array(text.utf8))))
    }

    /// The effects a ``Deployer`` gets to run on this world.
    var effects: DeployEffects {
        DeployEffects(
            files: SimulatedFileSystem(world: self), database: SimulatedDatabase(world: self), locks: SimulatedLocks(world: self),
            records: { paths, _, _ in SimulatedRecords(world: self, path: paths.settingsFile) },
            clock: { self.halfSeconds / 2 })
    }
}

/// ``DeployFileSystem`` on a ``SimulatedWorld``.
struct SimulatedFileSystem: DeployFileSystem {
    let world: SimulatedWorld

    func fileType(at path: String) throws(SeedDBError) -> FileType? {
        try world.reading()
        switch world.node(path) {
        case nil: return world.isDirectory(path) ? .directory : nil
        case .file?: return .regular
        case .link?: return .symbolicLink
        }
    }

    func linkTargetAndEntries(of directory: String, link: String) throws(SeedDBError) -> (linkTarget: String?, entries: [DirectoryEntry]) {
        let entries = try entries(of: directory)
        guard case .link(let target)? = world.node(directory + "/" + link) else { return (nil, entries) }
        return (target, entries)
    }

    func entries(of directory: String) throws(SeedDBError) -> [DirectoryEntry] {
        try world.reading()
        let files = world.names(in: directory).map { name in
            DirectoryEntry(name: name, type: world.node(directory + "/" + name).map { node in
                if case .link = node { return .symbolicLink }
                return .regular
            })
        }
        let entries = files + world.subdirectories(in: directory).map { DirectoryEntry(name: $0, type: .directory) }
        return world.directoryTypes ? entries : entries.map { DirectoryEntry(name: $0.name, type: nil) }
    }

    func identity(of path: String) throws(SeedDBError) -> FileIdentity {
        try world.reading()
        let file = world.resolved(path)
        guard case .file(_, let inode, let stamp)? = world.node(file) else {
            // One device: a directory (implied by the files in it) is on it too.
            if world.node(file) == nil, world.nodes.keys.contains(where: { $0.hasPrefix(file + "/") }) {
                return FileIdentity(device: 1, inode: 0, size: 4096, modifiedNanoseconds: 0, changedNanoseconds: 0)
            }
            throw SeedDBError(.seedUnavailable, "seed not found: \(path)")
        }
        return FileIdentity(device: 1, inode: inode, size: 4096, modifiedNanoseconds: stamp, changedNanoseconds: stamp)
    }

    func modeAndOwner(of path: String, followingLinks: Bool) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner)? {
        try world.reading()
        let file = followingLinks ? world.resolved(path) : path
        guard world.node(file) != nil else { return nil }
        // The seeds a package ships are root's and read-only; SeedDB's own files the process's.
        return SimulatedWorld.isShippedSeed(file) ? (0o444, FileOwner(uid: 0, gid: 0)) : (0o644, FileOwner(uid: 0, gid: 0))
    }

    func statusFollowingLinks(of path: String) throws(SeedDBError) -> (mode: UInt16, owner: FileOwner, identity: FileIdentity)? {
        guard let (mode, owner) = try modeAndOwner(of: path, followingLinks: true) else { return nil }
        return (mode, owner, try identity(of: path))
    }

    func readPrefix(of path: String, count: Int) throws(SeedDBError) -> [UInt8] {
        try world.reading()
        guard case .database? = try? world.fileContent(path).0 else { return [] }
        // A valid header whose page count is not trusted (no declared size to check).
        var header = SQLiteHeader.magic + [0x10, 0x00, 1, 1] + [UInt8](repeating: 0, count: 80)
        header[27] = 1
        return Array(header.prefix(count))
    }

    func sha256(of path: String) throws(SeedDBError) -> SeedDBCore.SHA256Digest {
        try world.reading()
        world.hashed.append(path)
        return SimulatedWorld.digest(try world.fileContent(path).0)
    }

    func digestAndSync(_ path: String) throws(SeedDBError) -> (SeedDBCore.SHA256Digest, Int64) {
        (try sha256(of: path), 4096)
    }

    func rename(_ source: String, to destination: String) throws(SeedDBError) {
        try world.mutating()
        // A directory moves whole, as rename(2) moves it (a user's, at a name of SeedDB's).
        if world.isDirectory(source), world.node(destination) == nil, !world.isDirectory(destination) {
            return world.moveDirectory(source, to: destination)
        }
        guard let node = world.node(source) else { throw SeedDBError(.ioFailure, "cannot rename \(source): No such file or directory") }
        // A file onto a directory: rename(2) fails (EISDIR), and changes nothing.
        if world.isDirectory(destination) { throw SeedDBError(.ioFailure, "cannot rename \(source) to \(destination): Is a directory") }
        // Two names of one file (hard links): rename(2) does nothing, both names stay.
        if case .file(_, let inode, _) = node, case .file(_, let other, _)? = world.node(destination), inode == other { return }
        if case .file(.database(_, let id), _, _) = node { world.appears(at: destination, id: id) }
        world.move(source, to: destination, node)
    }

    func renameNoReplace(_ source: String, to destination: String) throws(SeedDBError) {
        try world.reading()
        if world.node(destination) != nil || world.isDirectory(destination) { throw SeedDBError(.ioFailure, "cannot rename \(source) to \(destination): File exists") }
        try rename(source, to: destination)
    }

    func link(_ existing: String, as new: String) throws(SeedDBError) {
        try world.mutating()
        guard let node = world.node(existing), world.node(new) == nil else { throw SeedDBError(.ioFailure, "cannot link \(existing) to \(new)") }
        world.move(nil, to: new, node)
    }

    func remove(_ path: String) throws(SeedDBError) {
        try world.mutating()
        // unlink(2) of a directory fails (EISDIR), and changes nothing.
        if world.isDirectory(path) { throw SeedDBError(.ioFailure, "cannot remove \(path): Is a directory") }
        world.userRemoves(path)
    }

    func replaceWithLink(_ path: String, to target: String, owner: FileOwner?) throws(SeedDBError) {
        try world.mutating()
        world.move(nil, to: path, .link(target))
    }

    func syncDirectory(_ directory: String) throws(SeedDBError) {
        try world.mutating()
    }

    func sync(_ path: String) throws(SeedDBError) {
        try world.mutating()
        guard case .file? = world.node(path) else { throw SeedDBError(.ioFailure, "cannot flush \(path): No such file or directory") }
    }

    func setMode(_ mode: UInt16?, owner: FileOwner?, of path: String) throws(SeedDBError) {
        try world.mutating()
    }

    /// (The model's stamps never repeat: every write gives a new one.)
    func backdateModificationTime(of path: String) throws(SeedDBError) {
        try world.mutating()
    }

    func writeAtomically(_ bytes: [UInt8], to path: String, permissions: FilePermissions, owner: FileOwner?) throws(SeedDBError) {
        try world.mutating()
        world.put(path, .bytes(bytes), inode: nil)
    }

    func temporaryPath(in directory: String, stem: String, kind: String) throws(SeedDBError) -> String {
        try world.reading()
        var counter = 0
        while true {
            counter += 1
            let path = directory + "/" + FileSystem.temporaryPrefix(stem) + "t\(counter).\(kind).tmp"
            if !([path] + SeedPaths.sqliteSidecars(of: path)).contains(where: { world.node($0) != nil }) { return path }
        }
    }

    func requireSafeForRoot(_ directory: String, owner: FileOwner?) throws(SeedDBError) { try world.reading() }

    func requireSafeParentForRoot(of directory: String) throws(SeedDBError) { try world.reading() }

    func requireWritableDirectory(_ directory: String, owner: FileOwner?) throws(SeedDBError) { try world.reading() }

    /// Directories are implicit in the model: one with nothing in it is already gone.
    func removeIfEmpty(_ directory: String) throws(SeedDBError) -> Bool {
        try world.reading()
        return false
    }

    func nonRootOwner(of path: String) -> FileOwner? { nil }
    func resolvingLinks(_ path: String) -> String { path }

    func keepCopy(of source: String, digest: SeedDBCore.SHA256Digest, at path: String, evenByCopy: Bool, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> Bool {
        try world.mutating()
        guard world.node(path) == nil else { throw SeedDBError(.ioFailure, "cannot create temporary file \(path): File exists") }
        guard case .database(let content, _) = try world.fileContent(source).0 else { throw SeedDBError(.ioFailure, "not a database: \(source)") }
        guard evenByCopy || world.reflinks else {
            // The empty file the clone was tried into.
            world.put(path, .bytes([]))
            created(path)
            return false
        }
        world.put(path, .database(content, id: world.newLineage()))
        created(path)
        return true
    }

    /// Names are counted over the whole model; a clone in a world with reflinks shares
    /// its extents (every copy there is one).
    func sharing(of path: String) throws(SeedDBError) -> (names: Int, sharedExtents: Bool) {
        try world.reading()
        guard case .file(.database, let inode, _)? = world.node(path) else { throw SeedDBError(.ioFailure, "cannot inspect \(path)") }
        let names = world.nodes.values.filter { if case .file(_, inode, _) = $0 { true } else { false } }.count
        return (names, world.reflinks)
    }

    var compresses: Bool { true }

    func sha256(ofDelta path: String, against reference: String) throws(SeedDBError) -> SeedDBCore.SHA256Digest? {
        try world.reading()
        guard case .delta = try world.fileContent(path).0 else { return nil }
        return SimulatedWorld.digest(.database(try restored(path, against: reference), id: 0))
    }

    func compressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) {
        try world.mutating()
        guard world.node(path) == nil else { throw SeedDBError(.ioFailure, "cannot create temporary file \(path): File exists") }
        guard case .database(let content, _) = try world.fileContent(source).0 else { throw SeedDBError(.ioFailure, "not a database: \(source)") }
        let against = SimulatedWorld.digest(try world.fileContent(reference).0)
        world.put(path, .delta(content, against: against))
        created(path)
    }

    func decompressedCopy(of source: String, against reference: String, at path: String, owner: FileOwner?, created: (String) -> Void) throws(SeedDBError) -> SeedDBCore.SHA256Digest {
        try world.mutating()
        guard world.node(path) == nil else { throw SeedDBError(.ioFailure, "cannot create temporary file \(path): File exists") }
        let content = try restored(source, against: reference)
        let id = world.newLineage()
        world.put(path, .database(content, id: id))
        created(path)
        return SimulatedWorld.digest(.database(content, id: id))
    }

    /// What the delta at `path` restores against the file at `reference`: its database,
    /// or (another reference) a database of other bytes, marked mixed.
    private func restored(_ path: String, against reference: String) throws(SeedDBError) -> SimulatedWorld.Database {
        guard case .delta(var content, let against) = try world.fileContent(path).0 else { throw SeedDBError(.ioFailure, "cannot restore \(path): not zstd data") }
        if SimulatedWorld.digest(try world.fileContent(reference).0) != against { content.mixed = true }
        return content
    }

    func linkCopy(of source: String, identity: FileIdentity, at path: String, created: (String) -> Void) throws(SeedDBError) -> Bool {
        try world.mutating()
        guard world.node(path) == nil else { throw SeedDBError(.ioFailure, "cannot link \(source) to \(path): File exists") }
        guard world.hardLinks else { return false }
        guard case .file(_, let inode, let stamp)? = world.node(source), inode == identity.inode, stamp == identity.modifiedNanoseconds,
              let node = world.node(source) else { return false }
        world.move(nil, to: path, node)
        created(path)
        return true
    }
}

extension SimulatedWorld {
    /// Moves `node` to `destination` (from `source`, if given): a rename keeps the inode.
    fileprivate func move(_ source: String?, to destination: String, _ node: Node) {
        clock += 1
        if let source { nodes[source] = nil }
        nodes[destination] = node
    }

    /// Whether `path` is a directory: one the paths of files below it imply.
    func isDirectory(_ path: String) -> Bool {
        nodes[path] == nil && nodes.keys.contains { $0.hasPrefix(path + "/") }
    }

    /// `rename(2)` of the directory `source`: everything below it moves with it.
    fileprivate func moveDirectory(_ source: String, to destination: String) {
        clock += 1
        for path in nodes.keys where path.hasPrefix(source + "/") {
            nodes[destination + path.dropFirst(source.count)] = nodes[path]
            nodes[path] = nil
        }
    }
}

/// ``DeployDatabase`` on a ``SimulatedWorld``.
struct SimulatedDatabase: DeployDatabase {
    let world: SimulatedWorld

    private final class Live: LiveReplace {}

    func inspectSeed(_ path: String, readingHeader: Bool) throws(SeedDBError) -> SeedSource.Inspection {
        try world.reading()
        guard case .database? = try? world.fileContent(path).0 else { throw SeedDBError(.seedUnavailable, "seed not found: \(path)") }
        return SeedSource.Inspection(identity: try SimulatedFileSystem(world: world).identity(of: path), header: nil, prefix: nil)
    }

    func copySeed(_ source: String, into directory: String, stem: String, policy: FilePolicy, options: SeedCopyOptions, created: (String) -> Void) throws(SeedDBError) -> SeedSource.CopyResult {
        let files = SimulatedFileSystem(world: world)
        let path = try files.temporaryPath(in: directory, stem: stem, kind: "staged")
        try world.mutating()
        guard case .database(let content, _) = try world.fileContent(source).0 else { throw SeedDBError(.invalidSeed, "not a database: \(source)") }
        world.put(path, .database(content, id: world.newLineage()))
        created(path)
        let identity = try files.identity(of: source)
        return SeedSource.CopyResult(digest: SimulatedWorld.digest(.database(content, id: 0)), size: 4096, identity: identity)
    }

    func check(_ path: String, full: Bool) -> String {
        guard case .database(let content, let id)? = try? world.fileContent(path).0 else { return "not a database" }
        return world.opened(content, id: id, at: path).mixed ? "mixed rows" : "ok"
    }

    func tableNames(of path: String) throws(SeedDBError) -> [String] {
        try world.reading()
        return ["levels"]
    }

    /// The one seed table's digest: the seed's rows and the user's edits of them.
    func tableDigests(of path: String) throws(SeedDBError) -> [String: SeedDBCore.SHA256Digest] {
        guard case .database(let content, _) = try world.fileContent(path).0 else { throw SeedDBError(.ioFailure, "cannot read \(path)") }
        try world.reading()
        return ["levels": Self.levelsDigest(content)]
    }

    /// The digest of `content`'s seed table: which seed's rows, with which edits.
    private static func levelsDigest(_ content: SimulatedWorld.Database) -> SeedDBCore.SHA256Digest {
        SimulatedWorld.digest(.database(SimulatedWorld.Database(seed: content.seed, edits: content.edits), id: 0))
    }

    func fence(_ path: String) throws(SeedDBError) -> [UInt8]? {
        guard case .database(let content, _) = try world.fileContent(path).0, !content.fenced else { return nil }
        try rewrite(path) { $0.fenced = true }
        return [1]
    }

    func restoreHeader(_ path: String, _ header: [UInt8]) throws(SeedDBError) {
        try rewrite(path) { $0.fenced = false }
    }

    func unfence(_ path: String) throws(SeedDBError) -> Bool {
        guard case .database(let content, _) = try world.fileContent(path).0, content.fenced else { return false }
        try rewrite(path) { $0.fenced = false }
        return true
    }

    func migrate(_ path: String, with migrator: DatabaseMigrator) throws(SeedDBError) {}

    func swapLooksFree(_ path: String) -> Bool { true }

    func underSwapLock(_ path: String, waiting: String, patience: Duration?, until deadline: ContinuousClock.Instant, logger: Logger, _ body: (WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError) {
        try world.reading()
        guard case .database(_, let id)? = try? world.fileContent(path).0 else { return try body(nil) }
        world.writerLocked = path
        defer { world.writerLocked = nil }
        // SQLite leaves WAL (its frames checkpointed into the file first) and rolls a hot
        // journal back: the file's own sidecars go.
        for suffix in SeedPaths.sqliteSidecarSuffixes {
            guard case .file(.sidecar(let owner), _, _)? = world.node(path + suffix), owner == id else { continue }
            if suffix == "-wal", case .database(var content, _) = try world.fileContent(path).0, content.framesInWAL {
                try world.mutating()
                content.framesInWAL = false
                world.put(path, .database(content, id: id))
            }
            try world.mutating()
            world.userRemoves(path + suffix)
        }
        try body(path)
    }

    func replaceLive(_ path: String, staged: String, waiting: String, until deadline: ContinuousClock.Instant, progress: (@Sendable (Int64, Int64) -> Void)?, isInterrupted: CopyEngine.Interruption, _ body: (any LiveReplace, WriterLock.OldCopy) throws(SeedDBError) -> Void) throws(SeedDBError) {
        try world.reading()
        world.liveStaged = staged
        world.writerLocked = path
        defer { (world.liveStaged, world.writerLocked) = (nil, nil) }
        try body(Live(), path)
        // The backup's commit: the working copy's file now holds the staged content.
        guard case .database(let content, _) = try world.fileContent(staged).0,
              case .database(_, let id) = try world.fileContent(path).0 else { throw SeedDBError(.ioFailure, "cannot replace \(path)") }
        try world.mutating()
        world.put(path, .database(content, id: id))
    }

    func carry(into target: CarryTarget, from uri: String, _ carry: CarryRequest, logger: Logger) throws(SeedDBError) -> CarryResult {
        // The executor names the previous generation as SQLite opens it (a `file:` URI).
        let old = uri.hasPrefix("file:") ? String(uri.dropFirst(5).prefix { $0 != "?" }).removingPercentEncoding ?? uri : uri
        guard case .database(var previous, let id) = try world.fileContent(old).0 else { throw SeedDBError(.ioFailure, "cannot read \(old)") }
        previous = world.opened(previous, id: id, at: old)
        // A merge without a base keeps every cell of the old copy that differs from the new
        // seed (the old seed's own values among them): a bug when the record vouched for
        // the `<name>.base` on disk (its digest) and it held the old copy's own seed.
        // (From the previous generation, the copy a switch to a read-only seed kept: its own
        // base, `.previous.base` or what its compressed difference restores.)
        let fromPrevious = old == carry.workingCopy + ".previous"
        let basePath = carry.workingCopy + (fromPrevious ? ".previous.base" : ".base")
        if carry.merge.mergesAnything, carry.base == nil, let settings = world.settingsFile,
           case .file(.bytes(let bytes), _, _)? = world.node(settings), let entry = world.parsed(bytes).entries[SimulatedWorld.name(of: carry.workingCopy)],
           let recorded = fromPrevious ? entry.previous?.base : entry.base {
            if case .file(let content, _, _)? = world.node(basePath), case .database(let base, _) = content,
               recorded == SimulatedWorld.digest(content), base.seed == previous.seed {
                world.violate("merged \(SimulatedWorld.name(of: carry.workingCopy)) without its base, though \(SimulatedWorld.name(of: basePath)) held seed \(base.seed)")
            }
            // A live replace killed after its commit, in its record step: its new base took
            // `<name>.base` (the digest its marker names) and the copy holds that seed's
            // content merged; its redo merging without a base takes the user's deletions back.
            if !fromPrevious, let staged = entry.interrupted?.base, case .file(let content, _, _)? = world.node(basePath),
               case .database(let base, _) = content, staged == SimulatedWorld.digest(content), base.seed == previous.seed {
                world.violate("merged \(SimulatedWorld.name(of: carry.workingCopy)) without a base, though \(SimulatedWorld.name(of: basePath)) held the killed run's new base of seed \(base.seed)")
            }
            if fromPrevious, world.node(basePath + ".xor.zst") != nil,
               (try? SimulatedFileSystem(world: world).sha256(ofDelta: basePath + ".xor.zst", against: old)) == recorded {
                world.violate("merged \(SimulatedWorld.name(of: carry.workingCopy)) without its base, though \(SimulatedWorld.name(of: basePath)).xor.zst restores it")
            }
        }
        if carry.merge.mergesAnything { world.merges += 1 }
        let staged: String
        switch target {
        case .staged(let path): staged = path
        case .live: staged = world.liveStaged ?? ""
        }
        // A base of another seed would take that seed's cells for the user's, over the new
        // seed's (not when the copy holds the new seed's content already: a killed live
        // replace's redo, on the content it committed).
        let newSeed: String? = if case .database(let content, _)? = (try? world.fileContent(staged))?.0 { content.seed } else { nil }
        if carry.merge.mergesAnything, let base = carry.base, case .database(let content, _)? = (try? world.fileContent(base))?.0,
           content.seed != previous.seed, previous.seed != newSeed {
            world.violate("merged \(SimulatedWorld.name(of: old)) (seed \(previous.seed)) against a base of seed \(content.seed)")
        }
        try rewrite(staged) { content in
            content.userRows.formUnion(previous.userRows)
            if carry.merge.mergesAnything { content.edits.formUnion(previous.edits) }
            content.mixed = content.mixed || previous.mixed
        }
        // Something of the user's came across: the new content is not the seed's own.
        let carriedSomething = !previous.userRows.isEmpty || (carry.merge.mergesAnything && !previous.edits.isEmpty)
        // The seed table's edits, replaced without a merge, are named: a record of a seed that
        // keeps no base keeps its tables' digests, one that keeps a base has it.
        // Not for a database whose seed SeedDB does not know (one it adopts is kept whole as
        // the previous generation; one restored from an adopted copy has nothing to compare
        // with), one whose recorded base is gone (the run warns it cannot tell), nor one a
        // rollback restored without a base (what it held is the previous run's record).
        var recordedNothing = false
        if let settings = world.settingsFile, case .file(.bytes(let bytes), _, _)? = world.node(settings),
           let entry = world.parsed(bytes).entries[SimulatedWorld.name(of: carry.workingCopy)], let marker = entry.interrupted {
            if fromPrevious {
                // The previous generation's own record (the marker's is the link's).
                if let kept = entry.previous, kept.version != DeployRecord.adoptedVersion {
                    recordedNothing = kept.base == nil && kept.tableDigests == nil
                }
            } else if let replaced = marker.replacing, !marker.adopting, replaced.version != DeployRecord.adoptedVersion {
                recordedNothing = entry.base == nil && replaced.tableDigests == nil && entry.heldFrom == nil
            }
        }
        if !carry.merge.mergesAnything, !previous.edits.isEmpty, recordedNothing, carry.discards == nil {
            world.violate("replaced the user's edits of \(SimulatedWorld.name(of: carry.workingCopy)) (seed \(previous.seed)) with no base or table digests to name them by")
        }
        var discarded: [String]?
        // The seed table no merge can merge (`tags`) changed: compared as any other table
        // when merging is off.
        let tags = previous.unmergeable.isEmpty ? [] : ["tags"]
        switch carry.discards {
        case .againstBase(let base):
            guard case .database(let baseContent, _) = try world.fileContent(base).0 else { throw SeedDBError(.ioFailure, "cannot read \(base)") }
            discarded = !carry.merge.mergesAnything ? (Self.levelsDigest(baseContent) != Self.levelsDigest(previous) ? ["levels"] : []) + tags : []
        case .againstDigests(let digests):
            discarded = !carry.merge.mergesAnything ? (digests["levels"] != Self.levelsDigest(previous) ? ["levels"] : []) + tags : []
        case nil:
            discarded = nil
        }
        // A merge leaves it the new seed's, and names it as the real merge does: when the
        // base, or without one the table digests, tell that the user changed it (here, when
        // the user wrote it; the model's digests cover `levels` only).
        if carry.merge.mergesAnything, !tags.isEmpty { discarded = (discarded ?? []) + tags }
        return CarryResult(carried: carriedSomething ? ["probe"] : [], merge: nil, discarded: discarded)
    }

    func snapshot(_ live: any LiveReplace, of old: String, to path: String) throws(SeedDBError) {
        guard case .database(let content, let oldID) = try world.fileContent(old).0 else { throw SeedDBError(.ioFailure, "cannot read \(old)") }
        try world.mutating()
        let id = world.newLineage()
        world.appears(at: path, id: id)
        // `VACUUM INTO` reads through SQLite: the old copy's `-wal` frames are in the snapshot.
        world.put(path, .database(world.opened(content, id: oldID, at: old), id: id))
    }

    /// Changes the database at `path` in one mutating call.
    private func rewrite(_ path: String, _ change: (inout SimulatedWorld.Database) -> Void) throws(SeedDBError) {
        guard case .database(var content, let id) = try world.fileContent(path).0 else { throw SeedDBError(.ioFailure, "not a database: \(path)") }
        try world.mutating()
        change(&content)
        world.put(path, .database(content, id: id))
    }
}


/// ``DeployRecordStore`` on a ``SimulatedWorld``: the settings file's bytes as a file of
/// the world, parsed and written by SeedDB's own JSON.
struct SimulatedRecords: DeployRecordStore {
    let world: SimulatedWorld
    let path: String

    private func bytes() throws(SeedDBError) -> [UInt8]? {
        try world.reading()
        guard case .file(.bytes(let bytes), _, _)? = world.node(path) else { return nil }
        return bytes
    }

    func snapshot() throws(SeedDBError) -> SettingsSnapshot {
        try bytes().map(world.parsed) ?? SettingsSnapshot()
    }

    /// The whole file parsed (the model keeps one entry: the same as `only:` decodes).
    func snapshot(only name: SeedName) throws(SeedDBError) -> SettingsSnapshot {
        try snapshot()
    }

    func update(timeout: Duration, _ change: (inout SettingsTable) throws -> Void) throws(SeedDBError) {
        let current = try snapshot()
        var table = SettingsTable(current.entries)
        do {
            try change(&table)
        } catch {
            throw SeedDBError.io(error, "cannot update settings", path)
        }
        if let refusal = table.lookalikeError { throw refusal }
        try world.mutating()
        world.put(path, .bytes(current.bytes(with: table.entries)))
    }

    func backup() throws(SeedDBError) -> SettingsStore.Backup {
        SettingsStore.Backup(bytes: try bytes(), lockExisted: true, directoryExisted: true, setAside: [])
    }

    func restore(_ backup: SettingsStore.Backup, timeout: Duration) throws(SeedDBError) {
        guard try bytes() != backup.bytes else { return }
        try world.mutating()
        if let bytes = backup.bytes { world.put(path, .bytes(bytes)) } else { world.userRemoves(path) }
    }

    /// The simulated settings file is written whole: no temporary file is ever left.
    func removeStaleTemporaryFiles(timeout: Duration) throws(SeedDBError) -> [String] {
        try world.reading()
        return []
    }

    func removeIfEmpty() throws(SeedDBError) -> [String] {
        let snapshot = try snapshot()
        guard try bytes() != nil, snapshot.entries.isEmpty, snapshot.problem == nil, snapshot.appValues.isEmpty else { return [] }
        try world.mutating()
        world.userRemoves(path)
        return [path]
    }
}

/// ``DeployLocks`` on a ``SimulatedWorld``: one process at a time, no handle open.
struct SimulatedLocks: DeployLocks {
    let world: SimulatedWorld

    private struct Lock: DeployLock {
        func handleOpenElsewhere() throws(SeedDBError) -> Bool { false }
        func waitUntilNoHandle(until deadline: ContinuousClock.Instant, error: () -> SeedDBError) throws(SeedDBError) {}
    }

    func withDeployLock<Result>(_ paths: SeedPaths, files: FilePolicy, wait: Duration, _ body: (any DeployLock) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        try world.reading()
        let created = world.node(paths.lockFile) == nil
        if created {
            try world.mutating()
            world.userWrites(paths.lockFile, bytes: [])
        }
        do throws(SeedDBError) {
            return try body(Lock())
        } catch {
            // A failed run leaves no lock file it made (unless it was stopped).
            if created, !world.crashed { world.userRemoves(paths.lockFile) }
            throw error
        }
    }
}
