/// The few things SeedDB does with path text, written once.
package enum PathText {
    /// The last component of `path` (`"a/b.sqlite"` → `"b.sqlite"`, `"a/b/"` → `"b"`).
    package static func lastComponent(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? ""
    }

    /// The directory part of `path` (`"/a/b"` → `"/a"`, `"/b"` → `"/"`, `"b"` → `"."`).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` without trailing slashes (`"/"` stays `"/"`).
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
