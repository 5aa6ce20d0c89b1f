import SystemPackage

/// One name in a directory, with the type the directory's entry gives it.
struct DirectoryEntry: Sendable, Hashable {
    /// The name (a file name, never `.` or `..`), decoded as UTF-8.
    let name: String
    /// The file's type as the directory records it (`d_type`, never following a link);
    /// `nil` when the file system does not say (`DT_UNKNOWN`): `lstat` the file to know.
    let type: FileType?
}
