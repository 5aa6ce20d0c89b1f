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
        try reading(bytes, rules: rules) { (parser) throws(SeedDBError) in try parser.value(depth: 0, keeping: .path(only[...])) }
    }

    /// Reads `bytes` as one JSON value with `read`, which reads the value through the
    /// parser it is handed (``Parser/readMembers(depth:_:)`` and the other readers) and
    /// builds what it returns straight from the bytes, with no ``JSONValue`` between. The
    /// text is checked whole, as ``parse(_:rules:only:)`` checks it: a leading UTF-8
    /// byte-order mark is skipped, nothing but whitespace may follow the value.
    ///
    /// - Throws: ``SeedDBError`` `invalidManifest`, as ``parse(_:rules:only:)``.
    static func reading<Result>(
        _ bytes: ArraySlice<UInt8>, rules: Rules, _ read: (inout Parser) throws(SeedDBError) -> Result
    ) throws(SeedDBError) -> Result {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes
        // Read through a buffer pointer: every byte is looked at, and an array slice's
        // subscript checks its bounds each time (most of the startup check's parse).
        return try text.withUnsafeBufferPointer { (buffer) throws(SeedDBError) in
            var parser = Parser(bytes: buffer, rules: rules)
            try parser.skipWhitespace()
            let value = try read(&parser)
            try parser.skipWhitespace()
            if parser.current != nil {
                throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
            }
            return value
        }
    }

    /// Which part of a value the parser builds.
    enum Keeping {
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

    /// An object's key as read, with where it starts (for a message about it).
    struct Key {
        /// The key's text, escapes decoded.
        let text: String
        /// Whether the text is all ASCII (`false` as well for any key with a `\u` escape).
        let isASCII: Bool
        fileprivate let line: Int, lineStart: Int, index: Int
    }

    /// Reads JSON text: checks it against the ``Rules`` and builds ``JSONValue``s, or
    /// hands its objects' members to a reader that decodes them itself
    /// (``JSONValue/reading(_:rules:_:)``).
    struct Parser {
        /// The text, valid for the parse only.
        private let bytes: UnsafeBufferPointer<UInt8>
        private let rules: Rules
        private var index: Int
        private var line = 1
        private var lineStart: Int
        /// The keys and indexes leading to the value being read.
        private var trail: [Step] = []
        /// Whether every object read refuses a key that only looks like an earlier one of
        /// its own, as a kept object does (``keep(_:forKey:in:)``), whether or not its
        /// values are kept: set while a value that was once kept whole is read by a reader
        /// that builds no ``JSONValue`` (a settings entry).
        var refusesLookalikeKeys = false

        fileprivate init(bytes: UnsafeBufferPointer<UInt8>, rules: Rules) {
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
            // A local position: the settings file is indented, and this loop sees a third
            // of its bytes.
            var position = index
            defer { index = position }
            while position < bytes.endIndex {
                switch bytes[position] {
                case 0x20, 0x09, 0x0D: position += 1
                case 0x0A:
                    position += 1
                    line += 1
                    lineStart = position
                default: return
                }
            }
        }

        /// Steps past `byte`, or fails with "expected `what`". `what` is made only for the
        /// error: after every member of an object, a text built and dropped cost more than
        /// the member's reading (the startup check reads a settings entry).
        mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(SeedDBError) {
            guard current == byte else { throw error("expected \(what()), found \(describeCurrent())") }
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
            var members: [String: JSONValue] = [:]
            // Room for a small object's members without growing the table step by step.
            if keeping.keepsAnything { members.reserveCapacity(8) }
            _ = try readMembers(depth: depth) { (parser, key, depth) throws(SeedDBError) in
                let member = keeping.member(key.text)
                let value = try parser.value(depth: depth, keeping: member)
                if member.keepsAnything { try parser.keep(value, forKey: key, in: &members) }
            }
            return .object(members)
        }

        /// Reads an object, handing `member` each key in turn; `member` reads the key's
        /// value (at the depth it is handed) and nothing more. A value that is not an
        /// object is read and left out, and the result is `false`.
        mutating func readMembers(
            depth: Int, _ member: (inout Parser, Key, _ depth: Int) throws(SeedDBError) -> Void
        ) throws(SeedDBError) -> Bool {
            guard depth < JSONValue.maximumDepth else { throw error("nested more than \(JSONValue.maximumDepth) levels deep") }
            guard current == UInt8(ascii: "{") else {
                try skipValue(depth: depth)
                return false
            }
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return true
            }
            // The keys seen, to refuse a duplicate (strict rules).
            var keys: Set<String> = []
            // With ``refusesLookalikeKeys``, the keys seen, by their text: only once one
            // that is not ASCII comes (two keys that only look alike never are both ASCII).
            var lookalikes: [String: Void]?
            let objectStart = index - 1
            while true {
                guard current == UInt8(ascii: "\"") else {
                    if current == UInt8(ascii: "}") {
                        guard rules == .lenient else { throw error("trailing comma before '}'") }
                        index += 1
                        return true
                    }
                    throw error("expected a key in quotes, found \(describeCurrent())")
                }
                let (keyLine, keyLineStart, keyIndex) = (line, lineStart, index)
                let (text, isASCII) = try scanString()
                let key = Key(text: text, isASCII: isASCII, line: keyLine, lineStart: keyLineStart, index: keyIndex)
                trail.append(.key(key.text))
                if rules == .strict, !keys.insert(key.text).inserted {
                    throw error(at: key, "duplicate key \"\(path)\"")
                }
                if refusesLookalikeKeys {
                    if lookalikes == nil, !key.isASCII {
                        lookalikes = [:]
                        for earlier in earlierKeys(ofObjectAt: objectStart, before: key.index) { lookalikes![earlier] = () }
                    }
                    if lookalikes != nil { try keep((), forKey: key, in: &lookalikes!) }
                }
                try skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' after a key")
                try skipWhitespace()
                try member(&self, key, depth + 1)
                trail.removeLast()
                guard try nextMember(closing: UInt8(ascii: "}")) else { return true }
            }
        }

        /// The keys of the object whose `{` is at `start`, up to the key at `end`: a text
        /// read once already, without a fault.
        private func earlierKeys(ofObjectAt start: Int, before end: Int) -> [String] {
            var scan = Parser(bytes: bytes, rules: .lenient)
            scan.index = start + 1
            var keys: [String] = []
            do {
                try scan.skipWhitespace()
                while scan.index < end, scan.current == UInt8(ascii: "\"") {
                    keys.append(try scan.string())
                    try scan.skipWhitespace()
                    try scan.expect(UInt8(ascii: ":"), "':' after a key")
                    try scan.skipWhitespace()
                    try scan.skipValue(depth: 0)
                    guard try scan.nextMember(closing: UInt8(ascii: "}")) else { break }
                }
            } catch {
                return keys
            }
            return keys
        }

        /// Keeps `value` under `key` in `members`, as an object read leniently keeps it: a
        /// key with the same bytes as an earlier one replaces its value. A key `String`
        /// takes for an earlier one (`é` and `e` + U+0301) is another key to the file's
        /// writer and to `JSONSerialization`: refused rather than merged into the earlier
        /// one, which keeps its own spelling.
        func keep<Value>(_ value: Value, forKey key: Key, in members: inout [String: Value]) throws(SeedDBError) {
            if members.updateValue(value, forKey: key.text) != nil, let earlier = members.lookalikeKey(of: key.text) {
                throw error(at: key, "key \(NameRules.escaped(key.text)) looks like the earlier \(NameRules.escaped(earlier)) but is written with other characters (another Unicode normalization); the two cannot both be kept")
            }
        }

        /// The error `message` about `key`, at the key's line and column.
        func error(at key: Key, _ message: String) -> SeedDBError {
            SeedDBError(.invalidManifest, "line \(key.line), column \(column(of: key.index, lineStart: key.lineStart)): \(message)")
        }

        /// Reads a value and leaves it out.
        mutating func skipValue(depth: Int) throws(SeedDBError) {
            _ = try value(depth: depth, keeping: .nothing)
        }

        /// Reads a string; `nil`, the value read and left out, when it is not one.
        mutating func readString(depth: Int) throws(SeedDBError) -> String? {
            guard current == UInt8(ascii: "\"") else {
                try skipValue(depth: depth)
                return nil
            }
            return try string()
        }

        /// Reads a SHA-256 digest written as a string of 64 hex digits; `nil`, the value
        /// read and left out, when it is not a string or not a digest. The digits are
        /// decoded straight from the text when no escape is among them.
        mutating func readDigest(depth: Int) throws(SeedDBError) -> SHA256Digest? {
            let closingQuote = index + 65
            if current == UInt8(ascii: "\""), closingQuote < bytes.endIndex, bytes[closingQuote] == UInt8(ascii: "\""),
               let digest = SHA256Digest(hexDigits: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<closingQuote])) {
                index = closingQuote + 1
                return digest
            }
            return try readString(depth: depth).flatMap { try? SHA256Digest(hex: $0) }
        }

        /// Reads `true` or `false`; `nil`, the value read and left out, for anything else.
        mutating func readBool(depth: Int) throws(SeedDBError) -> Bool? {
            try value(depth: depth, keeping: .nothing).bool
        }

        /// Reads a number with no fraction, exact in 64 bits (``JSONValue/integer``); `nil`,
        /// the value read and left out, for anything else.
        mutating func readInteger(depth: Int) throws(SeedDBError) -> Int64? {
            guard let first = current, first == UInt8(ascii: "-") || first.isASCIIDigit else {
                try skipValue(depth: depth)
                return nil
            }
            let start = index
            try number()
            // Digits alone (most numbers) are read here; a fraction or an exponent as
            // `JSONValue` reads it.
            let negative = bytes[start] == UInt8(ascii: "-")
            var value: Int64 = 0
            for byte in bytes[(negative ? start + 1 : start)..<index] {
                let digit = Int64(byte &- UInt8(ascii: "0"))
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, carry) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard byte.isASCIIDigit, !overflow, !carry else {
                    return JSONValue.number(String(decoding: bytes[start..<index], as: UTF8.self)).integer
                }
                value = next
            }
            return value
        }

        /// Reads a number with no fraction, exact in 64 bits unsigned
        /// (``JSONValue/unsignedInteger``); `nil`, the value read and left out, for anything
        /// else.
        mutating func readUnsignedInteger(depth: Int) throws(SeedDBError) -> UInt64? {
            try value(depth: depth, keeping: .path([])).unsignedInteger
        }

        /// Reads an array, handing `element` each index in turn; `element` reads the
        /// element (at the depth it is handed) and nothing more. A value that is not an
        /// array is read and left out, and the result is `false`.
        mutating func readElements(
            depth: Int, _ element: (inout Parser, _ depth: Int) throws(SeedDBError) -> Void
        ) throws(SeedDBError) -> Bool {
            guard depth < JSONValue.maximumDepth else { throw error("nested more than \(JSONValue.maximumDepth) levels deep") }
            guard current == UInt8(ascii: "[") else {
                try skipValue(depth: depth)
                return false
            }
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return true
            }
            var count = 0
            while true {
                if current == UInt8(ascii: "]") {
                    guard rules == .lenient else { throw error("trailing comma before ']'") }
                    index += 1
                    return true
                }
                trail.append(.index(count))
                try element(&self, depth + 1)
                trail.removeLast()
                count += 1
                guard try nextMember(closing: UInt8(ascii: "]")) else { return true }
            }
        }

        /// Reads an array of strings; `nil`, the value read to its end, when it is not an
        /// array or an element is not a string.
        mutating func readStrings(depth: Int) throws(SeedDBError) -> [String]? {
            var texts: [String] = []
            var allStrings = true
            let isArray = try readElements(depth: depth) { (parser, depth) throws(SeedDBError) in
                if let text = try parser.readString(depth: depth) { texts.append(text) } else { allStrings = false }
            }
            return isArray && allStrings ? texts : nil
        }

        mutating func array(depth: Int, keeping: Keeping) throws(SeedDBError) -> JSONValue {
            var elements: [JSONValue] = []
            let kept = keeping.elements
            _ = try readElements(depth: depth) { (parser, depth) throws(SeedDBError) in
                let element = try parser.value(depth: depth, keeping: kept)
                if kept.keepsAnything { elements.append(element) }
            }
            return .array(elements)
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
            guard let first = current, first.isASCIIDigit else { throw error("expected a digit, found \(describeCurrent())") }
            index += 1
            if first != UInt8(ascii: "0") {
                while let byte = current, byte.isASCIIDigit { index += 1 }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let byte = current, byte.isASCIIDigit else { throw error("expected a digit after '.', found \(describeCurrent())") }
                while let byte = current, byte.isASCIIDigit { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, byte.isASCIIDigit else { throw error("expected a digit in the exponent, found \(describeCurrent())") }
                while let byte = current, byte.isASCIIDigit { index += 1 }
            }
        }

        /// Reads a string and returns its text, escapes decoded.
        mutating func string() throws(SeedDBError) -> String {
            try scanString().text
        }

        /// Reads a string and returns its text, escapes decoded, and whether it is all
        /// ASCII (said of none with a `\u` escape, which may spell a character that is not).
        private mutating func scanString() throws(SeedDBError) -> (text: String, isASCII: Bool) {
            index += 1
            var text = ""
            var runStart = index
            var ascii = true
            var allASCII = true
            while true {
                // The bytes that need no look are passed over with a local position.
                var position = index
                while position < bytes.endIndex, bytes[position] >= 0x20, bytes[position] < 0x80,
                      bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                    position += 1
                }
                index = position
                guard let byte = current else { throw error("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    let run = try decodedRun(from: runStart, ascii: ascii)
                    index += 1
                    // Most strings have no escape: their one run is the text.
                    return (text.isEmpty ? run : text + run, allASCII && ascii)
                case UInt8(ascii: "\\"):
                    text += try decodedRun(from: runStart, ascii: ascii)
                    index += 1
                    allASCII = allASCII && ascii && current != UInt8(ascii: "u")
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
                guard let digit = current, let nibble = Hex.value(ofDigit: digit) else { throw error("expected four hex digits after \\u") }
                value = value << 4 | UInt32(nibble)
                index += 1
            }
            return value
        }
    }
}
