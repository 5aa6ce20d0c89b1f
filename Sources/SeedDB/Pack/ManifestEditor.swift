import Foundation
import SeedDBCore

/// Adds or updates one seed's entry (version, sha256) in a manifest, keeping every
/// other key and entry as it is: what `seeddb pack --manifest` does after building.
public enum ManifestEditor {
    /// Checks, before anything is built, that ``record(seed:version:sha256:in:app:)`` can
    /// succeed: an existing manifest must be valid, a new one needs `app`.
    public static func requireEditable(_ path: String, app: AppIdentifier?) throws(SeedDBError) {
        if try FileSystem.fileType(at: path) != nil {
            _ = try Manifest.load(path)
        } else if app == nil {
            throw SeedDBError(.invalidArgument, "manifest \(path) does not exist", remedy: .app)
        }
    }

    /// Records `version` and `sha256` for the seed at `seed` in the manifest at `path`.
    ///
    /// The entry whose `source` resolves to `seed` is updated; otherwise one is appended,
    /// with `source` relative to the manifest's folder when `seed` lies inside it. A
    /// manifest that does not exist yet is created for `app`.
    ///
    /// - Throws: ``SeedDBError`` `invalidArgument` (a new manifest without `app`),
    ///   `invalidManifest` (the existing file, or the result, is not a valid manifest).
    public static func record(seed: String, version: SeedVersion, sha256: SHA256Digest, in path: String, app: AppIdentifier?) throws(SeedDBError) {
        let folder = FileSystem.directory(of: path)
        var document: [String: Any]
        if let bytes = try FileSystem.readFile(at: path) {
            _ = try Manifest.load(path)   // an existing manifest must be valid before it is edited
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw SeedDBError(.invalidManifest, "invalid manifest \(path): the top level is not a JSON object")
            }
            document = object
        } else {
            guard let app else {
                throw SeedDBError(.invalidArgument, "manifest \(path) does not exist", remedy: .app)
            }
            document = ["app": app.rawValue, "seeds": [[String: Any]]()]
        }
        var seeds = document["seeds"] as? [[String: Any]] ?? []
        let relative = seed.hasPrefix(folder + "/") ? String(seed.dropFirst(folder.count + 1)) : seed
        let index = seeds.firstIndex { entry in
            guard let source = entry["source"] as? String else { return false }
            return (source.hasPrefix("/") ? source : folder + "/" + source) == seed
        }
        var entry = index.map { seeds[$0] } ?? ["source": relative]
        entry["version"] = version.rawValue
        entry["sha256"] = sha256.hex
        if let index { seeds[index] = entry } else { seeds.append(entry) }
        document["seeds"] = seeds

        let bytes: Data
        do {
            bytes = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw SeedDBError(.invalidManifest, "cannot encode manifest \(path): \(error.localizedDescription)")
        }
        do {
            _ = try Manifest(parsing: Array(bytes), folder: folder)
        } catch {
            throw SeedDBError(.invalidManifest, "invalid manifest \(path) after the update: \(error.message)")
        }
        try FileSystem.writeAtomically(Array(bytes) + [0x0A], to: path, permissions: [.ownerReadWrite, .groupRead, .otherRead])
    }
}
