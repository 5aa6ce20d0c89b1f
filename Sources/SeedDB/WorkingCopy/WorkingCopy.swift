import SeedDBCore

/// A working copy as found on disk.
///
/// New installs make the working copy a symbolic link to a *generation file* in the same
/// directory (`levels.sqlite` → `levels.sqlite.v7`), switched atomically by each swap.
/// SQLite resolves the link when it opens the database, so every generation has its own
/// `-wal`, `-shm` and `-journal`. SeedDB trusts only links it made itself: a relative
/// target that is one of this working copy's generation names and a regular file. A
/// working copy from an install made before generations is a regular file, replaced by a
/// link at its next swap.
struct WorkingCopy {
    /// What is at the working-copy path.
    enum State: Equatable {
        /// Nothing, or SeedDB's link to a generation file that is gone.
        case absent
        /// A regular file (an install made before generations existed).
        case file
        /// SeedDB's link to generation file number `n`.
        case generation(Int)
        /// Something SeedDB did not make: never followed, replaced or removed.
        case foreign(String)
    }

    /// The working copy's paths.
    let paths: SeedPaths
    /// What is there.
    let state: State

    /// Looks at the working-copy path without following anything but SeedDB's own link.
    static func inspect(_ paths: SeedPaths) throws(SeedDBError) -> WorkingCopy {
        WorkingCopy(paths: paths, state: try state(at: paths))
    }

    private static func state(at paths: SeedPaths) throws(SeedDBError) -> State {
        switch try FileSystem.fileType(at: paths.workingCopy) {
        case nil: return .absent
        case .regular: return .file
        case .symbolicLink:
            let target = try FileSystem.linkTarget(of: paths.workingCopy)
            guard let number = paths.generationNumber(of: target) else {
                return .foreign("a symbolic link SeedDB did not make (to \(NameRules.quoted(target, limit: 80)))")
            }
            switch try FileSystem.fileType(at: paths.inDirectory(target)) {
            case nil: return .absent
            case .regular: return .generation(number)
            default: return .foreign("a symbolic link to \(NameRules.quoted(target, limit: 80)), which is not a regular file")
            }
        case .directory: return .foreign("a directory")
        case .fifo: return .foreign("a FIFO")
        case .socket: return .foreign("a socket")
        default: return .foreign("a device or special file")
        }
    }

    /// Whether a database is there.
    var exists: Bool {
        switch state {
        case .file, .generation: return true
        case .absent, .foreign: return false
        }
    }

    /// The file that holds the content: the working copy itself, or its generation file.
    var contentFile: String? {
        switch state {
        case .file: return paths.workingCopy
        case .generation(let number): return paths.inDirectory(paths.generationName(number))
        case .absent, .foreign: return nil
        }
    }

    /// Refuses to replace something SeedDB did not make.
    func requireReplaceable() throws(SeedDBError) {
        guard case .foreign(let what) = state else { return }
        throw SeedDBError(.cannotCreate, "cannot replace working copy \(paths.workingCopy): it is \(what), not a regular file; remove it and deploy again")
    }

    /// Whether an open ``SeedDatabase`` uses the working copy (the readers byte of
    /// `lock`), seen without touching the database. Other connections are seen only by
    /// trying (``WriterLock/forSwap(_:waiting:patience:until:logger:_:)``).
    func usage(lock: FileLock) throws(SeedDBError) -> DeployObservation.Usage {
        DeployObservation.Usage(handleOpen: try lock.isHeldElsewhere(.readers))
    }

    /// The number the next generation file gets: one more than any generation file in
    /// the directory and than the last one recorded, so a name is not reused.
    func nextGeneration(recorded: String?) -> Int {
        let existing = FileSystem.entries(of: paths.directory).compactMap(paths.generationNumber(of:))
        var highest = max(existing.max() ?? 0, recorded.flatMap(paths.generationNumber(of:)) ?? 0)
        if case .generation(let current) = state { highest = max(highest, current) }
        return highest + 1
    }

    /// What killed runs left beside the working copy: temporary files and generation
    /// files the link does not point at. One directory read.
    func leftovers() -> [String] {
        FileSystem.staleTemporaryFiles(in: paths.directory, stem: paths.name.rawValue) + strayGenerationFiles()
    }

    /// Generation files (with their sidecars) that the link does not point at: what a
    /// crashed run left. Only for runs holding the deploy lock.
    func strayGenerationFiles() -> [String] {
        let current: String? = if case .generation(let number) = state { paths.generationName(number) } else { nil }
        return FileSystem.entries(of: paths.directory).filter { entry in
            let base = SeedPaths.sqliteSidecarSuffixes.reduce(entry) { name, suffix in
                name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
            }
            return paths.generationNumber(of: base) != nil && base != current
        }.map(paths.inDirectory)
    }
}
