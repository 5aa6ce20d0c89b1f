#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-line progress bar on standard error for long copies: bytes, rate, time left.
///
/// Shown only when standard error is a terminal, the output is for people (not `--json`
/// or `--quiet`), and the copy is larger than ``threshold``.
final class ProgressBar: @unchecked Sendable {
    /// Copies up to this size finish too fast to need a bar.
    static let threshold: Int64 = 64 << 20

    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    /// A bar if the conditions above hold for this run, else `nil`.
    static func forTerminal(_ output: OutputOptions) -> ProgressBar? {
        guard !output.json, !output.quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        return ProgressBar()
    }

    /// The callback to hand the library.
    var callback: @Sendable (Int64, Int64) -> Void {
        { [self] copied, total in update(copied: copied, total: total) }
    }

    private func update(copied: Int64, total: Int64) {
        guard total > Self.threshold else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100), copied < total { return }
        lastDraw = now
        drawn = true
        let line = Self.render(copied: copied, total: total, elapsed: (now - start).seconds, width: 24)
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }

    /// Clears the bar's line, if one was drawn.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }

    /// `[#########.......]  412.0 MiB / 1.0 GiB  380.2 MiB/s  2s left`
    static func render(copied: Int64, total: Int64, elapsed: Double, width: Int) -> String {
        let fraction = total > 0 ? min(Double(copied) / Double(total), 1) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let rate = elapsed > 0 ? Double(copied) / elapsed : 0
        let left = rate > 0 ? Int((Double(total - copied) / rate).rounded(.up)) : nil
        return "[\(bar)] \(bytes(copied)) / \(bytes(total))  \(bytes(Int64(rate)))/s  \(left.map { "\($0)s left" } ?? "--")"
    }

    /// `1.0 GiB`, `412.0 MiB`, `12.0 KiB`, `900 B`.
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        guard value >= 1024 else { return "\(count) B" }
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }
}
