#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeedDB

/// A one-line progress display on standard error for long work: a labelled bar (bytes,
/// rate, time left) while a seed is copied (`copying`, the decompressed bytes of a
/// compressed seed) or copied over a working copy in use (`live replace`), and a spinner
/// with the phase's name (`checking`) while a phase that has no fraction runs. Without a
/// known total (a `.gz` seed, a `.zst` whose header does not say), the bar shows bytes and
/// rate only.
///
/// Shown only when standard error is a terminal and the output is for people (not
/// `--json` or `--quiet`): the bar for copies larger than ``threshold``, the spinner for
/// phases that last longer than ``spinnerDelay``. Every line fits the terminal's width
/// (``Terminal/columns``), so it never wraps.
final class ProgressBar: @unchecked Sendable {
    /// Copies up to this size finish too fast to need a bar.
    static let threshold: Int64 = 64 << 20
    /// Phases shorter than this never show a spinner.
    static let spinnerDelay: Duration = .milliseconds(300)

    private let lock = NSLock()
    private let start = ContinuousClock.now
    private let columns: Int
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private var phase: (name: String, start: ContinuousClock.Instant)?
    /// What the bar is counting: the copy of the seed, or a live replace.
    private var label = "copying"
    private var timer: (any DispatchSourceTimer)?
    private var frame = 0

    init(columns: Int = Terminal.columns()) {
        self.columns = columns
    }

    /// A bar if the conditions above hold for this run, else `nil`.
    static func forTerminal(_ output: OutputOptions) -> ProgressBar? {
        guard !output.json, !output.quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        return ProgressBar()
    }

    /// The callback to hand the library.
    var callback: @Sendable (Int64, Int64) -> Void {
        { [self] copied, total in update(copied: copied, total: total) }
    }

    /// An observer for ``DeployConfiguration/stepStarted`` that shows a spinner with the
    /// name of each step that has no fraction to show (`checking`, `carrying`, …) and
    /// clears it when the copy (which has the bar) or a short step starts; `then` is
    /// called first (the fault hooks).
    func stepStarted(then other: (@Sendable (DeployStep) -> Void)?) -> @Sendable (DeployStep) -> Void {
        { [self] step in
            other?(step)
            switch step {
            case .migrate: self.phase("migrating")
            case .check: self.phase("checking")
            case .fingerprint: self.phase("hashing tables")
            case .carry: self.phase("carrying tables")
            case .install: self.phase("installing", bar: "live replace")
            case .stage: self.phase(nil, bar: "copying")
            case .withdraw, .keepPrevious, .relink, .reinstate, .linkSeed, .record, .repairOwnership, .cleanUp: self.endPhase()
            }
        }
    }

    private func update(copied: Int64, total: Int64) {
        guard max(total, copied) > Self.threshold else { return }
        lock.lock()
        defer { lock.unlock() }
        // The bytes have their bar: no spinner over it.
        if phase != nil { stopSpinner() }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100), total <= 0 || copied < total { return }
        lastDraw = now
        draw(Self.render(copied: copied, total: total, elapsed: (now - start).seconds, columns: columns, label: label))
    }

    /// Shows a spinner with `name` (once it has lasted ``spinnerDelay``) until the next
    /// phase, ``endPhase()`` or ``finish()``, or until bytes are counted; a bar drawn
    /// meanwhile is labelled `bar`.
    func phase(_ name: String?, bar: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let bar { label = bar }
        guard let name else { return stopSpinner() }
        phase = (name, ContinuousClock.now)
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
    }

    /// Stops the spinner and clears its line.
    func endPhase() {
        lock.lock()
        defer { lock.unlock() }
        stopSpinner()
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard let phase else { return }
        let elapsed = ContinuousClock.now - phase.start
        guard elapsed >= Self.spinnerDelay else { return }
        frame += 1
        draw(Self.renderPhase(phase.name, frame: frame, elapsed: elapsed.seconds, columns: columns))
    }

    private func stopSpinner() {
        timer?.cancel()
        timer = nil
        phase = nil
        clear()
    }

    /// Draws `line` over the current one. Call with the lock held.
    private func draw(_ line: String) {
        drawn = true
        Terminal.write("\r" + line + "\u{1B}[K", to: .standardError)
    }

    /// Clears the line, if one was drawn. Call with the lock held.
    private func clear() {
        if drawn { Terminal.write("\r\u{1B}[K", to: .standardError) }
        drawn = false
    }

    /// Stops any spinner and clears the line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        stopSpinner()
    }

    /// `| checking  3.2s`, cut to `columns - 1` characters.
    static func renderPhase(_ name: String, frame: Int, elapsed: Double, columns: Int) -> String {
        let spinner = Array("|/-\\")[frame % 4]
        return fit("\(spinner) \(name)  \(String(format: "%.1f", elapsed))s", columns: columns)
    }

    /// The bar line for a terminal `columns` wide: the bar takes what the figures leave
    /// (at most 40 characters); on a narrow terminal the bar goes, then the rate, and what
    /// still does not fit is cut.
    static func render(copied: Int64, total: Int64, elapsed: Double, columns: Int, label: String? = nil) -> String {
        let prefix = label.map { $0 + " " } ?? ""
        guard total > 0 else {
            // No total to measure against: what was counted, and how fast.
            let rate = elapsed > 0 ? Double(copied) / elapsed : 0
            return fit("\(prefix)\(bytes(copied))  \(bytes(Int64(rate)))/s", columns: columns)
        }
        let figures = String(render(copied: copied, total: total, elapsed: elapsed, width: 0).dropFirst(3))
        let room = columns - 1 - prefix.count - figures.count - 3
        if room >= 10 { return prefix + render(copied: copied, total: total, elapsed: elapsed, width: min(room, 40)) }
        if figures.count < columns { return figures }
        let parts = figures.components(separatedBy: "  ")
        let withoutRate = parts.count == 3 ? parts[0] + "  " + parts[2] : figures
        return fit(withoutRate, columns: columns)
    }

    /// `text` cut to leave the terminal's last column free (writing there wraps on some
    /// terminals).
    static func fit(_ text: String, columns: Int) -> String {
        String(text.prefix(max(columns - 1, 1)))
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
