import Foundation
import Testing

/// The README's quick start says what each `deploy` of the demo seeds prints (the comment
/// after `#`, the working copy's path shown as `(…)`): run as written, in a fresh home, each
/// prints exactly that. (The v1 → v2 line once left out what a merging seed says of a copy
/// nobody wrote.)
@Suite struct ReadmeQuickStartTests {
    @Test func theQuickStartsDeploysPrintWhatTheReadmeSays() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n").map(String.init).filter { $0.hasPrefix("swift run seeddb deploy --manifest Seeds/") }
        #expect(lines.count >= 2, "the quick start's deploy lines: \(lines)")
        let cli = CLIHarness()
        #expect(try cli.run(["deploy", "--manifest", CLIHarness.seeds + "/v1/seeds.json"]).status == 0)
        for line in lines where line.contains("#") {
            let parts = line.components(separatedBy: "#")
            let manifest = try #require(parts[0].split(separator: " ").first { $0.hasPrefix("Seeds/") }).dropFirst("Seeds".count)
            let expected = parts[1...].joined(separator: "#").trimmingCharacters(in: .whitespaces)
            let result = try cli.run(["deploy", "--manifest", CLIHarness.seeds + manifest])
            #expect(result.status == 0, "\(line): \(result.stderr)")
            let printed = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                .replacingOccurrences(of: "(\(cli.workingCopy))", with: "(…)")
            #expect(printed == expected, "\(line)")
        }
    }
}
