import Foundation
import Logging
@testable import SeedDB
import Testing

/// A merge of large files, for measuring: set `SEEDDB_MERGE_SCALE` to a folder holding
/// `base.sqlite`, `user.sqlite` and `seed.sqlite`.
@Suite struct MergeScaleTests {
    static let folder = ProcessInfo.processInfo.environment["SEEDDB_MERGE_SCALE"]

    /// The current and peak resident set sizes.
    static func memory() throws -> String {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        return status.split(separator: "\n").filter { $0.hasPrefix("VmRSS") || $0.hasPrefix("VmHWM") }.joined(separator: " ")
    }

    @Test(.enabled(if: folder != nil)) func mergesALargeSeed() throws {
        let folder = try #require(Self.folder)
        let staged = folder + "/staged.sqlite"
        try? FileManager.default.removeItem(atPath: staged)
        // cp, not FileManager (which may read the whole file into memory and spoil the peak).
        let copy = try Process.run(URL(fileURLWithPath: "/bin/cp"), arguments: [folder + "/seed.sqlite", staged])
        copy.waitUntilExit()
        // Reset the peak (VmHWM) so it measures the merge, not the test runner's start.
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        print("before: \(try Self.memory())")
        let start = ContinuousClock.now
        let result = try ThreeWayMerge(policies: MergePolicies(default: .userWins), logger: Logger(label: "scale"))
            .merge(base: folder + "/base.sqlite", user: folder + "/user.sqlite", into: staged)
        let elapsed = ContinuousClock.now - start
        print("merge: \(elapsed), \(try Self.memory()), \(result.summary)")
        #expect(result.summary.updated > 0)
    }
}
