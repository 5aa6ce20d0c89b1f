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

    /// `directory` + `/` + `name`, as `directory + "/" + name` spells it, built in one
    /// allocation (the startup check derives its paths on every call).
    package static func joined(_ directory: String, _ name: String) -> String {
        var path = directory
        path.reserveCapacity(directory.utf8.count + 1 + name.utf8.count)
        path += "/"
        path += name
        return path
    }

    /// `path` without trailing slashes (`"/"` stays `"/"`).
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
