import Crypto
import Foundation
import SeedDBCore
import SystemPackage

/// SHA-256 of files, at the speed of the CPU's SHA instructions (through swift-crypto).
public enum FileDigest {
    /// The SHA-256 of the file at `path`, streamed through one buffer.
    /// - Throws: ``SeedDBError`` `seedUnavailable` when it cannot be read, `ioFailure` when
    ///   reading it fails (`SeedDBError.unreadableInputCode(_:)`).
    public static func sha256(ofFileAt path: String) throws(SeedDBError) -> SeedDBCore.SHA256Digest {
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            defer { try? descriptor.close() }
            return try CopyEngine.hash(descriptor, upTo: .max)
        } catch {
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(error)", underlying: error)
        }
    }

    /// The identity (device, inode, size, modification and change time) of the file at
    /// `path`, following links as opening it would.
    static func identity(ofFileAt path: String) throws(SeedDBError) -> FileIdentity {
        do {
            return FileIdentity(try FileSystem.stat(path, followingLinks: true))
        } catch .noSuchFileOrDirectory, .notDirectory {
            throw SeedDBError(.seedUnavailable, "seed not found: \(path)")
        } catch {
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(error)", underlying: error)
        }
    }
}
