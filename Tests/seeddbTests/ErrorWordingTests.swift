import Foundation
import Testing

/// Error lines say what is wrong once, in one quoting style: commands and options a
/// user mistyped in backticks, values in double quotes with control characters escaped
/// as `\t`, the valid values listed, an unknown manifest key named with a suggestion.
@Suite struct ErrorWordingTests {
    let cli = CLIHarness()

    private func error(_ arguments: [String]) throws -> (status: Int32, line: String) {
        let result = try cli.run(arguments)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "not one line: \(result.stderr)")
        return (result.status, result.stderr.trimmingCharacters(in: .newlines))
    }

    private func manifest(_ seed: String, extra: String = "") throws -> String {
        let path = cli.root + "/seeds.json"
        let text = #"{"app": "\#(cli.app)"\#(extra), "seeds": [{"source": "\#(CLIHarness.seeds)/v1/levels.sqlite", \#(seed)}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func invalidOptionValuesListTheValidOnes() throws {
        let cases: [([String], String)] = [
            (["--location", "foo"], #"seeddb: error: invalid --location "foo": expected data or cache"#),
            (["--strategy", "foo"], #"seeddb: error: invalid --strategy "foo": expected auto, swap or live"#),
            (["--merge", "foo"], #"seeddb: error: invalid --merge "foo": expected off, seed-wins, user-wins or fail"#),
            (["--integrity", "foo"], #"seeddb: error: invalid --integrity "foo": expected none, quick or full"#),
            (["--keep-previous", "maybe"], #"seeddb: error: invalid --keep-previous "maybe": expected true or false"#),
            (["--wait", "soon"], #"seeddb: error: invalid --wait "soon": expected a number of seconds"#),
        ]
        for (flags, expected) in cases {
            let (status, line) = try error(["deploy"] + cli.seedFlags(1) + flags)
            #expect(status == 64)
            #expect(line == expected)
        }
    }

    @Test func controlCharactersArePrintedAsCEscapes() throws {
        let (status, line) = try error(["deploy"] + cli.seedFlags(1) + ["--name", "le\tvels"])
        #expect(status == 64)
        #expect(line == #"seeddb: error: invalid name "le\tvels": it holds a control character (--name)"#)
        let version = try error(["deploy", "--app", cli.app, "--seed", "\(CLIHarness.seeds)/v1/levels.sqlite", "--version", "1\u{1b}"])
        #expect(version.line.contains(#""1\u001b""#), "\(version.line)")
        #expect(!version.line.contains("\\u{"))
    }

    @Test func commandsAndOptionsAreQuotedInBackticks() throws {
        #expect(try error(["deplyo"]).line == "seeddb: error: unknown command `deplyo`; did you mean `deploy`?")
        #expect(try error(["deploy", "--manfest", "x"]).line == "seeddb: error: unknown option `--manfest`; did you mean `--manifest`?")
        #expect(try error(["deploy", "-x"] + cli.seedFlags(1)).line == "seeddb: error: unknown option `-x`")
        #expect(try error(["pack", "a.sql", "--version", "1"]).line == "seeddb: error: missing expected argument `--output <seed>`")
        #expect(try error(["deploy", "--app", cli.app, "--version"]).line == "seeddb: error: missing value for `--version <string>`")
        #expect(try error(["deploy", "extra"] + cli.seedFlags(1)).line == "seeddb: error: unexpected argument `extra`")
    }

    @Test func aManifestErrorNamesItsPathOnce() throws {
        let path = try manifest(#""version": "1", "merge": "bogus""#)
        let (status, line) = try error(["deploy", "--manifest", path])
        #expect(status == 78)
        #expect(line == #"seeddb: error: invalid manifest \#(path): seeds[0].merge: "bogus" is not a merge policy (off, seed-wins, user-wins or fail)"#)
    }

    @Test func anUnknownManifestKeyIsNamedWithASuggestion() throws {
        let misspelt = try error(["deploy", "--manifest", try manifest(#""versoin": "1""#)])
        #expect(misspelt.status == 78)
        #expect(misspelt.line.hasSuffix(#"unknown key seeds[0].versoin; did you mean "version"?"#), "\(misspelt.line)")
        let extra = try error(["deploy", "--manifest", try manifest(#""version": "1", "colour": "red""#)])
        #expect(extra.line.hasSuffix("unknown key seeds[0].colour"), "\(extra.line)")
        let top = try error(["deploy", "--manifest", try manifest(#""version": "1""#, extra: #", "serail": 3"#)])
        #expect(top.line.hasSuffix(#"unknown key "serail"; did you mean "serial"?"#), "\(top.line)")
    }

    @Test func purgeDryRunListsEachPathOnce() throws {
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        #expect(try cli.run(["deploy"] + cli.seedFlags(2)).status == 0)
        let result = try cli.run(["purge", "--dry-run", "--json", "--app", cli.app, "--name", "levels.sqlite", "--name", "levels.sqlite"])
        #expect(result.status == 0, "\(result.stderr)")
        let removed = try result.seeds().flatMap { $0["removed"] as? [String] ?? [] }
        #expect(!removed.isEmpty)
        #expect(Set(removed).count == removed.count, "\(removed)")
    }
}
