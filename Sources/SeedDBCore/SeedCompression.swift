/// How a seed file is compressed, told by its name: packages may ship `levels.sqlite.zst`.
public enum SeedCompression: String, Sendable, CaseIterable {
    /// A plain SQLite database.
    case none
    /// Zstandard (`.zst`): the default for `pack --compress`; decompresses about 7× faster than gzip.
    case zstd
    /// gzip (`.gz`).
    case gzip

    /// The compression a file name's suffix says.
    public init(path: String) {
        if path.hasSuffix(".zst") {
            self = .zstd
        } else if path.hasSuffix(".gz") {
            self = .gzip
        } else {
            self = .none
        }
    }

    /// The file-name suffix, `""` for none.
    public var suffix: String {
        switch self {
        case .none: return ""
        case .zstd: return ".zst"
        case .gzip: return ".gz"
        }
    }

    /// `name` without this compression's suffix.
    public func stripping(_ name: String) -> String {
        guard !suffix.isEmpty, name.hasSuffix(suffix), name.count > suffix.count else { return name }
        return String(name.dropLast(suffix.count))
    }
}
