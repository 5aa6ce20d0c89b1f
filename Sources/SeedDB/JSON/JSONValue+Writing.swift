import SeedDBCore

extension JSONValue {
    /// The value as indented JSON text: two spaces a level, `"key" : value`, keys in
    /// order, `/` unescaped; the layout `JSONSerialization` wrote with `.prettyPrinted`,
    /// `.sortedKeys` and `.withoutEscapingSlashes`, so settings files written before keep
    /// their shape. No newline at the end.
    var prettyPrinted: [UInt8] {
        var output: [UInt8] = []
        write(to: &output, indent: 0)
        return output
    }

    private func write(to output: inout [UInt8], indent: Int) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let text): output += Array(text.utf8)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            Self.writeMembers(elements.count, to: &output, indent: indent) { (index, output) in
                elements[index].write(to: &output, indent: indent + 1)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            let keys = members.keys.sorted()
            output.append(UInt8(ascii: "{"))
            Self.writeMembers(keys.count, to: &output, indent: indent) { (index, output) in
                Self.writeString(keys[index], to: &output)
                output += Array(" : ".utf8)
                members[keys[index]]!.write(to: &output, indent: indent + 1)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The inside of a container of `count` members, each on its own line one level in;
    /// an empty container keeps an empty line, as `JSONSerialization` wrote it.
    private static func writeMembers(_ count: Int, to output: inout [UInt8], indent: Int, _ member: (Int, inout [UInt8]) -> Void) {
        output.append(0x0A)
        for index in 0..<count {
            output += Array(repeating: 0x20, count: 2 * (indent + 1))
            member(index, &output)
            if index < count - 1 { output.append(UInt8(ascii: ",")) }
            output.append(0x0A)
        }
        if count == 0 { output.append(0x0A) }
        output += Array(repeating: 0x20, count: 2 * indent)
    }

    /// `text` in quotes: `"` and `\` escaped, control characters as `\n`, `\t`, `\r`, `\b`,
    /// `\f` or `\u00xx`; everything else as its UTF-8.
    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: output += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: output += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                output += Array("\\u00".utf8) + [Hex.digit(byte >> 4), Hex.digit(byte & 0xF)]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
