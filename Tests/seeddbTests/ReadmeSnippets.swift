/// The code blocks a README marks for a test: a line `<!-- MARKER: FILE -->`, then a block
/// opened by `fence` (`` ```swift ``, `` ```yaml ``), taken as `FILE`'s content.
enum ReadmeSnippets {
    /// The marked blocks of `readme`, in its order: file name and code.
    static func marked(_ readme: String, marker: String, fence: String) -> [(file: String, code: String)] {
        let open = "<!-- \(marker): "
        var snippets: [(String, String)] = []
        var pending: String?
        var code: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = code {
                if line == "```" {
                    snippets.append((pending!, lines.joined(separator: "\n") + "\n"))
                    (pending, code) = (nil, nil)
                } else {
                    lines.append(line)
                    code = lines
                }
            } else if line.hasPrefix(open), line.hasSuffix(" -->") {
                pending = String(line.dropFirst(open.count).dropLast(" -->".count))
            } else if pending != nil, line == fence {
                code = []
            }
        }
        return snippets
    }
}
