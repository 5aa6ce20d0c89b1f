import Foundation
import Logging
@testable import SeedDB

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/seeddb-test-XXXXXX".utf8CString)
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

    /// XDG directories under this directory.
    var xdg: XDGDirectories {
        XDGDirectories(dataHome: file("data"), cacheHome: file("cache"), configHome: file("config"))
    }
}

/// Collects warnings logged by the library.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    var messages: [String] { lock.withLock { storage } }

    var logger: Logger {
        Logger(label: "test") { _ in CapturingHandler(capture: self) }
    }

    fileprivate func append(_ message: String) { lock.withLock { storage.append(message) } }
}

private struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { capture.append("\(event.message)") }
}

/// The demo seeds in the repository's `Seeds/` folder.
enum DemoSeeds {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Seeds"
    static let v1 = folder + "/v1/levels.sqlite"
    static let v2 = folder + "/v2/levels.sqlite"
}
