#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        withBytes(and: prefix) { name, prefix in
            name.hasBytes(prefix)
        }
    }

    /// Whether this name's UTF-8 bytes end with those of `suffix`.
    package func hasByteSuffix(_ suffix: String) -> Bool {
        byteSuffixStart(suffix) != nil
    }

    /// Whether this name and `other` have the same UTF-8 bytes.
    package func hasSameBytes(as other: String) -> Bool {
        withBytes(and: other) { $0.count == $1.count && $0.hasBytes($1) }
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
        let matches = withBytes(and: suffix) { name, suffix in
            name.hasBytes(suffix, at: name.count - suffix.count)
        }
        return matches ? utf8.index(utf8.endIndex, offsetBy: -suffix.utf8.count) : nil
    }

    /// `body` given this name's UTF-8 bytes and `other`'s, each in one piece (a native
    /// string's own storage: compared as a buffer, not byte by byte through `UTF8View`'s
    /// indices, which is most of the startup check's directory read).
    private func withBytes<Result>(and other: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var (name, other) = (self, other)
        return name.withUTF8 { name in other.withUTF8 { body(name, $0) } }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `bytes` are these bytes from `offset` on: one `memcmp`, where a generic
    /// comparison goes byte by byte (the startup check's directory read compares each name
    /// listed).
    package func hasBytes(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int = 0) -> Bool {
        guard offset >= 0, count - offset >= bytes.count else { return false }
        guard let start = baseAddress, let other = bytes.baseAddress else { return true }
        return memcmp(start + offset, other, bytes.count) == 0
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
    @inlinable package var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
