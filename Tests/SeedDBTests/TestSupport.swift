@_exported import SeedDBTestSupport
import Foundation
import Logging
@testable import SeedDB

extension TemporaryDirectory {
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

