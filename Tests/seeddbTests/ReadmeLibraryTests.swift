import Foundation
import Testing

/// "Fleets and people", item 7: the README's library snippets build as an app would add
/// them, and so do those of the DocC Getting started article (issue 29: its startup,
/// report and rollback code). The code blocks they mark `<!-- readme-app: FILE -->` become a scratch
/// app's `FILE` (`Package.swift`, or a source of its executable target) beside a
/// `SeedDB` link to this checkout, and `swift build` builds it: a README whose dependency
/// lines or calls no longer match the package fails here. The app lives in
/// `.build/readme-app`, so a rerun only rebuilds what changed (the first build, with
/// GRDB and swift-crypto, takes about two minutes).
@Suite struct ReadmeLibraryTests {
    /// The app's files, from the README: file name and code, in the README's order.
    static func markedSnippets(_ readme: String) -> [(file: String, code: String)] {
        ReadmeSnippets.marked(readme, marker: "readme-app", fence: "```swift")
    }

    @Test(.timeLimit(.minutes(10)))
    func theReadmesLibrarySnippetsBuildAsAnAppsPackage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let article = try String(contentsOfFile: root + "/Sources/SeedDB/SeedDB.docc/GettingStarted.md", encoding: .utf8)
        let articleSnippets = Self.markedSnippets(article)
        let snippets = Self.markedSnippets(readme) + articleSnippets
        #expect(snippets.map(\.file).contains("Package.swift"), "the README shows an app's Package.swift")
        #expect(snippets.map(\.file).contains("main.swift"), "the README shows an app's startup code")
        #expect(articleSnippets.map(\.file) == ["Startup.swift", "Report.swift", "Rollback.swift"], "the article's snippets are each their own file")

        // Given an app beside `SeedDB` (this checkout), as the README's `.package(path: "../SeedDB")` expects
        let folder = root + "/.build/readme-app"
        let app = folder + "/MyApp"
        let sources = app + "/Sources/MyApp"
        try? FileManager.default.removeItem(atPath: sources)
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: folder + "/SeedDB")
        try FileManager.default.createSymbolicLink(atPath: folder + "/SeedDB", withDestinationPath: "../..")
        for (file, code) in snippets {
            let path = file == "Package.swift" ? app + "/Package.swift" : sources + "/" + file
            try Data(code.utf8).write(to: URL(fileURLWithPath: path))
        }

        // When it is built
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "build", "--package-path", app]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        // Then it builds
        #expect(process.terminationStatus == 0, "\(text.suffix(4000))")
    }

    @Test func onlyMarkedSwiftBlocksAreTaken() {
        let readme = "<!-- readme-app: main.swift -->\n```swift\nlet a = 1\n```\n```swift\nlet b = 2\n```\n"
        let snippets = Self.markedSnippets(readme)
        #expect(snippets.count == 1)
        #expect(snippets.first?.file == "main.swift" && snippets.first?.code == "let a = 1\n")
    }
}
