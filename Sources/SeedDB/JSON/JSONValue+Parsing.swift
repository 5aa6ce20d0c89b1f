import SeedDBCore

extension JSONValue {
    /// How strictly a text is read.
    enum Rules {
        /// RFC 8259 and no duplicate keys: a manifest. `JSONSerialization` accepts trailing
        /// commas and keeps the last of two equal keys without a word, so a manifest with
        /// `"app"` twice would silently deploy to the second app; this refuses both.
        case strict
        /// What `JSONSerialization` took, for the settings store an app and its tools also
        /// write: trailing commas, and the last of two equal keys.
        case lenient
    }

    /// The deepest nesting accepted.
    static let maximumDepth = 512

    /// Parses `bytes` as one JSON value; a leading UTF-8 byte-order mark is skipped.
    ///
    /// - Parameters:
    ///   - rules: How strictly to read.
    ///   - only: A path of object keys (`["seeddb", "levels.sqlite"]`): below the
    ///     top-level object only the members on this path are kept, everything else is
    ///     checked and left out. Empty keeps everything.
    /// - Throws: ``SeedDBError`` `invalidManifest`: `not valid JSON: line L, column C:
    ///   <what is wrong>` (both from 1; columns count Unicode scalars), `line L, column C:
    ///   duplicate key "<path>"`, or (lenient rules, a member kept) `line L, column C: key
    ///   … looks like the earlier …`: the same text as an earlier key in another Unicode
    ///   normalization, which `String` takes for the same key.
    static func parse(_ bytes: ArraySlice<UInt8>, rules: Rules, only: [String] = []) throws(SeedDBError) -> JSONValue {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes
        // Read through a buffer pointer: every byte is looked at, and an array slice's
        // subscript checks its bounds each time (most of the startup check's parse).
        return try text.withUnsafeBufferPointer { (buffer) throws(SeedDBError) in
            var parser = Parser(bytes: buffer, rules: rules)
            try parser.skipWhitespace()
            let value = try parser.value(depth: 0, keeping: .path(only[...]))
            try parser.skipWhitespace()
            if parser.current != nil {
                throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
            }
            return value
        }
    }

    /// Which part of a value the parser builds.
    private enum Keeping {
        /// The members on this path of keys, and all of the value when the path is empty.
        case path(ArraySlice<String>)
        /// Nothing: the value is checked and left out (``JSONValue/null`` stands for it).
        case nothing

        /// What to keep of the member `key` of an object kept this way.
        func member(_ key: String) -> Keeping {
            guard case .path(let path) = self else { return .nothing }
            guard let first = path.first else { return self }
            return first == key ? .path(path.dropFirst()) : .nothing
        }

        /// What to keep of the elements of an array kept this way.
        var elements: Keeping {
            if case .path(let path) = self, path.isEmpty { return self }
            return .nothing
        }

        var keepsAnything: Bool {
            if case .path = self { return true }
            return false
        }
    }

    /// One step of the way from the top to the value being read, for error messages.
    private enum Step {
        case key(String)
        case index(Int)
    }

    private struct Parser {
        /// The text, valid for the parse only.
        let bytes: UnsafeBufferPointer<UInt8>
        let rules: Rules
        var index: Int
        var line = 1
        var lineStart: Int
        /// The keys and indexes leading to the value being read.
        var trail: [Step] = []

        init(bytes: UnsafeBufferPointer<UInt8>, rules: Rules) {
            self.bytes = bytes
            self.rules = rules
            index = bytes.startIndex
            lineStart = bytes.startIndex
            trail.reserveCapacity(8)
        }

        /// `seeds[0].v`: where the value being read is.
        var path: String {
            var text = ""
            for step in trail {
                switch step {
                case .key(let key): text += text.isEmpty ? key : ".\(key)"
                case .index(let number): text += "[\(number)]"
                }
            }
            return text
        }

        /// The column of the byte at `position` on the current line: Unicode scalars since
        /// the line start, plus one. Only computed for a message (it is linear in the line).
        func column(of position: Int, lineStart: Int) -> Int {
            bytes[lineStart..<position].reduce(1) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
        }

        func error(_ message: String) -> SeedDBError {
            SeedDBError(.invalidManifest, "not valid JSON: line \(line), column \(column(of: index, lineStart: lineStart)): \(message)")
        }

        var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        func describeCurrent() -> String {
            guard let current else { return "end of file" }
            if current >= 0x21 && current < 0x7F { return "'\(Character(UnicodeScalar(current)))'" }
            let hex = String(current, radix: 16, uppercase: true)
            return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
        }

        mutating func skipWhitespace() throws(SeedDBError) {
            while let byte = current {
                switch byte {
                case 0x20, 0x09, 0x0D: index += 1
                case 0x0A:
                    index += 1
                    line += 1
                    lineStart = index
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(SeedDBError) {
            guard current == byte else { throw error("expected \(what), found \(describeCurrent())") }
            index += 1
        }

        mutating func value(depth: Int, keeping: Keeping) throws(SeedDBError) -> JSONValue {
            guard depth < JSONValue.maximumDepth else { throw error("nested more than \(JSONValue.maximumDepth) levels deep") }
            switch current ?? 0 {
            case UInt8(ascii: "{"): return try object(depth: depth, keeping: keeping)
            case UInt8(ascii: "["): return try array(depth: depth, keeping: keeping)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                try number()
                return keeping.keepsAnything ? .number(String(decoding: bytes[start..<index], as: UTF8.self)) : .null
            default: throw error("expected a value, found \(describeCurrent())")
            }
        }

        mutating func object(depth: Int, keeping: Keeping) throws(SeedDBError) -> JSONValue {
            index += 1
            try skipWhitespace()
            var members: [String: JSONValue] = [:]
            // Room for a small object's members without growing the table step by step.
            if keeping.keepsAnything { members.reserveCapacity(8) }
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            // The keys seen, to refuse a duplicate (strict rules).
            var keys: Set<String> = []
            while true {
                guard current == UInt8(ascii: "\"") else {
                    if current == UInt8(ascii: "}") {
                        guard rules == .lenient else { throw error("trailing comma before '}'") }
                        index += 1
                        return .object(members)
                    }
                    throw error("expected a key in quotes, found \(describeCurrent())")
                }
                let (keyLine, keyLineStart, keyIndex) = (line, lineStart, index)
                let key = try string()
                trail.append(.key(key))
                if rules == .strict, !keys.insert(key).inserted {
                    let column = column(of: keyIndex, lineStart: keyLineStart)
                    throw SeedDBError(.invalidManifest, "line \(keyLine), column \(column): duplicate key \"\(path)\"")
                }
                try skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' after a key")
                try skipWhitespace()
                let member = keeping.member(key)
                let value = try value(depth: depth + 1, keeping: member)
                // A key `String` takes for an earlier one (`é` and `e` + U+0301) is another
                // key to the file's writer and to `JSONSerialization`: refused rather than
                // merged into the earlier one, which keeps its own spelling.
                if member.keepsAnything, members.updateValue(value, forKey: key) != nil, let earlier = members.lookalikeKey(of: key) {
                    let column = column(of: keyIndex, lineStart: keyLineStart)
                    throw SeedDBError(.invalidManifest, "line \(keyLine), column \(column): key \(NameRules.escaped(key)) looks like the earlier \(NameRules.escaped(earlier)) but is written with other characters (another Unicode normalization); the two cannot both be kept")
                }
                trail.removeLast()
                guard try nextMember(closing: UInt8(ascii: "}")) else { return .object(members) }
            }
        }

        mutating func array(depth: Int, keeping: Keeping) throws(SeedDBError) -> JSONValue {
            index += 1
            try skipWhitespace()
            var elements: [JSONValue] = []
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            let kept = keeping.elements
            var count = 0
            while true {
                if current == UInt8(ascii: "]") {
                    guard rules == .lenient else { throw error("trailing comma before ']'") }
                    index += 1
                    return .array(elements)
                }
                trail.append(.index(count))
                let element = try value(depth: depth + 1, keeping: kept)
                if kept.keepsAnything { elements.append(element) }
                trail.removeLast()
                count += 1
                guard try nextMember(closing: UInt8(ascii: "]")) else { return .array(elements) }
            }
        }

        /// After a member of an object or an element of an array: `true` past a comma (and
        /// the whitespace after it), `false` past the `closing` bracket.
        mutating func nextMember(closing: UInt8) throws(SeedDBError) -> Bool {
            try skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                try skipWhitespace()
                return true
            }
            try expect(closing, "',' or '\(Character(UnicodeScalar(closing)))'")
            return false
        }

        mutating func literal(_ word: String) throws(SeedDBError) {
            for byte in word.utf8 {
                guard current == byte else { throw error("expected \(word), found \(describeCurrent())") }
                index += 1
            }
        }

        mutating func number() throws(SeedDBError) {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, isDigit(first) else { throw error("expected a digit, found \(describeCurrent())") }
            index += 1
            if first != UInt8(ascii: "0") {
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let byte = current, isDigit(byte) else { throw error("expected a digit after '.', found \(describeCurrent())") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, isDigit(byte) else { throw error("expected a digit in the exponent, found \(describeCurrent())") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// Reads a string and returns its text, escapes decoded.
        mutating func string() throws(SeedDBError) -> String {
            index += 1
            var text = ""
            var runStart = index
            var ascii = true
            while true {
                guard let byte = current else { throw error("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    let run = try decodedRun(from: runStart, ascii: ascii)
                    index += 1
                    // Most strings have no escape: their one run is the text.
                    return text.isEmpty ? run : text + run
                case UInt8(ascii: "\\"):
                    text += try decodedRun(from: runStart, ascii: ascii)
                    index += 1
                    try escape(into: &text)
                    (runStart, ascii) = (index, true)
                case 0..<0x20:
                    throw error("control character in a string (escape it)")
                default:
                    if byte >= 0x80 { ascii = false }
                    index += 1
                }
            }
        }

        /// The text of the unescaped bytes from `start` to the current index, which must be
        /// UTF-8 (and are when they are all ASCII).
        mutating func decodedRun(from start: Int, ascii: Bool) throws(SeedDBError) -> String {
            guard start < index else { return "" }
            if ascii { return String(decoding: bytes[start..<index], as: UTF8.self) }
            guard let run = String(validating: bytes[start..<index], as: UTF8.self) else {
                index = start
                throw error("a string that is not UTF-8")
            }
            return run
        }

        mutating func escape(into text: inout String) throws(SeedDBError) {
            let escapeStart = index - 1
            guard let byte = current else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: "b"): text += "\u{08}"
            case UInt8(ascii: "f"): text += "\u{0C}"
            case UInt8(ascii: "n"): text += "\n"
            case UInt8(ascii: "r"): text += "\r"
            case UInt8(ascii: "t"): text += "\t"
            case UInt8(ascii: "u"):
                let unit = try hexUnit()
                var scalar = UnicodeScalar(unit)
                // A surrogate pair is one character; a lone surrogate is not text.
                if (0xD800..<0xDC00).contains(unit), bytes[index...].starts(with: Array("\\u".utf8)) {
                    index += 2
                    let low = try hexUnit()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = UnicodeScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    }
                }
                guard let scalar else {
                    index = escapeStart
                    throw error("a lone surrogate \\u escape")
                }
                text.unicodeScalars.append(scalar)
            default:
                index -= 1
                throw error("invalid escape \\\(Character(UnicodeScalar(byte)))")
            }
        }

        /// Reads the four hex digits of a `\u` escape.
        mutating func hexUnit() throws(SeedDBError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = current, let nibble = hexValue(digit) else { throw error("expected four hex digits after \\u") }
                value = value << 4 | nibble
                index += 1
            }
            return value
        }

        func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
    }
}
