#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SystemPackage

/// Standard output and error, and the logger the library reports warnings through.
enum Terminal {
    /// Writes `line` and a newline to standard output.
    static func printOut(_ line: String) {
        write(line + "\n", to: .standardOutput)
    }

    /// Writes `seeddb: error: <message>` to standard error.
    static func printError(_ message: String) {
        printLabelled("error", message)
    }

    /// Writes `seeddb: <label>: <message>` to standard error as one line (line breaks in
    /// the message become `; `), the label in colour when standard error is a terminal and
    /// `NO_COLOR` is not set (https://no-color.org).
    static func printLabelled(_ label: String, _ message: String) {
        let colour = label == "error" ? "31" : "33"
        let shown = useColour ? "\u{1B}[1;\(colour)m\(label)\u{1B}[0m" : label
        let line = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        write("seeddb: \(shown): \(line)\n", to: .standardError)
    }

    /// Writes all of `text` to `descriptor`; a write that fails (a closed pipe) is not
    /// reported, as no line could say it. Not `FileHandle.write(Data(…))`: building the
    /// `Data` from a sequence casts it dynamically, which on the first run scans every
    /// protocol conformance in the binary (a twentieth of the startup check's work).
    static func write(_ text: String, to descriptor: FileDescriptor) {
        var text = text
        _ = text.withUTF8 { bytes in try? descriptor.writeAll(bytes) }
    }


    /// Whether to colour what goes to standard error.
    static let useColour: Bool = {
        let noColour = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return !noColour && isatty(STDERR_FILENO) == 1
    }()

    /// The width of the terminal on standard error (`TIOCGWINSZ`), else `$COLUMNS`, else 80.
    static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        return 80
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
        Terminal.printLabelled(event.level >= .error ? "error" : "warning", "\(event.message)")
    }
}
