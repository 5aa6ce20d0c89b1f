import Foundation
import SeedDBCore

/// SeedDB's entry for one working copy in the settings store.
public struct SettingsEntry: Sendable, Hashable {
    /// The deployed version, its digest and size; `nil` while a deploy is under way or
    /// after a deploy was withdrawn.
    public var record: DeployRecord?

    /// Creates an entry.
    public init(record: DeployRecord? = nil) {
        self.record = record
    }

    /// Decodes an entry from its JSON object.
    /// - Throws: ``SeedDBError`` naming the field that is missing or mistyped.
    init(jsonObject: Any) throws(SeedDBError) {
        guard let object = jsonObject as? [String: Any] else {
            throw SeedDBError(.ioFailure, "not an object")
        }
        let recordKeys = ["version", "sha256", "size", "deployedAt"]
        guard recordKeys.contains(where: { object[$0] != nil }) else { return }
        guard let version = object["version"] as? String else { throw Self.bad("version") }
        guard let sha256 = object["sha256"] as? String else { throw Self.bad("sha256") }
        guard let size = object["size"] as? NSNumber, !Self.isBoolean(size),
              let exactSize = Int64(exactly: size.doubleValue), exactSize >= 0 else { throw Self.bad("size") }
        guard let deployedAt = object["deployedAt"] as? String else { throw Self.bad("deployedAt") }
        do {
            record = DeployRecord(
                version: try SeedVersion(version), sha256: try SHA256Digest(hex: sha256),
                size: exactSize, deployedAt: deployedAt)
        } catch {
            throw SeedDBError(.ioFailure, error.message)
        }
    }

    /// The entry as a JSON object.
    var jsonObject: [String: Any] {
        var object: [String: Any] = [:]
        if let record {
            object["version"] = record.version.rawValue
            object["sha256"] = record.sha256.hex
            object["size"] = record.size
            object["deployedAt"] = record.deployedAt
        }
        return object
    }

    private static func bad(_ field: String) -> SeedDBError {
        SeedDBError(.ioFailure, "\"\(field)\" is missing or has the wrong type")
    }

    /// Whether JSON decoded `number` from `true` or `false` (Foundation bridges both to
    /// `NSNumber`, with the `char` type code).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
