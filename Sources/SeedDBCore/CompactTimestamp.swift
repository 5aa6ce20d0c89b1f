/// A UTC time as an ISO 8601 basic timestamp, `20261126T071500Z`: safe in a file name,
/// and, for the years 0 to 9999, in time order when sorted as text.
///
/// The date is computed from the seconds since the Unix epoch in the proleptic Gregorian
/// calendar (Howard Hinnant's `civil_from_days`), so making one reads nothing: the C
/// library's `gmtime_r` reads `/etc/localtime` on its first use, and Foundation's date
/// formatting loads ICU's time-zone data, either of which the startup check would pay for.
package enum CompactTimestamp {
    /// The timestamp of the time `seconds` after 1970-01-01T00:00:00Z (before it, when
    /// negative); a year below 1000 is written with four digits, below 0 with a sign.
    package static func of(secondsSinceEpoch seconds: Int64) -> String {
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return padded(year, 4) + padded(month, 2) + padded(day, 2) + "T"
            + padded(secondOfDay / 3600, 2) + padded(secondOfDay / 60 % 60, 2) + padded(secondOfDay % 60, 2) + "Z"
    }

    /// The year, month (1–12) and day (1–31) `days` after 1970-01-01.
    private static func civilDate(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
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

    /// `value` in decimal, zero-padded to `width` digits after any sign.
    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
