import SeedDBCore
import SystemPackage

/// A working copy as found on disk.
///
/// New installs make the working copy a symbolic link to a *generation file* in the same
/// directory (`levels.sqlite` → `levels.sqlite.v7`), switched atomically by each swap.
/// SQLite resolves the link when it opens the database, so every generation has its own
/// `-wal`, `-shm` and `-journal`. SeedDB trusts only links it made itself: a relative
/// target that is one of this working copy's generation names and a regular file. A
/// working copy from an install made before generations is a regular file, replaced by a
/// link at its next swap. A read-only seed's working copy is a link straight to the seed
/// file, an absolute path: SeedDB's own when it is the seed the record names or the one
/// being deployed read-only.
struct WorkingCopy {
    /// What is at the working-copy path.
    enum State: Equatable {
        /// Nothing.
        case absent
        /// A regular file (an install made before generations, or a database put there).
        case file
        /// SeedDB's link to generation file number `n`, which exists.
        case generation(Int)
        /// SeedDB's link straight to a read-only seed file (its absolute path).
        case seedLink(String)
        /// Something SeedDB did not make, or its link to a file that is gone: never
        /// followed, replaced or removed.
        case foreign(String)

        /// The generation file SeedDB's link points at, if that is what is there.
        var generationNumber: Int? {
            if case .generation(let number) = self { return number }
            return nil
        }
    }

    /// The working copy's paths.
    let paths: SeedPaths
    /// The file system it was found on.
    let files: any DeployFileSystem
    /// What is there.
    let state: State
    /// Whether the working copy's link is missing and ``state`` is the recorded generation
    /// file found without it.
    var linkMissing = false
    /// The entries of the working copy's directory, read once when the working copy was
    /// inspected: its generation files, their sidecars, a killed run's leftovers
    /// (``listing()``).
    let entries: [DirectoryEntry]

    /// Looks at the working-copy path without following anything but SeedDB's own link:
    /// one open of its directory, a `readlinkat` of the working copy in it and one read of
    /// its entries, which show the generation file the link names and every other file of
    /// the working copy's (``listing()``).
    /// - Parameter seedLinks: The absolute seed paths a link of SeedDB's may name (the
    ///   read-only seed the record names, the one being deployed read-only).
    static func inspect(_ paths: SeedPaths, seedLinks: [String] = [], files: any DeployFileSystem = LocalFileSystem()) throws(SeedDBError) -> WorkingCopy {
        // A link made between the two reads (a first deploy over an adopted file): look
        // again, up to three times.
        for look in 1... {
            let (target, entries) = try files.linkTargetAndEntries(of: paths.directory, link: paths.name.rawValue)
            let state = try state(at: paths, linkTarget: target, entries: entries, seedLinks: seedLinks, files: files)
            if state != nil || look == 3 {
                let changing = State.foreign("a file that kept changing between a symbolic link and a regular file while SeedDB looked at it")
                return WorkingCopy(paths: paths, files: files, state: state ?? changing, entries: entries)
            }
        }
        preconditionFailure("an unbounded range ends")
    }

    /// Looks at the working-copy path; when nothing is there but the generation file the
    /// record names is, that file is the working copy whose link was removed.
    static func inspect(_ paths: SeedPaths, recordedGeneration: String?, seedLinks: [String] = [], files: any DeployFileSystem = LocalFileSystem()) throws(SeedDBError) -> WorkingCopy {
        let found = try inspect(paths, seedLinks: seedLinks, files: files)
        guard found.state == .absent, let recordedGeneration, let number = paths.generationNumber(of: recordedGeneration),
              try type(of: recordedGeneration, in: found.entries, paths: paths, files: files) == .regular
        else { return found }
        return WorkingCopy(paths: paths, files: files, state: .generation(number), linkMissing: true, entries: found.entries)
    }

    /// What is at the working-copy path, from its link's target (`nil`: not a link) and its
    /// directory's `entries`; `nil` when the two disagree (a link made between them).
    private static func state(
        at paths: SeedPaths, linkTarget target: String?, entries: [DirectoryEntry], seedLinks: [String], files: any DeployFileSystem
    ) throws(SeedDBError) -> State? {
        if let target {
            if target.hasPrefix("/"), seedLinks.contains(where: target.hasSameBytes) { return .seedLink(target) }
            guard let number = paths.generationNumber(of: target) else {
                return .foreign("a symbolic link SeedDB did not make (to \(NameRules.quoted(target, limit: 80)))")
            }
            switch try type(of: target, in: entries, paths: paths, files: files) {
            case nil: return .foreign("a symbolic link to \(NameRules.quoted(target, limit: 80)), which does not exist")
            case .regular: return .generation(number)
            default: return .foreign("a symbolic link to \(NameRules.quoted(target, limit: 80)), which is not a regular file")
            }
        }
        switch try type(of: paths.name.rawValue, in: entries, paths: paths, files: files) {
        case nil: return .absent
        case .regular: return .file
        case .symbolicLink: return nil
        case let other?: return .foreign(kind(of: other))
        }
    }

    /// A file of `type` that SeedDB did not make, in words (`a directory`).
    private static func kind(of type: FileType) -> String {
        switch type {
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .symbolicLink: return "a symbolic link"
        default: return "a device or special file"
        }
    }

    /// Whether a directory is at the conflicts file's path (`<name>.conflicts.json`), from
    /// the read of the directory when the working copy was inspected. A merge writes its
    /// conflicts there and sets aside what it replaces, removed once the run succeeded: a
    /// directory (the user's, never SeedDB's) would stay at a temporary name no run
    /// removes. A link or any other file there is set aside and removed as a stale
    /// conflicts file is.
    func conflictsFileIsADirectory() throws(SeedDBError) -> Bool {
        try Self.type(of: paths.conflictsFileName, in: entries, paths: paths, files: files) == .directory
    }

    /// Whether a database is there.
    var exists: Bool {
        switch state {
        case .file, .generation, .seedLink: return true
        case .absent, .foreign: return false
        }
    }

    /// The seed file SeedDB's link names, when the working copy is a read-only seed's link.
    var seedLinkTarget: String? {
        if case .seedLink(let target) = state { return target }
        return nil
    }

    /// What the planner sees of it.
    var observed: DeployObservation.WorkingCopy {
        switch state {
        case .absent: return .absent
        case .file: return .file
        case .generation(let number): return .generation(number)
        case .seedLink(let target): return .seedLink(target)
        case .foreign(let what): return .blocked(what)
        }
    }

    /// The file that holds the content: the working copy itself, or its generation file.
    /// `nil` for a read-only seed's link: the seed file is the package's, never locked,
    /// written, chowned or chmodded by SeedDB (``readableFile`` names it for reading).
    var contentFile: String? {
        switch state {
        case .file: return paths.workingCopy
        case .generation(let number): return paths.inDirectory(paths.generationName(number))
        case .absent, .foreign, .seedLink: return nil
        }
    }

    /// The file an app reads through the working copy: ``contentFile``, or the seed file
    /// a read-only seed's link names.
    var readableFile: String? {
        contentFile ?? seedLinkTarget
    }

    /// The error a run that finds something SeedDB did not make at the working-copy path
    /// fails with: what is there and what to do. Nothing is changed.
    static func blocked(_ workingCopy: String, what: String, operation: String = "deploy to") -> SeedDBError {
        SeedDBError(.cannotCreate, "cannot \(operation) \(workingCopy): it is \(what), not a regular file or SeedDB's link, and SeedDB never replaces it; nothing was changed; move it away (or put back SeedDB's link to its generation file) and run again")
    }

    /// What one read of the working copy's directory shows of SeedDB's files.
    struct Listing {
        /// Every name in the directory.
        var names: [String] = []
        /// The generation files, by number.
        var generations: [Int]
        /// The generation numbers that have a `-wal`, `-shm` or `-journal` beside them
        /// (whether or not their database file is there).
        var sidecarGenerations: [Int]
        /// The generation numbers staged merge bases are named after
        /// (`.<name>.seeddb-<name>.v<N>.base.tmp`, a killed run's).
        var stagedBases: [Int]
        /// The stamps of the adopted copies (`<name>.adopted-<stamp>`).
        var adoptedCopies: [String]
        /// The stamps SQLite sidecars are named after (`<name>.adopted-<stamp>-wal`,
        /// `-shm`, `-journal`), whether or not their adopted copy is there.
        var adoptedSidecarStamps: [String] = []
        /// The paths of SQLite sidecars named after the previous generation
        /// (`<name>.previous-wal`, `-shm`, `-journal`), whether or not it is there.
        var previousSidecars: [String] = []
        /// The temporary files of SeedDB's naming a killed run left (with their journals)
        /// that may go: all but a second name that is a working copy's only one.
        var removableTemporaries: [String] = []
        /// The temporary files that are a killed run's second name of a regular-file
        /// working copy, now the only name of its content (``DeployObservation/heldCopies``).
        var heldCopies: [String] = []

        /// Whether temporary files of SeedDB's naming are there to remove.
        var temporaries: Bool { !removableTemporaries.isEmpty }
    }

    /// The type of the file `name` (matched by its bytes) in the working copy's directory,
    /// as `entries` give it (an `lstat` where the file system's entry does not say); `nil`
    /// when it is not there.
    private static func type(
        of name: String, in entries: [DirectoryEntry], paths: SeedPaths, files: any DeployFileSystem
    ) throws(SeedDBError) -> FileType? {
        guard let entry = entries.first(where: { $0.nameIsExact && $0.name.hasSameBytes(as: name) }) else { return nil }
        if let type = entry.type { return type }
        return try files.fileType(at: paths.inDirectory(name))
    }

    /// SeedDB's files beside the working copy, from the read of its directory when it was
    /// inspected. Names are matched by their bytes: a file whose name only looks like one
    /// of this working copy's (`e` + U+0301 for `é`) is another's.
    ///
    /// Every name SeedDB gives a temporary file starts with a dot (``FileSystem/temporaryPrefix(_:)``):
    /// the names that do not are not looked at for one, and with none of them (the usual
    /// directory) no prefix is built.
    func listing() -> Listing {
        let names = entries.filter(\.nameIsExact).map(\.name)
        var generations: [Int] = [], sidecars: Set<Int> = [], stagedBases: [Int] = [], adoptedCopies: [String] = [], adoptedSidecars: Set<String> = []
        var hidden: [String] = [], sidecarNames: [String] = []
        for name in names {
            if name.utf8.first == UInt8(ascii: ".") { hidden.append(name) }
            let database = SeedPaths.databaseName(of: name)
            let isSidecar = database.utf8.count != name.utf8.count
            if isSidecar { sidecarNames.append(name) }
            if let number = paths.generationNumber(of: database) {
                if isSidecar { sidecars.insert(number) } else { generations.append(number) }
            } else if let stamp = paths.adoptedCopyStamp(of: database) {
                if isSidecar { adoptedSidecars.insert(stamp) } else { adoptedCopies.append(stamp) }
            }
        }
        if !hidden.isEmpty {
            let basePrefix = FileSystem.temporaryPrefix(paths.name.rawValue)
            for name in hidden {
                if let number = name.removingBytePrefix(basePrefix)?.removingByteSuffix(".base.tmp").flatMap(paths.generationNumber(of:)) {
                    stagedBases.append(number)
                }
            }
        }
        let temporaries = hidden.isEmpty ? [] : FileSystem.staleTemporaryFiles(
            in: paths.directory, listing: hidden, stems: [paths.name.rawValue, paths.conflictsFileName])
        // (Matched by file name among the sidecars listed: no name or path is built when
        // there are none, the usual directory.)
        let previousSidecars = sidecarNames.isEmpty ? [] : SeedPaths.sqliteSidecarSuffixes.filter { suffix in
            let sidecar = paths.name.rawValue + ".previous" + suffix
            return sidecarNames.contains { $0.hasSameBytes(as: sidecar) }
        }.map { paths.previousGeneration + $0 }
        return Listing(
            names: names, generations: generations.sorted(), sidecarGenerations: sidecars.sorted(), stagedBases: stagedBases.sorted(),
            adoptedCopies: adoptedCopies.sorted(), adoptedSidecarStamps: adoptedSidecars.sorted(), previousSidecars: previousSidecars, removableTemporaries: temporaries.filter { !holdsOnlyCopy($0) },
            heldCopies: temporaries.filter(holdsOnlyCopy))
    }

    /// What SeedDB may remove beside the working copy, from `listing` (one read of the
    /// directory): its temporary files (with their journals), and the generation files
    /// (with their sidecars) the observation proved disposable. Never the linked or
    /// recorded generation, the previous generation, a base, or a generation file that
    /// may hold what the user wrote.
    func leftovers(disposable generations: [Int], in listing: Listing) -> [String] {
        let disposable = Set(generations)
        let stray = listing.names.filter { name in
            paths.generationNumber(of: SeedPaths.databaseName(of: name)).map(disposable.contains) ?? false
        }.map(paths.inDirectory)
        return listing.removableTemporaries + stray
    }

    /// Whether `path` is a killed run's second name of a working copy that was a regular
    /// file (`.old.tmp`) and is now its only name: never removed, kept as an adopted copy.
    private func holdsOnlyCopy(_ path: String) -> Bool {
        guard path.hasByteSuffix(".old.tmp") else { return false }
        guard state == .file, let held = try? files.identity(of: path),
              let current = try? files.identity(of: paths.workingCopy)
        else { return true }
        return !held.sameFile(as: current)
    }
}
