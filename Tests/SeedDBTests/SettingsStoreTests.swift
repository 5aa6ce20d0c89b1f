import Foundation
@testable import SeedDB
import Testing

@Suite struct SettingsStoreTests {
    let directory = TemporaryDirectory()
    let logs = LogCapture()

    var store: SettingsStore { SettingsStore(path: directory.file("config/app/settings.json"), logger: logs.logger) }

    func record(_ version: String) throws -> DeployRecord {
        DeployRecord(version: try SeedVersion(version), sha256: SHA256Digest(bytes: [UInt8](repeating: 1, count: 32)), size: 8192, deployedAt: "2026-11-21T00:00:00Z")
    }

    func writeSettings(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file("config/app"), withIntermediateDirectories: true)
        _ = directory.write("config/app/settings.json", text)
    }

    func json() throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: store.path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func asideFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.file("config/app")).filter { $0.hasPrefix("settings.json.corrupt-") }
    }

    /// The startup check reads the settings with one `read` of up to 16 KiB (and one more
    /// byte) and no `fstat`: a file of any size (an app's own keys, many seeds), at and
    /// around the buffer's edge too, is read to its end, its entry found after the
    /// padding; one that reads as damaged is said so after a whole read.
    @Test(arguments: [300, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 16 * 1024 + 2, 40 * 1024])
    func theStartupReadTakesASettingsFileOfAnySize(size: Int) throws {
        try store.update(timeout: .seconds(1)) { $0["levels.sqlite", default: SettingsEntry()].record = try record("2") }
        let written = try String(contentsOfFile: store.path, encoding: .utf8)
        // The app's key first, so the entry comes after the padding.
        let (head, tail) = ("{\"appNotes\": \"", "\",\n" + written.drop { $0 != "\"" })
        try writeSettings(head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail)
        #expect((try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) == size)
        #expect(try store.snapshot(only: SeedName("levels.sqlite")).entry(of: SeedName("levels.sqlite"))?.record?.version.rawValue == "2", "\(size)")
        try writeSettings(head + String(repeating: "x", count: size - head.utf8.count - 1) + "\"")
        let damaged = try store.snapshot(only: SeedName("levels.sqlite"))
        #expect(damaged.problem != nil && damaged.entries.isEmpty, "\(size)")
    }

    /// What cannot be read (a directory at the settings path) is the same error from the
    /// startup check's read, with no `fstat`, as from a whole read.
    @Test func aSettingsPathThatCannotBeReadFailsAlikeForTheStartupRead() throws {
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: true)
        var whole: SeedDBError?, startup: SeedDBError?
        do { _ = try store.snapshot() } catch { whole = error }
        do { _ = try store.snapshot(only: SeedName("levels.sqlite")) } catch { startup = error }
        #expect(whole != nil && startup?.message == whole?.message && startup?.code == whole?.code, "\(String(describing: startup)) \(String(describing: whole))")
    }

    @Test func missingFileReadsEmpty() throws {
        let snapshot = try store.snapshot()
        #expect(snapshot.records.isEmpty)
        #expect(snapshot.problem == nil)
    }

    @Test func writesTheDocumentedShape() throws {
        try store.update(timeout: .seconds(1)) { $0["levels.sqlite", default: SettingsEntry()].record = try record("2") }
        let entry = try #require((try json()["seeddb"] as? [String: Any])?["levels.sqlite"] as? [String: Any])
        #expect(entry["version"] as? String == "2")
        #expect(entry["sha256"] as? String == String(repeating: "01", count: 32))
        #expect(entry["size"] as? Int == 8192)
        #expect(entry["deployedAt"] as? String == "2026-11-21T00:00:00Z")
        #expect(try store.record(for: SeedName("levels.sqlite"))?.version.rawValue == "2")
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// The base's identity is written beside its digest as `"baseFile"` and reads back as
    /// written; one of the wrong shape is a damaged entry, one without a base digest
    /// vouches for nothing and is ignored.
    @Test func theBaseFileIdentityRoundTrips() throws {
        let identity = FileIdentity(device: 2049, inode: 77, size: 8192, modifiedNanoseconds: 1_763_769_104_123_456_789, changedNanoseconds: 1_763_769_104_223_456_789)
        try store.update(timeout: .seconds(1)) { table in
            var entry = SettingsEntry()
            entry.record = try record("2")
            entry.base = SHA256Digest(bytes: Array(repeating: 2, count: 32))
            entry.baseIdentity = identity
            table["levels.sqlite"] = entry
        }
        let written = try #require(((try json()["seeddb"] as? [String: Any])?["levels.sqlite"] as? [String: Any])?["baseFile"] as? [String: Any])
        #expect(written["inode"] as? Int == 77 && written["changed"] as? Int == 1_763_769_104_223_456_789)
        #expect(try store.snapshot().entries["levels.sqlite"]?.baseIdentity == identity)

        try writeSettings(#"{"seeddb": {"levels.sqlite": {"base": "0202020202020202020202020202020202020202020202020202020202020202", "baseFile": {"device": 1}}}}"#)
        #expect(try store.snapshot().problem != nil)
        try writeSettings(#"{"seeddb": {"levels.sqlite": {"baseFile": {"device": 1, "inode": 2, "size": 3, "modified": 4, "changed": 5}}}}"#)
        let alone = try store.snapshot()
        #expect(alone.problem == nil && alone.entries["levels.sqlite"]?.baseIdentity == nil)
    }

    /// A release's marker names every seed of the release and reads back as written; a
    /// `"release"` of the wrong shape is a damaged entry, set aside like any other.
    @Test func aReleaseMarkerRoundTrips() throws {
        let seeds = [SettingsEntry.ReleaseSeed(name: "levels.sqlite", version: try SeedVersion("2")),
                     SettingsEntry.ReleaseSeed(name: "dict.sqlite", version: try SeedVersion("2"))]
        try store.update(timeout: .seconds(1)) { table in
            var entry = SettingsEntry()
            entry.interrupted = SettingsEntry.InterruptedRun(version: try SeedVersion("2"), replacing: try record("1"), isRollback: false, release: seeds)
            table["levels.sqlite"] = entry
        }
        let marker = try #require(((try json()["seeddb"] as? [String: Any])?["levels.sqlite"] as? [String: Any])?["interrupted"] as? [String: Any])
        #expect((marker["release"] as? [[String: String]]) == [["name": "levels.sqlite", "version": "2"], ["name": "dict.sqlite", "version": "2"]])
        #expect(try store.snapshot().entries["levels.sqlite"]?.interrupted?.release == seeds)

        try writeSettings(#"{"seeddb": {"levels.sqlite": {"interrupted": {"version": "2", "rollback": false, "release": [{"name": "dict.sqlite"}]}}}}"#)
        #expect(try store.snapshot().problem != nil)
    }

    @Test func preservesTheAppsKeys() throws {
        try writeSettings(#"{"theme": "dark", "volume": 0.75, "flags": [true, null, 3], "nested": {"a": {"b": "c"}}, "big": 12345678901}"#)
        try store.update(timeout: .seconds(1)) { $0["levels.sqlite", default: SettingsEntry()].record = try record("1") }
        try store.update(timeout: .seconds(1)) { $0["levels.sqlite"]?.record = nil }
        let document = try json()
        #expect(document["theme"] as? String == "dark")
        #expect(document["volume"] as? Double == 0.75)
        #expect((document["flags"] as? [Any])?.count == 3)
        #expect(((document["nested"] as? [String: Any])?["a"] as? [String: String])?["b"] == "c")
        #expect(document["big"] as? Int == 12345678901)
        #expect(try asideFiles().isEmpty)
        #expect(logs.messages.isEmpty)
    }

    @Test(arguments: ["", "{\"seeddb\": {", "garbage", "[1, 2]", "\"text\"", "\u{FF}\u{FE}"])
    func corruptFileIsMovedAsideAndTreatedAsEmpty(_ content: String) throws {
        try writeSettings(content)
        #expect(try store.snapshot().problem != nil)
        #expect(try store.snapshot().records.isEmpty)
        #expect(try asideFiles().isEmpty, "a read must not move anything")

        try store.update(timeout: .seconds(1)) { $0["levels.sqlite", default: SettingsEntry()].record = try record("1") }
        let aside = try asideFiles()
        #expect(aside.count == 1)
        #expect(directory.read("config/app/" + aside[0]) == content)
        #expect(try store.record(for: SeedName("levels.sqlite"))?.version.rawValue == "1")
        #expect(logs.messages.count == 1)
        #expect(logs.messages.first?.contains("corrupt") == true)
    }

    @Test(arguments: [#""seeddb": 5"#, #""seeddb": {"levels.sqlite": "x"}"#, #""seeddb": {"levels.sqlite": {"version": 3, "sha256": "x", "size": 1, "deployedAt": "t"}}"#, #""seeddb": {"a": {"version": "1"}}"#, #""seeddb": {"a": {"version": "1", "sha256": "0101010101010101010101010101010101010101010101010101010101010101", "size": true, "deployedAt": "t"}}"#])
    func badSeedDBValueIsSavedAsideAndOnlyItStartsAfresh(_ member: String) throws {
        let content = "{\"theme\": \"dark\", \(member)}"
        try writeSettings(content)
        guard case .badSeedDBValue = try store.snapshot().problem else {
            Issue.record("expected a bad \"seeddb\" value to be reported")
            return
        }
        try store.update(timeout: .seconds(1)) { $0["levels.sqlite", default: SettingsEntry()].record = try record("1") }
        let aside = try asideFiles()
        #expect(aside.count == 1)
        #expect(directory.read("config/app/" + aside[0]) == content)
        let document = try json()
        #expect(document["theme"] as? String == "dark")
        #expect(try store.record(for: SeedName("levels.sqlite"))?.version.rawValue == "1")
    }

    @Test func leavesNoTemporaryFiles() throws {
        for version in 1...5 {
            try store.update(timeout: .seconds(1)) { $0["x", default: SettingsEntry()].record = try record("\(version)") }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.file("config/app")).sorted()
        #expect(files == ["settings.json", "settings.json.lock"])
    }

    /// Two working copies whose names differ only in their Unicode normalization (`é`
    /// and `e` + U+0301) are two files but one `String` key: an update that writes the
    /// second is refused with nothing written, even when both ran past their reads at once.
    @Test func anUpdateThatWritesALookalikeNameWritesNothing() throws {
        try store.update(timeout: .seconds(1)) { $0["\u{E9}.sqlite"] = SettingsEntry(record: try record("1")) }
        let before = try #require(FileManager.default.contents(atPath: store.path))
        do {
            try store.update(timeout: .seconds(1)) { $0["e\u{301}.sqlite", default: SettingsEntry()].record = try record("2") }
            Issue.record("a lookalike name was written")
        } catch {
            #expect(error.code == .conflictingSeed)
            #expect(error.message.contains(#""e\u{301}.sqlite""#) && error.message.contains(#""\u{E9}.sqlite""#), "\(error.message)")
        }
        #expect(FileManager.default.contents(atPath: store.path) == before)
        #expect(throws: SeedDBError.self) { try store.snapshot().entry(of: SeedName("e\u{301}.sqlite")) }
        #expect(try store.snapshot().entry(of: SeedName("\u{E9}.sqlite"))?.record?.version.rawValue == "1")
    }

    /// A file that already holds both spellings (written by hand) is not read as one entry
    /// holding the other's record: it is damaged, and the next write sets it aside whole.
    @Test func aFileWithBothSpellingsIsDamagedNotMerged() throws {
        try writeSettings(#"{"seeddb": {"\u00e9.sqlite": {}, "e\u0301.sqlite": {}}}"#)
        for snapshot in [try store.snapshot(), try store.snapshot(only: SeedName("\u{E9}.sqlite"))] {
            guard case .notAnObject(let reason) = snapshot.problem else { Issue.record("read as \(snapshot.entries.keys)"); continue }
            #expect(reason.contains("looks like the earlier"), "\(reason)")
        }
        try store.update(timeout: .seconds(1)) { _ in }
        #expect(try asideFiles().count == 1)
    }

    /// Two keys with the same bytes are still read as `JSONSerialization` read them: the
    /// last one counts.
    @Test func aRepeatedKeyStillKeepsTheLast() throws {
        try writeSettings(#"{"seeddb": {"a.sqlite": {"maintainedAt": "1"}, "a.sqlite": {"maintainedAt": "2"}}}"#)
        #expect(try store.snapshot().entry(of: SeedName("a.sqlite"))?.maintainedAt == "2")
    }
}
