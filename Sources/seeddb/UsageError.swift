import ArgumentParser
import Foundation

/// Usage errors the way git and cargo print them: `seeddb: error: <one line>`, exit 64.
///
/// swift-argument-parser decodes and validates a command before it looks for unknown
/// options, and reads an unknown subcommand as an unknown option of the root; this type
/// looks at the arguments again, only once parsing has failed, to name the real mistake
/// (`unknown command \`deploi\`; did you mean \`deploy\`?`, `unknown option \`--manfest\`;
/// did you mean \`--manifest\`?`).
struct UsageError: Error {
    /// The one-line message.
    var message: String

    /// The usage error `error` (thrown while parsing `arguments`) amounts to, or `nil` when
    /// it is not a usage error (help, a completion script, an exit status).
    static func diagnose(_ error: any Error, arguments: [String]) -> UsageError? {
        if let error = error as? UsageError { return error }
        // An exit status from a command's run: its error line is already printed.
        if error is ExitCode { return nil }
        guard SeedDBCommand.exitCode(for: error).rawValue == 64 else { return nil }
        if let unknown = unknownCommand(in: arguments) { return unknown }
        if let unknown = unknownOption(in: arguments) { return unknown }
        return UsageError(message: rephrased(oneLine(SeedDBCommand.message(for: error))))
    }

    /// swift-argument-parser's `The value 'x' is invalid for '--mode <octal>': why` as
    /// `invalid --mode 'x': why`, or as `why (--app)` when the reason already starts
    /// `invalid … "x"` (SeedDB's own messages do).
    static func rephrased(_ message: String) -> String {
        let head = "the value '"
        guard message.hasPrefix(head), let valueEnd = message.range(of: "' is invalid for '") else { return message }
        let value = message[message.index(message.startIndex, offsetBy: head.count)..<valueEnd.lowerBound]
        let afterValue = message[valueEnd.upperBound...]
        guard let optionEnd = afterValue.range(of: "'") else { return message }
        let option = afterValue[..<optionEnd.lowerBound].split(separator: " ").first.map(String.init) ?? ""
        var reason = String(afterValue[optionEnd.upperBound...])
        if reason.hasPrefix(": ") {
            reason.removeFirst(2)
            if reason.hasPrefix("invalid ") { return "\(reason) (\(option))" }
        } else if reason.hasPrefix(". Please provide one of ") {
            reason = "expected one of " + reason.dropFirst(". Please provide one of ".count).replacingOccurrences(of: "'", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "."))
        } else {
            reason = ""
        }
        return "invalid \(option) '\(value)'" + (reason.isEmpty ? "" : ": " + reason)
    }

    /// Refuses `seeddb help NAME` for a NAME that is no subcommand (swift-argument-parser
    /// would print the root's help and exit 0).
    static func checkHelpRequest(_ arguments: [String]) throws(UsageError) {
        guard arguments.first == "help" else { return }
        for word in arguments.dropFirst() where !word.hasPrefix("-") && !subcommandNames.contains(word) {
            throw UsageError(message: "unknown command `\(word)`\(suggestion(for: word, among: subcommandNames))")
        }
    }

    /// `--wait -1` as `--wait=-1`: a negative number after a long option is its value (so
    /// that the option's own check explains what is wrong), not an unknown short option.
    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" {
                result += arguments[index...]
                break
            }
            let next = index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            if word.hasPrefix("--"), !word.contains("="), let next, next.count > 1, next.hasPrefix("-"),
               Double(next) != nil {
                result.append(word + "=" + next)
                index += 2
            } else {
                result.append(word)
                index += 1
            }
        }
        return result
    }

    // MARK: - Diagnosis

    private static var subcommandNames: [String] {
        SeedDBCommand.configuration.subcommands.compactMap { $0.configuration.commandName }
    }

    /// The subcommand the arguments name first, if any.
    private static func subcommand(in arguments: [String]) -> String? {
        arguments.first.flatMap { subcommandNames.contains($0) ? $0 : nil }
    }

    private static func unknownCommand(in arguments: [String]) -> UsageError? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help",
              !subcommandNames.contains(first) else { return nil }
        return UsageError(message: "unknown command `\(first)`\(suggestion(for: first, among: subcommandNames + ["help"]))")
    }

    private static func unknownOption(in arguments: [String]) -> UsageError? {
        guard let name = subcommand(in: arguments) else { return nil }
        let known = longOptionNames(of: name) + ["help"]
        for word in arguments.dropFirst() {
            if word == "--" { break }
            guard word.hasPrefix("--"), word.count > 2 else { continue }
            let option = String(word.dropFirst(2).prefix { $0 != "=" })
            guard !known.contains(option) else { continue }
            let hint = suggestion(for: "--" + option, among: known.map { "--" + $0 })
            return UsageError(message: "unknown option `--\(option)`\(hint)")
        }
        return nil
    }

    /// The long option names of subcommand `name`, from swift-argument-parser's own
    /// description of the command tree.
    private static func longOptionNames(of name: String) -> [String] {
        guard let data = SeedDBCommand._dumpHelp().data(using: .utf8),
              let tool = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let root = tool["command"] as? [String: Any],
              let commands = root["subcommands"] as? [[String: Any]],
              let command = commands.first(where: { $0["commandName"] as? String == name }),
              let arguments = command["arguments"] as? [[String: Any]] else { return [] }
        return arguments.flatMap { argument in
            (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                name["kind"] as? String == "long" ? name["name"] as? String : nil
            }
        }
    }

    /// `; did you mean \`x\`?` for the closest of `candidates` within a small edit
    /// distance, else nothing.
    static func suggestion(for word: String, among candidates: [String]) -> String {
        let scored = candidates.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= max(2, word.count / 3) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return "; did you mean `\(best.0)`?"
    }

    /// The Levenshtein distance between `a` and `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// swift-argument-parser's message as one line, starting lower-case like SeedDB's own.
    static func oneLine(_ message: String) -> String {
        let joined = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        guard let first = joined.first, first.isUppercase,
              joined.dropFirst().first.map({ $0.isLowercase || $0 == " " }) ?? true else { return joined }
        return first.lowercased() + joined.dropFirst()
    }
}
