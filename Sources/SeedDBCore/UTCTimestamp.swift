/// A UTC time as an ISO 8601 timestamp: ``basic(secondsSinceEpoch:)`` (`20261126T071500Z`,
/// safe in a file name) and ``extended(secondsSinceEpoch:)`` (`2026-11-26T07:15:00Z`, a
/// record's `deployedAt`). For the years 0 to 9999 each sorts in time order as text.
///
/// The date is computed from the seconds since the Unix epoch in the proleptic Gregorian
/// calendar (Howard Hinnant's `civil_from_days`), so making one reads nothing: the C
/// library's `gmtime_r` reads `/etc/localtime` on its first use, and Foundation's date
/// formatting loads ICU's time-zone data (about 2 ms of a deploy's process), either of
/// which a deploy would pay for.
package enum UTCTimestamp {
    /// The basic-format timestamp of the time `seconds` after 1970-01-01T00:00:00Z (before
    /// it, when negative): `20261126T071500Z`. A year below 1000 is written with four
    /// digits, below 0 with a sign.
    package static func basic(secondsSinceEpoch seconds: Int64) -> String {
        format(seconds, separated: false)
    }

    /// Whether `text` has the shape of a basic-format timestamp, as ``basic(secondsSinceEpoch:)``
    /// writes one: an optional `-`, eight or more digits (the year's four or more, the
    /// month's and day's two), `T`, six digits, `Z`. The fields' ranges are not checked.
    package static func hasBasicShape(_ text: some BidirectionalCollection<UInt8>) -> Bool {
        let unsigned = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
        guard let time = unsigned.firstIndex(of: UInt8(ascii: "T")) else { return false }
        let date = unsigned[..<time], clock = unsigned[unsigned.index(after: time)...]
        return date.count >= 8 && date.allSatisfy(\.isASCIIDigit)
            && clock.count == 7 && clock.dropLast().allSatisfy(\.isASCIIDigit) && clock.last == UInt8(ascii: "Z")
    }

    /// The extended-format timestamp of the time `seconds` after 1970-01-01T00:00:00Z, as
    /// Foundation's `Date.ISO8601Format()` writes it for a Gregorian date:
    /// `2026-11-26T07:15:00Z`.
    package static func extended(secondsSinceEpoch seconds: Int64) -> String {
        format(seconds, separated: true)
    }

    /// The timestamp, with `-` between the date's fields and `:` between the time's when
    /// `separated`, written straight into the string's storage (the startup check makes
    /// one for every run).
    private static func format(_ seconds: Int64, separated: Bool) -> String {
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let date = civilDate(daysSinceEpoch: days)
        // A sign, up to 19 digits of year and the 16 other characters at most.
        return String(unsafeUninitializedCapacity: 40) { text in
            var count = 0
            func write(_ value: Int64, width: Int) {
                if value < 0 {
                    text[count] = UInt8(ascii: "-")
                    count += 1
                }
                var digits = value.magnitude
                var length = 1
                while digits >= 10 {
                    digits /= 10
                    length += 1
                }
                length = max(length, width)
                digits = value.magnitude
                for position in stride(from: count + length - 1, through: count, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(digits % 10)
                    digits /= 10
                }
                count += length
            }
            func write(_ character: Unicode.Scalar) {
                text[count] = UInt8(ascii: character)
                count += 1
            }
            write(date.year, width: 4)
            if separated { write("-") }
            write(date.month, width: 2)
            if separated { write("-") }
            write(date.day, width: 2)
            write("T")
            write(secondOfDay / 3600, width: 2)
            if separated { write(":") }
            write(secondOfDay / 60 % 60, width: 2)
            if separated { write(":") }
            write(secondOfDay % 60, width: 2)
            write("Z")
            return count
        }
    }

    /// The year, month (1–12) and day (1–31) `days` after 1970-01-01.
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        // Days since 0000-03-01, counted in 400-year eras of 146,097 days each, so that
        // the leap day ends each year of the count.
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day)
    }

    /// The quotient rounded down and the remainder, which is never negative.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
