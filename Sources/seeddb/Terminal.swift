#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// Standard output and error, and the logger the library reports warnings through.
enum Terminal {
    /// Writes `line` and a newline to standard output.
    static func printOut(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `seeddb: error: <message>` to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("seeddb: error: \(message)\n".utf8))
    }

    /// A logger that prints warnings and errors, one line each, to standard error.
    static let logger = Logger(label: "seeddb") { _ in StandardErrorLogHandler() }
}

/// Prints log messages of level `warning` and above as `seeddb: warning: <message>`.
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level = event.level >= .error ? "error" : "warning"
        FileHandle.standardError.write(Data("seeddb: \(level): \(event.message)\n".utf8))
    }
}
