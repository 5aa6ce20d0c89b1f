import ArgumentParser
import Foundation
import SeedDB

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
    /// `invalid --mode "x": why`, or as `why (--app)` when the reason already starts
    /// `invalid … "x"` (SeedDB's own messages do). Without a reason, the valid values are
    /// named from the option's placeholder (`--keep-previous <true|false>`: `expected true
    /// or false`). Its other messages quote options and arguments in backticks, as
    /// SeedDB's own do.
    static func rephrased(_ message: String) -> String {
        let head = "the value '"
        guard message.hasPrefix(head), let valueEnd = message.range(of: "' is invalid for '") else {
            return backticked(message)
        }
        let value = String(message[message.index(message.startIndex, offsetBy: head.count)..<valueEnd.lowerBound])
        let afterValue = message[valueEnd.upperBound...]
        guard let optionEnd = afterValue.range(of: "'") else { return message }
        let words = afterValue[..<optionEnd.lowerBound].split(separator: " ").map(String.init)
        let option = words.first ?? ""
        var reason = String(afterValue[optionEnd.upperBound...])
        if reason.hasPrefix(": ") {
            reason.removeFirst(2)
            if reason.hasPrefix("invalid \(option) ") { return reason }
            if reason.hasPrefix("invalid ") { return "\(reason) (\(option))" }
        } else if reason.hasPrefix(". Please provide one of ") {
            let list = reason.dropFirst(". Please provide one of ".count).replacingOccurrences(of: "'", with: "")
                .trimmingCharacters(in: CharacterSet(charactersIn: ".")).replacingOccurrences(of: " and ", with: ", ").replacingOccurrences(of: " or ", with: ", ")
            reason = expected(choices: list.components(separatedBy: ", "))
        } else {
            reason = words.count > 1 ? expected(placeholder: words[1]) : ""
        }
        return "invalid \(option) \(NameRules.quoted(value))" + (reason.isEmpty ? "" : ": " + reason)
    }

    /// What a value of an option with `placeholder` (`<data|cache>`, `<seconds>`) must be.
    private static func expected(placeholder: String) -> String {
        let name = placeholder.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
        let choices = name.split(separator: "|").map(String.init)
        if choices.count > 1 { return expected(choices: choices) }
        switch name {
        case "seconds", "days": return "expected a number of \(name)"
        case "n": return "expected a whole number"
        default: return "expected \(name)"
        }
    }

    /// `expected a, b or c`.
    private static func expected(choices: [String]) -> String {
        guard let last = choices.last, choices.count > 1 else { return "expected " + choices.joined() }
        return "expected " + choices.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `missing value for '--wait <seconds>'` as `missing value for \`--wait <seconds>\``.
    private static func backticked(_ message: String) -> String {
        var result = ""
        var open = false
        for (index, character) in zip(message.indices, message) {
            // An apostrophe inside a word (`seed's`) is not a quote.
            let inWord = index > message.startIndex && message[message.index(before: index)].isLetter
                && message.index(after: index) < message.endIndex && message[message.index(after: index)].isLetter
            if character == "'" && !inWord {
                result.append("`")
                open.toggle()
            } else {
                result.append(character)
            }
        }
        return open ? message : result
    }

    /// Refuses `seeddb help NAME` for a NAME that is no subcommand (swift-argument-parser
    /// would print the root's help and exit 0).
    static func checkHelpRequest(_ arguments: [String]) throws(UsageError) {
        guard arguments.first == "help" else { return }
        for word in arguments.dropFirst() where !word.hasPrefix("-") && !subcommandNames.contains(word) {
            throw UsageError(message: "unknown command `\(word)`\(suggestion(for: word, among: subcommandNames))")
        }
    }

    /// Refuses an option that takes one value (or a flag) given twice, naming both values:
    /// swift-argument-parser would keep the last one silently. Options that may repeat
    /// (`--preserve`, `--trusted-key`) are left alone.
    static func checkRepeatedOptions(_ arguments: [String]) throws(UsageError) {
        var values: [String: [String]] = [:]
        var index = arguments.startIndex + 1
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { break }
            index += 1
            guard word.hasPrefix("--"), word.count > 2 else { continue }
            let name = String(word.dropFirst(2).prefix { $0 != "=" })
            var value: String?
            if let equals = word.firstIndex(of: "=") {
                value = String(word[word.index(after: equals)...])
            } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                value = arguments[index]
            }
            values[name, default: []].append(value ?? "")
        }
        // The dump of the command tree costs more than the scan: only when a name repeats.
        let repeated = values.filter { $0.value.count > 1 }
        guard !repeated.isEmpty, let command = subcommand(in: arguments) else { return }
        let known = optionNames(of: command)
        for word in arguments.dropFirst() {
            let name = String(word.dropFirst(2).prefix { $0 != "=" })
            guard word.hasPrefix("--"), let given = repeated[name], !known.repeating.contains(name) else { continue }
            if known.takingValues.contains(name) {
                throw UsageError(message: "--\(name) given \(given.count == 2 ? "twice" : "\(given.count) times") (\(andList(given.map { NameRules.quoted($0) }))); it takes one value")
            } else if known.long.contains(name) {
                throw UsageError(message: "--\(name) given \(given.count == 2 ? "twice" : "\(given.count) times"); give it once")
            }
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
        let known = optionNames(of: name)
        let longs = known.long + ["help"]
        var takesValue = false
        for word in arguments.dropFirst() {
            if word == "--" { break }
            defer { takesValue = word.hasPrefix("--") && !word.contains("=") && known.takingValues.contains(String(word.dropFirst(2))) }
            guard !takesValue else { continue }
            if word.hasPrefix("--"), word.count > 2 {
                let option = String(word.dropFirst(2).prefix { $0 != "=" })
                guard !longs.contains(option) else { continue }
                let hint = suggestion(for: "--" + option, among: longs.map { "--" + $0 })
                return UsageError(message: "unknown option `--\(option)`\(hint)")
            }
            if word.hasPrefix("-"), !word.hasPrefix("--"), word.count > 1, Double(word) == nil,
               let letter = word.dropFirst().first(where: { !(known.short + ["h"]).contains(String($0)) }) {
                return UsageError(message: "unknown option `-\(letter)`")
            }
        }
        return nil
    }

    /// The option names of subcommand `name`, from swift-argument-parser's own description
    /// of the command tree: long and short names, and the long names that take a value.
    private static func optionNames(of name: String) -> (long: [String], short: [String], takingValues: [String], repeating: [String]) {
        guard let data = SeedDBCommand._dumpHelp().data(using: .utf8),
              let tool = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let root = tool["command"] as? [String: Any],
              let commands = root["subcommands"] as? [[String: Any]],
              let command = commands.first(where: { $0["commandName"] as? String == name }),
              let arguments = command["arguments"] as? [[String: Any]] else { return ([], [], [], []) }
        var names: (long: [String], short: [String], takingValues: [String], repeating: [String]) = ([], [], [], [])
        for argument in arguments {
            for entry in argument["names"] as? [[String: Any]] ?? [] {
                guard let option = entry["name"] as? String else { continue }
                switch entry["kind"] as? String {
                case "long":
                    names.long.append(option)
                    if argument["kind"] as? String == "option" { names.takingValues.append(option) }
                    if argument["isRepeating"] as? Bool == true { names.repeating.append(option) }
                case "short": names.short.append(option)
                default: break
                }
            }
        }
        return names
    }

    /// `; did you mean \`x\`?` for the closest of `candidates` within a small edit
    /// distance, else nothing.
    static func suggestion(for word: String, among candidates: [String]) -> String {
        Spelling.closest(to: word, among: candidates).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// `a`, `a and b`, `a, b and c`.
    static func andList(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.joined() }
        return words.dropLast().joined(separator: ", ") + " and " + last
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
