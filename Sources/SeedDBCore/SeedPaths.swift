/// Every path SeedDB touches for one working copy, derived from the app, the working
/// copy's name, its location and the XDG directories.
///
/// The working copy is a symbolic link SeedDB made to the current *generation file*
/// (`levels.sqlite` → `levels.sqlite.v7`), or a regular file from an install made before
/// generations existed. SQLite resolves the link when it opens the database, so each
/// generation has its own `-wal`, `-shm` and `-journal`: a client still holding an old
/// generation never meets the new one's sidecars.
public struct SeedPaths: Hashable, Sendable {
    /// The directory holding the working copy and its sidecars (`<base>/<app>`).
    public var directory: String
    /// The working copy's file name.
    public var name: SeedName
    /// The working copy (`<base>/<app>/<name>`).
    public var workingCopy: String
    /// The directory holding the settings store (`$XDG_CONFIG_HOME/<app>`).
    public var settingsDirectory: String
    /// The settings store (`$XDG_CONFIG_HOME/<app>/settings.json`).
    public var settingsFile: String

    /// The suffixes of the files SQLite keeps beside a database.
    public static let sqliteSidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// Derives the paths of working copy `name` of `app` in `location` under `directories`.
    public init(app: AppIdentifier, name: SeedName, location: SeedLocation, directories: XDGDirectories) {
        directory = PathText.joined(directories.base(for: location), app.rawValue)
        self.name = name
        workingCopy = PathText.joined(directory, name.rawValue)
        settingsDirectory = directories.settingsDirectory(of: app)
        settingsFile = PathText.joined(settingsDirectory, XDGDirectories.settingsFileName)
    }

    /// Derives the paths of `seed` under `directories`.
    public init(seed: Seed, directories: XDGDirectories) {
        self.init(app: seed.app, name: seed.name, location: seed.location, directories: directories)
    }

    /// Whether a SQLite sidecar with `suffix` holding `size` bytes has content SQLite would
    /// replay (or roll back) into the database of its name: a `-wal` past its 32-byte
    /// header, a `-journal` with any byte. A `-shm` holds none.
    public static func sidecarHoldsContent(suffix: String, size: Int64) -> Bool {
        switch suffix {
        case "-wal": size > 32
        case "-journal": size > 0
        default: false
        }
    }

    /// SQLite's `-wal`, `-shm` and `-journal` files of the database at `path`.
    public static func sqliteSidecars(of path: String) -> [String] {
        sqliteSidecarSuffixes.map { path + $0 }
    }

    /// The name of the database a file name belongs to: a SQLite sidecar's
    /// (`levels.sqlite.v2-wal` → `levels.sqlite.v2`), or the name itself. The suffixes
    /// are matched by bytes.
    public static func databaseName(of fileName: String) -> String {
        // Every suffix ends in `l` or `m`: any other name is its own (most names listed).
        guard let last = fileName.utf8.last, last == UInt8(ascii: "l") || last == UInt8(ascii: "m") else { return fileName }
        var name = fileName
        for suffix in sqliteSidecarSuffixes {
            if let database = name.removingByteSuffix(suffix) { name = database }
        }
        return name
    }

    /// SQLite's sidecars of a working copy that is a regular file.
    public var sqliteSidecars: [String] { Self.sqliteSidecars(of: workingCopy) }

    /// The lock file that serialises deploys of this working copy, and whose second byte
    /// open `SeedDatabase` handles hold.
    public var lockFile: String { workingCopy + ".lock" }

    /// The previous generation kept for `rollback`.
    public var previousGeneration: String { workingCopy + ".previous" }

    /// The pristine copy of the seed last deployed: the common ancestor of a three-way merge.
    public var base: String { workingCopy + ".base" }

    /// The merge base that goes with the previous generation.
    public var previousBase: String { workingCopy + ".previous.base" }

    /// The merge base that goes with the previous generation, kept as its compressed
    /// difference from the previous generation (zstd over the two files' bytes XORed):
    /// kept so where `<name>.base` shares its bytes with no other file (no reflink, no
    /// second name), restored to `<name>.previous.base` by a rollback before the previous
    /// generation comes back.
    public var previousBaseCompressed: String { previousBase + ".xor.zst" }

    /// A database SeedDB adopted and could not account for, kept under the stamp of the
    /// run that would otherwise have dropped it (`<name>.adopted-20261126T071500Z`).
    public func adoptedCopy(_ stamp: String) -> String { workingCopy + ".adopted-" + stamp }

    /// The stamp of the adopted copy `fileName` names, if it names one of this working
    /// copy's: exactly a name a run gives one, a basic-format UTC timestamp with, for a
    /// second copy in the same second, a counter from 2 (`…Z-2`). Any other name after
    /// `.adopted-` (`levels.sqlite.adopted-mine`, `….adopted-20261126T071500Z.bak`, a
    /// sidecar) is a file of someone else's, never listed, kept or removed as SeedDB's.
    /// Names are matched by their bytes, as the file system tells them apart
    /// (`String.hasBytePrefix(_:)`).
    public func adoptedCopyStamp(of fileName: String) -> String? {
        bytes(of: fileName, after: ".adopted-") { stamp in
            Self.isAdoptedCopyStamp(stamp) ? String(decoding: stamp, as: UTF8.self) : nil
        }
    }

    /// Whether `stamp` is one a run gives an adopted copy: a basic-format UTC timestamp,
    /// with a counter from 2 for a second copy in the same second (`…Z-2`).
    static func isAdoptedCopyStamp(_ stamp: some BidirectionalCollection<UInt8>) -> Bool {
        guard let zone = stamp.firstIndex(of: UInt8(ascii: "Z")) else { return false }
        let counter = stamp[stamp.index(after: zone)...]
        return UTCTimestamp.hasBasicShape(stamp[...zone]) && (counter.isEmpty || counter.droppingPrefix("-".utf8).map(isCopyCounter) == true)
    }

    /// Whether `digits` are a counter a run appends to a stamp already taken: 2 or more,
    /// in decimal, without leading zeros.
    private static func isCopyCounter(_ digits: some Collection<UInt8>) -> Bool {
        guard let first = digits.first, first != UInt8(ascii: "0"), digits.count <= 18, digits.allSatisfy(\.isASCIIDigit) else { return false }
        return digits.count > 1 || first != UInt8(ascii: "1")
    }

    /// The conflicts of the last merge attempt, for `seeddb conflicts`.
    public var conflictsFile: String { directory + "/" + conflictsFileName }

    /// The conflicts file's name (`<name>.conflicts.json`).
    public var conflictsFileName: String { name.rawValue + ".conflicts.json" }

    /// The largest generation number a generation file's name carries (18 digits, which
    /// an `Int` always holds): ``generationNumber(of:)`` reads no longer one.
    public static let largestGeneration = 999_999_999_999_999_999

    /// The file name of generation `number` (`levels.sqlite.v7`).
    public func generationName(_ number: Int) -> String { name.rawValue + ".v\(number)" }

    /// The generation number `fileName` names, if it names one of this working copy's
    /// generation files (matched by bytes, as ``adoptedCopyStamp(of:)``).
    public func generationNumber(of fileName: String) -> Int? {
        bytes(of: fileName, after: ".v") { digits in
            guard (1...18).contains(digits.count), digits.first != UInt8(ascii: "0") else { return nil }
            var number = 0
            for digit in digits {
                guard digit.isASCIIDigit else { return nil }
                number = number * 10 + Int(digit - UInt8(ascii: "0"))
            }
            return number
        }
    }

    /// What `read` makes of the bytes of `fileName` after those of this working copy's
    /// name and then `infix`; `nil` when it does not start with them. The names are
    /// compared as buffers, in one piece (the startup check's directory read asks this of
    /// every name listed).
    private func bytes<Result>(
        of fileName: String, after infix: StaticString, _ read: (UnsafeBufferPointer<UInt8>) -> Result?
    ) -> Result? {
        var (fileName, stem) = (fileName, name.rawValue)
        return fileName.withUTF8 { bytes in
            stem.withUTF8 { stem in
                let infix = UnsafeBufferPointer(start: infix.utf8Start, count: infix.utf8CodeUnitCount)
                let restStart = stem.count + infix.count
                guard bytes.hasBytes(stem), bytes.hasBytes(infix, at: stem.count) else { return nil }
                return read(UnsafeBufferPointer(rebasing: bytes[restStart...]))
            }
        }
    }

    /// Whether `fileName` is one of this working copy's own databases, by its bytes: the
    /// working copy, a generation file, `.previous`, `.base`, `.previous.base` and its
    /// compressed form, or an adopted copy. `purge` removes them (with their sidecars), and
    /// a read-only seed may not be one (a run renames or removes it).
    public func namesOwnDatabase(_ fileName: String) -> Bool {
        ["", ".previous", ".base", ".previous.base", ".previous.base.xor.zst"].contains { fileName.hasSameBytes(as: name.rawValue + $0) }
            || generationNumber(of: fileName) != nil || adoptedCopyStamp(of: fileName) != nil
    }

    /// The path of a file in this working copy's directory.
    public func inDirectory(_ fileName: String) -> String { PathText.joined(directory, fileName) }
}
