import Foundation
import SeedDB

/// Prints results as text for people, or as one JSON object with `--json`.
struct Printer {
    let output: OutputOptions

    init(_ output: OutputOptions) {
        self.output = output
    }

    func deployReports(_ reports: [DeployReport], dryRun: Bool) {
        emit(json: ["seeds": reports.map { report in
            var pairs: [(String, Any?)] = [
                ("name", report.name.rawValue), ("action", report.action.rawValue),
                ("from", report.from?.rawValue), ("to", report.to.rawValue), ("workingCopy", report.workingCopy)]
            if let strategy = report.strategy { pairs.append(("strategy", strategy.rawValue)) }
            if !report.carried.isEmpty { pairs.append(("carried", report.carried)) }
            return pairs
        }]) {
            reports.map { report in
                let verb = dryRun ? "would be \(report.action.rawValue)" : report.action.rawValue
                let versions = report.action == .unchanged ? "at \(report.to)" : "\(report.from?.rawValue ?? "nothing") -> \(report.to)"
                let how = report.strategy.map { " by \($0.rawValue)" } ?? ""
                return "\(report.name): \(verb)\(how), \(versions) (\(report.workingCopy))"
            }
        }
    }

    func maintenanceReports(_ reports: [MaintenanceReport]) {
        emit(json: ["seeds": reports.map { report in
            [("name", report.name.rawValue), ("action", report.action.rawValue), ("lastRun", report.lastRun),
             ("workingCopy", report.workingCopy)] as [(String, Any?)]
        }]) {
            reports.map { "\($0.name): \($0.action.rawValue) (last run \($0.lastRun ?? "never"), \($0.workingCopy))" }
        }
    }

    func packReport(_ report: SeedPacker.Report, version: String) {
        emit(json: ["output": report.output, "version": version, "sha256": report.sha256.hex, "size": Int64(report.size), "compression": report.compression.rawValue]) {
            ["\(report.output): packed version \(version), \(report.size) bytes, sha256 \(report.sha256)\(report.compression == .none ? "" : ", \(report.compression.rawValue)")"]
        }
    }

    func purgeReports(_ reports: [PurgeReport]) {
        emit(json: ["seeds": reports.map { [("name", $0.name.rawValue), ("removed", $0.removed)] as [(String, Any?)] }]) {
            reports.map { "\($0.name): removed \($0.removed.isEmpty ? "nothing" : $0.removed.joined(separator: ", "))" }
        }
    }

    func statuses(_ statuses: [SeedStatus]) {
        emit(json: ["seeds": statuses.map { status in
            [("name", status.name.rawValue), ("currentVersion", status.currentVersion.rawValue),
             ("recordedVersion", status.recordedVersion?.rawValue), ("workingCopy", status.workingCopy),
             ("exists", status.exists), ("state", status.state.rawValue)] as [(String, Any?)]
        }]) {
            statuses.flatMap { status in [
                "\(status.name): \(status.state.rawValue)",
                "  current version:  \(status.currentVersion)",
                "  recorded version: \(status.recordedVersion?.rawValue ?? "none")",
                "  working copy:     \(status.workingCopy)\(status.exists ? "" : " (does not exist)")",
            ] }
        }
    }

    func verifyReports(_ reports: [VerifyReport]) {
        emit(json: ["seeds": reports.map { report in
            [("name", report.name.rawValue), ("seed", report.seed), ("workingCopy", report.workingCopy)] as [(String, Any?)]
        }]) {
            reports.map { "\($0.name): seed \($0.seed); working copy \($0.workingCopy)" }
        }
    }

    func paths(_ seeds: [(Seed, SeedPaths)]) {
        let settings = seeds.first?.1.settingsFile ?? ""
        emit(json: ["settings": settings, "seeds": seeds.map { seed, paths in
            [("name", seed.name.rawValue), ("source", seed.source), ("location", seed.location.rawValue),
             ("workingCopy", paths.workingCopy)] as [(String, Any?)]
        }]) {
            ["settings: \(settings)"] + seeds.flatMap { seed, paths in [
                "\(seed.name):",
                "  source:       \(seed.source)",
                "  location:     \(seed.location.rawValue)",
                "  working copy: \(paths.workingCopy)",
            ] }
        }
    }

    /// Prints `json` with `--json`, nothing with `--quiet`, and the lines `text` makes
    /// otherwise. Keys print in a fixed order: `settings` first, `seeds` last.
    private func emit(json: [String: Any], text: () -> [String]) {
        if output.quiet { return }
        if output.json {
            let order = ["settings", "output", "version", "sha256", "size", "compression", "seeds"]
            Terminal.printOut(JSONText.object(json.sorted { (order.firstIndex(of: $0.key) ?? 99) < (order.firstIndex(of: $1.key) ?? 99) }.map { ($0.key, $0.value) }))
        } else {
            text().forEach(Terminal.printOut)
        }
    }
}

/// Writes JSON with keys in a chosen order (JSONSerialization sorts or shuffles them).
enum JSONText {
    static func object(_ pairs: [(String, Any?)]) -> String {
        "{" + pairs.map { "\(string($0.0)):\(value($0.1))" }.joined(separator: ",") + "}"
    }

    static func value(_ value: Any?) -> String {
        switch value {
        case nil: return "null"
        case let text as String: return string(text)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Int64: return String(number)
        case let texts as [String]: return "[" + texts.map(string).joined(separator: ",") + "]"
        case let pairs as [(String, Any?)]: return object(pairs)
        case let array as [[(String, Any?)]]: return "[" + array.map(object).joined(separator: ",") + "]"
        default: return string("\(value!)")
        }
    }

    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
