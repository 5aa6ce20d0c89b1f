import SystemPackage

/// What identifies a file's content without reading it: if none of these changed, the
/// bytes did not either. The change time (`st_ctim`) is set by the kernel on every write
/// and cannot be set back by a user, so even a tool that restores the modification time
/// after writing leaves a different identity.
public struct FileIdentity: Sendable, Hashable {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64
    /// `st_size`.
    public var size: Int64
    /// `st_mtim` in nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64
    /// `st_ctim` in nanoseconds since the epoch.
    public var changedNanoseconds: Int64

    /// Creates an identity from its five parts.
    public init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
    }

    /// Whether `other` names the same file with the same content as far as a `stat` tells:
    /// device, inode, size and modification time (not the change time, which a new hard
    /// link, a rename or a `chmod` moves).
    public func sameContent(as other: FileIdentity) -> Bool {
        sameFile(as: other) && size == other.size && modifiedNanoseconds == other.modifiedNanoseconds
    }

    /// Whether `other` names the same file, whatever it holds now: device and inode (a
    /// second name of it, or the file renamed).
    public func sameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode
    }

    /// The identity a `stat` reports.
    init(_ stat: Stat) {
        self.init(
            device: UInt64(stat.deviceID.rawValue), inode: UInt64(stat.inode.rawValue), size: stat.size,
            modifiedNanoseconds: Int64(stat.st_mtim.tv_sec) * 1_000_000_000 + Int64(stat.st_mtim.tv_nsec),
            changedNanoseconds: Int64(stat.st_ctim.tv_sec) * 1_000_000_000 + Int64(stat.st_ctim.tv_nsec))
    }
}
