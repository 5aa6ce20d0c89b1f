import Foundation
import Testing

/// A working copy nobody wrote to since its deploy, whose content is the seed's own, has
/// nothing of the user's to merge: an upgrade under a merge policy replaces it without a
/// merge. A single write (or a `-wal` with frames) makes it merge.
@Suite struct UntouchedCopyIsReplacedTests {
    static let merge = ["--merge", "user-wins"]

    @Test func anUntouchedCopyIsReplacedWithoutAMergeAndOneWriteMakesItMerge() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + Self.merge).status == 0)
        #expect(cli.settingsEntry()?["pristine"] != nil, "the record takes the seed's own content's identity")

        let untouched = try cli.run(["deploy", "--json"] + cli.seedFlags(2) + Self.merge)
        #expect(untouched.status == 0, "\(untouched.stderr)")
        let plain = try #require(try untouched.seeds().first)
        #expect(plain["action"] as? String == "replaced")
        #expect(plain["merge"] == nil, "a working copy nobody wrote was merged: \(untouched.stdout)")
        #expect(plain["mergeSkipped"] as? Bool == true)

        // One write, then the next upgrade merges and keeps it.
        let edit = try cli.shell("sqlite3 '\(cli.workingCopy)' \"UPDATE levels SET background = 'edited by the user' WHERE ix = 1\"")
        #expect(edit.status == 0, "\(edit.stderr)")
        let written = try cli.run(["reseed", "--json"] + cli.seedFlags(1) + Self.merge)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try written.seeds().first?["merge"] != nil, "a written copy was not merged: \(written.stdout)")
        let kept = try cli.shell("sqlite3 '\(cli.workingCopy)' 'SELECT background FROM levels WHERE ix = 1'")
        #expect(kept.stdout == "edited by the user\n")
        #expect(cli.settingsEntry()?["pristine"] == nil, "merged content is not the seed's own")
    }

    /// File systems keep a file's times per clock tick (4 ms on many kernels; before
    /// Linux 6.13 the change time too): an app's write in the tick of the deploy left the
    /// identity recorded as the seed's own as it was, and the next upgrade replaced the
    /// write without a merge. The generation file's modification time is set a second back
    /// before its identity is recorded, so any later write changes it.
    @Test func aWriteInTheDeploysClockTickStillChangesTheRecordedIdentity() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + Self.merge).status == 0)
        let finished = Date()
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: cli.contentFile)[.modificationDate] as? Date)
        #expect(modified < finished.addingTimeInterval(-0.9), "the generation file's modification time, \(modified.timeIntervalSince1970), is not a second before the deploy ended, \(finished.timeIntervalSince1970)")
        let untouched = try cli.run(["deploy", "--json"] + cli.seedFlags(2) + Self.merge)
        #expect(try untouched.seeds().first?["mergeSkipped"] as? Bool == true, "the recorded identity is the file's: \(untouched.stdout) \(untouched.stderr)")
    }

    @Test func aWALWithFramesIsAWrite() throws {
        let cli = CLIHarness()
        #expect(try cli.run(["deploy"] + cli.seedFlags(1) + Self.merge).status == 0)
        // A -wal beside the content file with frames in it: SQLite has writes there.
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: cli.contentFile + "-wal"))
        let result = try cli.run(["deploy", "--json"] + cli.seedFlags(2) + Self.merge)
        #expect(try result.seeds().first?["merge"] != nil, "\(result.stdout) \(result.stderr)")
    }
}
