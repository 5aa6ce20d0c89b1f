/// Tests of file names the way the file system makes them: byte for byte.
///
/// `String`'s `==`, `hasPrefix` and `hasSuffix` take canonically equivalent texts for the
/// same (`é`, and `e` followed by U+0301 COMBINING ACUTE ACCENT); a file system does not,
/// and keeps files of both names side by side. A name read from a directory is matched
/// against a working copy's names with these, so one working copy never takes another's
/// generations, sidecars or temporary files for its own. They form no `Character`, which
/// also keeps the startup check's directory read cheap.
extension String {
    /// Whether this name's UTF-8 bytes start with those of `prefix`.
    package func hasBytePrefix(_ prefix: String) -> Bool {
        utf8.starts(with: prefix.utf8)
    }

    /// Whether this name's UTF-8 bytes end with those of `suffix`.
    package func hasByteSuffix(_ suffix: String) -> Bool {
        byteSuffixStart(suffix) != nil
    }

    /// Whether this name and `other` have the same UTF-8 bytes.
    package func hasSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }

    /// The rest of this name after the bytes of `prefix`, or `nil` when it does not start
    /// with them.
    package func removingBytePrefix(_ prefix: String) -> String? {
        // `prefix` is whole scalars, so the rest starts on a scalar boundary.
        utf8.droppingPrefix(prefix.utf8).flatMap(String.init)
    }

    /// This name without the bytes of `suffix` at its end, or `nil` when it does not end
    /// with them.
    package func removingByteSuffix(_ suffix: String) -> String? {
        // `suffix` is whole scalars, and UTF-8 never starts a scalar with a byte that
        // continues one, so what is left ends on a scalar boundary.
        byteSuffixStart(suffix).flatMap { String(utf8[..<$0]) }
    }

    /// Where the bytes of `suffix` start at the end of this name, if they are there.
    private func byteSuffixStart(_ suffix: String) -> String.Index? {
        let bytes = utf8, count = suffix.utf8.count
        guard bytes.count >= count else { return nil }
        let start = bytes.index(bytes.endIndex, offsetBy: -count)
        return bytes[start...].elementsEqual(suffix.utf8) ? start : nil
    }
}

extension Dictionary where Key == String {
    /// The key stored for `name` when it only looks like `name`: equal as `String`s (which
    /// compare `é` and `e` + U+0301 as one) but with other bytes; `nil` when no key is
    /// stored for `name`, or the stored one has its bytes.
    package func lookalikeKey(of name: String) -> String? {
        guard let index = index(forKey: name) else { return nil }
        // The key alone: `self[index]` would copy the value too.
        let stored = keys[index]
        return stored.hasSameBytes(as: name) ? nil : stored
    }
}

extension Collection where Element == UInt8 {
    /// The bytes after `prefix`, when these start with it; a view, nothing is copied.
    package func droppingPrefix(_ prefix: some Collection<UInt8>) -> SubSequence? {
        var position = startIndex
        for byte in prefix {
            guard position != endIndex, self[position] == byte else { return nil }
            formIndex(after: &position)
        }
        return self[position...]
    }
}

extension UInt8 {
    /// Whether this byte is an ASCII digit, `0` to `9`: what the numbers in SeedDB's file
    /// names and timestamps are written with (never another script's digits).
    package var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
