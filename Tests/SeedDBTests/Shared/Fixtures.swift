import Foundation

// The test fixtures both test targets use, written once: `Tests/seeddbTests/Shared` is a
// symbolic link to this folder, so each target compiles its own copy of these types.

/// A fresh directory under `/tmp` (made with `mkdtemp`), removed when released.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    /// - Parameter prefix: The start of the directory's name, to tell suites apart.
    init(prefix: String = "seeddb-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(text.utf8))
        return file(name)
    }

    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The demo seeds in the repository's `Seeds/` folder.
enum DemoSeeds {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path + "/Seeds"
    static let v1 = folder + "/v1/levels.sqlite"
    static let v2 = folder + "/v2/levels.sqlite"
}
