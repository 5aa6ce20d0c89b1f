import Foundation
import SeedDBCore

/// SeedDB's entry for one working copy in the settings store.
///
/// ```json
/// {"version": "2", "sha256": "…", "size": 8192, "deployedAt": "…",
///  "previous": {"version": "1", "sha256": "…", "size": 8192, "deployedAt": "…"},
///  "maintainedAt": "…", "checked": {"sha256": "…", "integrity": "quick"},
///  "source": {"device": 2049, "inode": 1234, "size": 8192, "modified": 1763769104123456789, "sha256": "…"}}
/// ```
public struct SettingsEntry: Sendable, Hashable {
    /// The deployed version, its digest and size; `nil` while a deploy is under way or
    /// after a deploy was withdrawn.
    public var record: DeployRecord?
    /// The generation kept beside the working copy for `rollback`, if any.
    public var previous: DeployRecord?
    /// When `maintain` last ran, ISO-8601 UTC.
    public var maintainedAt: String?
    /// The last seed content that passed validation, so an unchanged seed is not re-checked.
    public var checked: ValidationMemo?
    /// The seed file's identity and digest, so `version: auto` hashes it only when it changed.
    public var source: SourceDigest?

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
        record = try Self.record(in: object, at: "")
        if let previous = object["previous"] {
            guard let previous = previous as? [String: Any], let record = try Self.record(in: previous, at: "previous.") else {
                throw Self.bad("previous")
            }
            self.previous = record
        }
        if let maintained = object["maintainedAt"] {
            guard let maintained = maintained as? String else { throw Self.bad("maintainedAt") }
            maintainedAt = maintained
        }
        if let checked = object["checked"] {
            guard let checked = checked as? [String: Any],
                  let digest = (checked["sha256"] as? String).flatMap({ try? SHA256Digest(hex: $0) }),
                  let level = (checked["integrity"] as? String).flatMap(IntegrityLevel.init(rawValue:))
            else { throw Self.bad("checked") }
            self.checked = ValidationMemo(sha256: digest, integrity: level)
        }
        if let source = object["source"] {
            guard let source = source as? [String: Any],
                  let device = Self.integer(source["device"]), let inode = Self.integer(source["inode"]),
                  let size = Self.integer(source["size"]), let modified = Self.integer(source["modified"]),
                  let digest = (source["sha256"] as? String).flatMap({ try? SHA256Digest(hex: $0) })
            else { throw Self.bad("source") }
            self.source = SourceDigest(identity: FileIdentity(device: UInt64(device), inode: UInt64(inode), size: size, modifiedNanoseconds: modified), sha256: digest)
        }
    }

    /// The entry as a JSON object.
    var jsonObject: [String: Any] {
        var object = record.map(Self.jsonObject(of:)) ?? [:]
        if let previous { object["previous"] = Self.jsonObject(of: previous) }
        if let maintainedAt { object["maintainedAt"] = maintainedAt }
        if let checked { object["checked"] = ["sha256": checked.sha256.hex, "integrity": checked.integrity.rawValue] }
        if let source {
            object["source"] = [
                "device": Int64(bitPattern: source.identity.device), "inode": Int64(bitPattern: source.identity.inode),
                "size": source.identity.size, "modified": source.identity.modifiedNanoseconds, "sha256": source.sha256.hex,
            ] as [String: Any]
        }
        return object
    }

    private static let recordKeys = ["version", "sha256", "size", "deployedAt"]

    /// Decodes the four record keys of `object`: all absent is `nil`, all valid is a record.
    private static func record(in object: [String: Any], at prefix: String) throws(SeedDBError) -> DeployRecord? {
        guard recordKeys.contains(where: { object[$0] != nil }) else { return nil }
        guard let version = (object["version"] as? String).flatMap({ try? SeedVersion($0) }) else { throw bad(prefix + "version") }
        guard let sha256 = (object["sha256"] as? String).flatMap({ try? SHA256Digest(hex: $0) }) else { throw bad(prefix + "sha256") }
        guard let size = integer(object["size"]), size >= 0 else { throw bad(prefix + "size") }
        guard let deployedAt = object["deployedAt"] as? String else { throw bad(prefix + "deployedAt") }
        return DeployRecord(version: version, sha256: sha256, size: size, deployedAt: deployedAt)
    }

    private static func jsonObject(of record: DeployRecord) -> [String: Any] {
        ["version": record.version.rawValue, "sha256": record.sha256.hex, "size": record.size, "deployedAt": record.deployedAt]
    }

    /// A JSON integer (not a boolean, not a fraction), exact up to `Int64.max`.
    private static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        switch String(cString: number.objCType) {
        case "c": return nil  // Foundation bridges `true`/`false` to NSNumber with the `char` code.
        case "d", "f": return Int64(exactly: number.doubleValue)
        default: return number.int64Value
        }
    }

    private static func bad(_ field: String) -> SeedDBError {
        SeedDBError(.ioFailure, "\"\(field)\" is missing or has the wrong type")
    }
}

/// How thoroughly a seed is checked before it is swapped in.
public enum IntegrityLevel: String, Sendable, CaseIterable, Comparable {
    /// The header and the size it declares only.
    case none
    /// `PRAGMA quick_check` (the default): every page's structure, not index contents.
    case quick
    /// `PRAGMA integrity_check`: everything, indexes included.
    case full

    public static func < (lhs: IntegrityLevel, rhs: IntegrityLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The last seed content that passed validation.
public struct ValidationMemo: Sendable, Hashable {
    /// The digest of the content that was checked.
    public var sha256: SHA256Digest
    /// How thoroughly.
    public var integrity: IntegrityLevel
}

/// What identifies a file's content without reading it: if none of these changed, the
/// bytes did not either (short of deliberate tampering with timestamps).
public struct FileIdentity: Sendable, Hashable {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64
    /// `st_size`.
    public var size: Int64
    /// `st_mtim` in nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64
}

/// A seed file's identity and the digest of its content when it had that identity.
public struct SourceDigest: Sendable, Hashable {
    /// The file's identity when it was hashed.
    public var identity: FileIdentity
    /// Its SHA-256 then.
    public var sha256: SHA256Digest
}
