import Foundation
import PropertyBased
import SeedDBCore
import Testing

/// The stamp computed from the epoch seconds alone agrees with the C library's `gmtime_r`
/// at random times from year 1 to 9999 and at the calendar's edges.
@Suite struct CompactTimestampTests {
    /// `gmtime_r` and `%04d%02d%02dT%02d%02d%02dZ`: the reference.
    static func reference(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        _ = gmtime_r(&time, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    @Test func agreesWithTheCLibraryForAnyTime() async {
        await propertyCheck(count: 2000, input: Gen.int64(in: -62_135_596_800...253_402_300_799)) { seconds in
            #expect(CompactTimestamp.of(secondsSinceEpoch: seconds) == Self.reference(seconds))
        }
    }

    /// The edges a formula gets wrong first: the epoch, a second before it, leap days
    /// (2000 is a leap year, 1900 and 2100 are not), a time this year, the end of a year,
    /// the ends of the range.
    @Test(arguments: [
        0, -1, 951_782_400, 951_868_799, -2_203_891_200, 4_107_456_000, 4_107_542_399,
        1_795_680_000, 1_798_761_599, -62_135_596_800, 253_402_300_799,
    ] as [Int64])
    func agreesAtTheEdges(_ seconds: Int64) {
        #expect(CompactTimestamp.of(secondsSinceEpoch: seconds) == Self.reference(seconds))
    }

    @Test func readsAsTheDocumentedShape() {
        #expect(CompactTimestamp.of(secondsSinceEpoch: 1_795_677_300) == "20261126T071500Z")
    }
}
