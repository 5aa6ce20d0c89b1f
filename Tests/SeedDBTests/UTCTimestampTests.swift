import Foundation
import PropertyBased
import SeedDBCore
import Testing

/// The stamps computed from the epoch seconds alone agree with the C library's `gmtime_r`
/// at random times from year 1 to 9999 and at the calendar's edges, and the extended one
/// with Foundation's `Date.ISO8601Format()`, which it replaces in the records.
@Suite struct UTCTimestampTests {
    /// `gmtime_r` and `format` (its six fields: year, month, day, hour, minute, second).
    static func reference(_ seconds: Int64, _ format: String) -> String {
        var time = time_t(seconds)
        var parts = tm()
        _ = gmtime_r(&time, &parts)
        return String(format: format, parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    static func basicReference(_ seconds: Int64) -> String { reference(seconds, "%04d%02d%02dT%02d%02d%02dZ") }
    static func extendedReference(_ seconds: Int64) -> String { reference(seconds, "%04d-%02d-%02dT%02d:%02d:%02dZ") }

    @Test func agreesWithTheCLibraryForAnyTime() async {
        await propertyCheck(count: 2000, input: Gen.int64(in: -62_135_596_800...253_402_300_799)) { seconds in
            #expect(UTCTimestamp.basic(secondsSinceEpoch: seconds) == Self.basicReference(seconds))
            #expect(UTCTimestamp.extended(secondsSinceEpoch: seconds) == Self.extendedReference(seconds))
        }
    }

    /// Foundation counts the days before 1582-10-15 in the Julian calendar; from then on
    /// both are Gregorian and agree, whole seconds and fractions of one (rounded down).
    @Test func theExtendedOneAgreesWithFoundationSinceTheGregorianCalendar() async {
        await propertyCheck(count: 500, input: Gen.int64(in: -12_219_292_800...253_402_300_799), Gen.int(in: 0...999)) { seconds, milliseconds in
            let date = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
            #expect(UTCTimestamp.extended(secondsSinceEpoch: seconds) == date.ISO8601Format())
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
        #expect(UTCTimestamp.basic(secondsSinceEpoch: seconds) == Self.basicReference(seconds))
        #expect(UTCTimestamp.extended(secondsSinceEpoch: seconds) == Self.extendedReference(seconds))
    }

    /// A year before 0 takes a sign, one after 9999 its fifth digit.
    @Test func writesTheYearsOutsideFourDigits() {
        #expect(UTCTimestamp.basic(secondsSinceEpoch: -62_167_219_200) == "00000101T000000Z")
        #expect(UTCTimestamp.basic(secondsSinceEpoch: -62_167_219_201) == "-00011231T235959Z")
        #expect(UTCTimestamp.extended(secondsSinceEpoch: 253_402_300_800) == "10000-01-01T00:00:00Z")
    }

    @Test func readsAsTheDocumentedShapes() {
        #expect(UTCTimestamp.basic(secondsSinceEpoch: 1_795_677_300) == "20261126T071500Z")
        #expect(UTCTimestamp.extended(secondsSinceEpoch: 1_795_677_300) == "2026-11-26T07:15:00Z")
    }
}
