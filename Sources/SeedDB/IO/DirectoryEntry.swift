import SystemPackage

/// One name in a directory, with the type the directory's entry gives it.
struct DirectoryEntry: Sendable, Hashable {
    /// The name (a file name, never `.` or `..`), decoded as UTF-8: bytes that are not
    /// UTF-8 are shown as U+FFFD (``nameIsExact`` is then `false`).
    let name: String
    /// The file's type as the directory records it (`d_type`, never following a link);
    /// `nil` when the file system does not say (`DT_UNKNOWN`): `lstat` the file to know.
    let type: FileType?
    /// Whether ``name`` has the file's own bytes. A name that is not UTF-8 never names a
    /// file of SeedDB's (its names are text), and a path built from ``name`` does not
    /// reach the file.
    var nameIsExact = true
}
