import Foundation
import Testing

/// The file system tells names apart by their bytes; Swift's strings take `é` (one scalar)
/// and `e` + U+0301 (two) for the same text. A second working copy of an app whose name
/// differs from a recorded one only that way would share its settings entry: it is
/// refused (64 from flags, 78 from a manifest), nothing changes, and the first keeps
/// working.
@Suite struct NamesByTheirBytesTests {
    let cli = CLIHarness()
    static let composed = "\u{E9}.sqlite", decomposed = "e\u{301}.sqlite"

    /// The settings file's bytes and the directory's names, as bytes.
    private func disk() throws -> (settings: Data, names: [[UInt8]]) {
        (try Data(contentsOf: URL(fileURLWithPath: cli.settingsFile)),
         try FileManager.default.contentsOfDirectory(atPath: cli.appData).map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func aNameInAnotherNormalizationIsRefusedAndChangesNothing() throws {
        #expect(try cli.run(["deploy", "--name", Self.composed] + cli.seedFlags(1)).status == 0)
        let before = try disk()
        for arguments in [["deploy", "--name", Self.decomposed] + cli.seedFlags(2), ["reseed", "--name", Self.decomposed] + cli.seedFlags(1),
                          ["status", "--name", Self.decomposed] + cli.seedFlags(1), ["verify", "--name", Self.decomposed] + cli.seedFlags(1),
                          ["rollback", "--app", cli.app, "--name", Self.decomposed], ["purge", "--app", cli.app, "--name", Self.decomposed]] {
            let refused = try cli.run(arguments)
            #expect(refused.status == 64, "\(arguments[0]): \(refused.stderr)")
            #expect(refused.stderr.contains("another Unicode normalization") && refused.stderr.hasSuffix("\n") && refused.stderr.split(separator: "\n").count == 1,
                    "\(arguments[0]): \(refused.stderr)")
            let after = try disk()
            #expect(after.settings == before.settings && after.names == before.names, "\(arguments[0]) changed something")
        }
        let manifest = cli.root + "/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "seeds": [{"source": "\#(CLIHarness.seeds)/v2/levels.sqlite", "version": "2", "name": "e\u0301.sqlite"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let fromManifest = try cli.run(["deploy", "--manifest", manifest])
        #expect(fromManifest.status == 78, "\(fromManifest.stderr)")
        #expect(try disk().settings == before.settings)
        #expect(try cli.run(["deploy", "--name", Self.composed] + cli.seedFlags(2)).status == 0, "the recorded name still deploys")
    }

    /// `purge` took `--name é --name e\u{301}` for one name given twice (a `Set` of names
    /// compares them as text) and purged the first: the second is another name, which only
    /// looks like the recorded one, so the purge is refused whole (64) and nothing changes.
    @Test func aPurgeOfTwoNamesThatOnlyLookAlikeIsRefusedWhole() throws {
        #expect(try cli.run(["deploy", "--name", Self.composed] + cli.seedFlags(1)).status == 0)
        let before = try disk()
        let refused = try cli.run(["purge", "--app", cli.app, "--name", Self.composed, "--name", Self.decomposed])
        #expect(refused.status == 64, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("another Unicode normalization") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        let after = try disk()
        #expect(after.settings == before.settings && after.names == before.names, "the purge changed something")
    }
}
