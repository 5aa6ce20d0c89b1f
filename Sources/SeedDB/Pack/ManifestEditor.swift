import Foundation
import SeedDBCore

/// Adds or updates one seed's entry (version, sha256) in a manifest, keeping every
/// other key and entry as it is: what `seeddb pack --manifest` does after building.
///
/// The manifest is read and checked once, when the editor is made (before anything is
/// built), and written once, by ``record(seed:version:sha256:location:)``.
public struct ManifestEditor {
    /// The manifest's path (the file a symbolic link points to).
    public let path: String
    /// The manifest as it will be written: the existing one, or a new one for an app.
    private var document: [String: JSONValue]
    /// The `serial` to write (`seeddb pack --serial`); `nil` keeps the manifest's own.
    public var serial: UInt64?

    /// Reads the manifest at `path` to edit it. An existing manifest must be valid, though
    /// its `seeds` may be empty (`{"app": "…", "seeds": []}` is the natural starting file);
    /// one that does not exist yet is created for `app`.
    ///
    /// - Throws: ``SeedDBError`` `invalidArgument` (no manifest at `path` and no `app`;
    ///   its remedy is ``SeedDBError/Remedy/app``),
    ///   `invalidManifest` (the existing file is not a valid manifest), `seedUnavailable`.
    public init(editing path: String, app: AppIdentifier?) throws(SeedDBError) {
        // Through a symbolic link, edit the file it points to (renaming over the link
        // would replace it).
        self.path = FileSystem.resolvingLinks(path)
        if try FileSystem.fileType(at: path) != nil {
            document = try Manifest.load(path, allowingNoSeeds: true).document
        } else if let app {
            document = ["app": .string(app.rawValue), "seeds": .array([])]
        } else {
            throw SeedDBError(.invalidArgument, "manifest \(path) does not exist", remedy: .app)
        }
    }

    /// Records `version` and `sha256` (and `location`, when given) for the seed at `seed`
    /// and writes the manifest.
    ///
    /// The entry whose `source` resolves to `seed` is updated; otherwise one is appended,
    /// with `source` relative to the manifest's folder when `seed` lies inside it.
    ///
    /// - Parameters:
    ///   - seed: The seed file's path.
    ///   - version: The entry's `"version"`.
    ///   - sha256: The entry's `"sha256"`, the seed file's digest.
    ///   - location: The entry's `"location"`: `cache` is written, `data` (the
    ///     default) removes the key; `nil` leaves the entry's own.
    /// - Throws: ``SeedDBError`` `invalidManifest` (the result is not a valid manifest),
    ///   `cannotCreate`/`ioFailure` (it cannot be written).
    public func record(seed: String, version: SeedVersion, sha256: SHA256Digest, location: SeedLocation? = nil) throws(SeedDBError) {
        let folder = FileSystem.directory(of: path)
        var document = self.document
        // The manifest was read as a valid one: its seeds are objects.
        var seeds = (document["seeds"]?.array ?? []).compactMap(\.object)
        let relative = seed.hasPrefix(folder + "/") ? String(seed.dropFirst(folder.count + 1)) : seed
        let index = seeds.firstIndex { entry in
            guard let source = entry["source"]?.string else { return false }
            return (source.hasPrefix("/") ? source : folder + "/" + source) == seed
        }
        var entry = index.map { seeds[$0] } ?? ["source": .string(relative)]
        entry["version"] = .string(version.rawValue)
        entry["sha256"] = .string(sha256.hex)
        switch location {
        case .cache: entry["location"] = .string(SeedLocation.cache.rawValue)
        case .data: entry["location"] = nil
        case nil: break
        }
        if let index { seeds[index] = entry } else { seeds.append(entry) }
        document["seeds"] = .array(seeds.map(JSONValue.object))
        if let serial { document["serial"] = .number(String(serial)) }

        let bytes = JSONValue.object(document).prettyPrinted
        do {
            _ = try Manifest(parsing: bytes, folder: folder)
        } catch {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path) after the update: \(error.message)")
        }
        try FileSystem.writeAtomically(bytes + [0x0A], to: path, permissions: [.ownerReadWrite, .groupRead, .otherRead])
    }

    /// Runs `body`, which writes the manifest (and its signature); when it throws, puts
    /// back the manifest and `<manifest>.minisig` as they were (removing the ones that did
    /// not exist), so a failed `seeddb pack` leaves them byte for byte.
    public func restoringOnFailure<Result>(_ body: () throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        let files = [path, path + ".minisig"]
        let before = try files.map { (file) throws(SeedDBError) in try FileSystem.readFile(at: file) }
        do {
            return try body()
        } catch {
            for (file, bytes) in zip(files, before) {
                if let bytes {
                    try? FileSystem.writeAtomically(bytes, to: file, permissions: [.ownerReadWrite, .groupRead, .otherRead])
                } else {
                    try? FileSystem.remove(file)
                }
            }
            throw error
        }
    }
}
