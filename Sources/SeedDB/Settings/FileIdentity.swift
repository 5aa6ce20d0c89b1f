/// What identifies a file's content without reading it: if none of these changed, the
/// bytes did not either (short of deliberate tampering with timestamps).
public struct FileIdentity: Sendable, Hashable {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64
    /// `st_size`.
    public var size: Int64
    /// `st_mtim` in nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64
}
