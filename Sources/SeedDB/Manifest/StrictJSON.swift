import Foundation
import SeedDBCore

/// A strict JSON (RFC 8259) checker for manifests, run before Foundation decodes them.
///
/// `JSONSerialization` accepts some input that is not JSON (trailing commas) and keeps
/// the last of two equal keys without a word, so a manifest with `"app"` twice would
/// silently deploy to the second app. This checker refuses both, and says where a syntax
/// error is (`not valid JSON: line L, column C: …`, both from 1; columns count Unicode
/// scalars).
enum StrictJSON {
    /// The deepest nesting accepted.
    static let maximumDepth = 512

    /// Checks that `bytes` are one JSON value with no duplicate keys in any object.
    ///
    /// - Throws: ``SeedDBError`` `invalidManifest`: `not valid JSON: line L, column C: <what
    ///   is wrong>`, or `line L, column C: duplicate key "<path>"`.
    static func validate(_ bytes: ArraySlice<UInt8>) throws(SeedDBError) {
        var parser = Parser(bytes: bytes)
        try parser.skipWhitespace()
        try parser.value(path: "", depth: 0)
        try parser.skipWhitespace()
        if parser.index < bytes.endIndex {
            throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
        }
    }

    private struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int
        var line = 1
        var lineStart: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
            lineStart = bytes.startIndex
        }

        /// The column of the byte at `position` on the current line: Unicode scalars since
        /// the line start, plus one. Only computed for a message (it is linear in the line).
        func column(of position: Int) -> Int {
            bytes[lineStart..<position].reduce(1) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
        }

        func error(_ message: String) -> SeedDBError {
            SeedDBError(.invalidManifest, "not valid JSON: line \(line), column \(column(of: index)): \(message)")
        }

        var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        func describeCurrent() -> String {
            guard let current else { return "end of file" }
            if current >= 0x21 && current < 0x7F { return "'\(Character(UnicodeScalar(current)))'" }
            return String(format: "byte 0x%02X", current)
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

        mutating func value(path: String, depth: Int) throws(SeedDBError) {
            guard depth < StrictJSON.maximumDepth else { throw error("nested more than \(StrictJSON.maximumDepth) levels deep") }
            switch current ?? 0 {
            case UInt8(ascii: "{"): try object(path: path, depth: depth)
            case UInt8(ascii: "["): try array(path: path, depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw error("expected a value, found \(describeCurrent())")
            }
        }

        mutating func object(path: String, depth: Int) throws(SeedDBError) {
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return
            }
            var keys: Set<String> = []
            while true {
                guard current == UInt8(ascii: "\"") else {
                    throw error(current == UInt8(ascii: "}") ? "trailing comma before '}'" : "expected a key in quotes, found \(describeCurrent())")
                }
                let (keyLine, keyLineStart, keyIndex) = (line, lineStart, index)
                let key = try string()
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                guard keys.insert(key).inserted else {
                    let keyColumn = Parser(bytes: bytes[keyLineStart...]).column(of: keyIndex)
                    throw SeedDBError(.invalidManifest, "line \(keyLine), column \(keyColumn): duplicate key \"\(keyPath)\"")
                }
                try skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' after a key")
                try skipWhitespace()
                try value(path: keyPath, depth: depth + 1)
                try skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    try skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return
            }
        }

        mutating func array(path: String, depth: Int) throws(SeedDBError) {
            index += 1
            try skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            var count = 0
            while true {
                if current == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
                try value(path: "\(path)[\(count)]", depth: depth + 1)
                count += 1
                try skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    try skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return
            }
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

        /// Reads a string and returns its text (escapes decoded, for comparing keys).
        mutating func string() throws(SeedDBError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            while true {
                guard let byte = current else { throw error("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                    raw.removeAll()
                    index += 1
                    try escape(into: &scalars)
                case 0..<0x20:
                    throw error("control character in a string (escape it)")
                default:
                    raw.append(byte)
                    index += 1
                }
            }
        }

        mutating func escape(into scalars: inout String.UnicodeScalarView) throws(SeedDBError) {
            guard let byte = current else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(UnicodeScalar(byte))
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var value: UInt32 = 0
                for _ in 0..<4 {
                    guard let digit = current, let nibble = hexValue(digit) else { throw error("expected four hex digits after \\u") }
                    value = value << 4 | nibble
                    index += 1
                }
                // A lone surrogate is not text; it cannot name a key anyone means.
                scalars.append(UnicodeScalar(value) ?? "\u{FFFD}")
            default:
                index -= 1
                throw error("invalid escape \\\(Character(UnicodeScalar(byte)))")
            }
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
