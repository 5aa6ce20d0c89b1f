import Foundation
import SeedDBCore

/// The text framing minisign's key and signature files share: comment lines
/// (`untrusted comment: …`, `trusted comment: …`) and lines of base64.
enum MinisignFile {
    /// The prefix of a file's first line.
    static let untrustedPrefix = "untrusted comment: "
    /// The prefix of a signature's third line.
    static let trustedPrefix = "trusted comment: "

    /// The file's lines, without line ends (`\n` or `\r\n`); empty trailing lines dropped.
    static func lines(_ bytes: [UInt8]) -> [String] {
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// The bytes of a base64 line, when it decodes to exactly `count` bytes.
    static func decode(_ line: String, count: Int) -> [UInt8]? {
        guard let data = Data(base64Encoded: line.trimmingCharacters(in: .whitespaces)), data.count == count else { return nil }
        return Array(data)
    }

    /// `bytes` as one base64 line.
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// The signature algorithm tags: `Ed` (the message itself is signed) and `ED` (its
    /// BLAKE2b-512 is, minisign's "prehashed" form for large files).
    static let legacyTag: [UInt8] = Array("Ed".utf8)
    static let prehashedTag: [UInt8] = Array("ED".utf8)
}
