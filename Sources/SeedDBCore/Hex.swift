/// Lower-case hexadecimal text of bytes, written once for digests and blobs.
package enum Hex {
    /// `bytes` as lower-case hex digits, two per byte.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digit(byte >> 4))
            text.append(digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The lower-case hex digit (ASCII) of `value`, 0 to 15.
    package static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The value of hex digit `digit` (ASCII, either case), or `nil` when it is not one.
    package static func value(ofDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes `text` spells in hex digits (either case), or `nil` when it is not an
    /// even run of them.
    package static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(ofDigit: digits[index]), let low = value(ofDigit: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
