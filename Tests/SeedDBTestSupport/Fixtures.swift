import Foundation

// The test fixtures every test target uses, in one test-support target (as
// swift-argument-parser's `ArgumentParserTestHelpers`).

/// A fresh directory under `/tmp` (made with `mkdtemp`), removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory.
    public let path: String

    /// - Parameter prefix: The start of the directory's name, to tell suites apart.
    public init(prefix: String = "seeddb-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name`; its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(text.utf8))
        return file(name)
    }

    /// The text of `name`, if it exists.
    public func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The demo seeds in the repository's `Seeds/` folder.
public enum DemoSeeds {
    /// `Seeds/`.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Seeds"
    /// The demo seed, version 1.
    public static let v1 = folder + "/v1/levels.sqlite"
    /// The demo seed, version 2.
    public static let v2 = folder + "/v2/levels.sqlite"
}

/// A small, fast, seedable generator (SplitMix64): the same seed, the same sequence, so
/// a failure found with it replays exactly.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
