import Crypto
import Foundation
import SeedDBCore
import SystemPackage

/// Copies a file at disk speed, hashing at most once.
///
/// In order of preference:
/// 1. `FICLONE`: on a reflink file system (Btrfs, XFS) the copy shares the source's
///    extents and costs nothing.
/// 2. `copy_file_range`: the kernel copies without passing the bytes through user space.
/// 3. `read`/`write` through one buffer, hashing on the way.
///
/// A kernel copy (1 or 2) hashes nothing when the caller knows the source's digest
/// (``Hashing/none``); otherwise (``Hashing/source(prefix:)``) a second thread hashes the source,
/// range by range as the kernel has copied it (from the page cache it just filled), so the
/// one read in user space overlaps the copy. The caller checks that the source did not
/// change meanwhile (``FileIdentity`` before and after) before taking that digest for the
/// copy's.
///
/// Memory stays constant, a few MiB of buffers, whatever the file size.
enum CopyEngine {
    /// What a copy hashes.
    enum Hashing: Sendable {
        /// Nothing the kernel copies: the caller knows the source's digest. A copy through
        /// user space still hashes the bytes it passes, at no extra read.
        case none
        /// The source, in the same pass as the copy; its first bytes, `prefix`, were
        /// already read (the header check), so they are not read again.
        case source(prefix: [UInt8])
    }

    /// What a copy produced.
    struct Result {
        /// The SHA-256 of the bytes copied; `nil` when a kernel copy was asked not to hash.
        var digest: SeedDBCore.SHA256Digest?
        /// The number of bytes written.
        var size: Int64
        /// Whether the kernel made the copy (`FICLONE` or `copy_file_range`): `digest`,
        /// if any, is then the source's as it was read, not the bytes written.
        var kernelMade: Bool
    }

    /// A failure of the copy, attributed to the side that failed.
    enum Failure: Error {
        case read(any Error)
        case write(any Error)
        /// The compressed input is corrupt or truncated.
        case corrupt(String)
        /// The work run while the hash finishes (``copy(from:to:total:hashing:progress:whileHashing:isInterrupted:)``) failed.
        case step(SeedDBError)
        /// The run was interrupted (SIGINT, SIGTERM) between two chunks.
        case interrupted
    }

    /// Whether the run was asked to stop, checked between chunks (at most ``kernelChunk``
    /// bytes, so a copy stops within a fraction of a second).
    typealias Interruption = (@Sendable () -> Bool)?

    /// Work to overlap with the end of the hashing, such as flushing the copy: it runs once
    /// every byte is written, while the hashing thread catches up.
    typealias Overlap = () throws(SeedDBError) -> Void

    /// The errors with which `copy_file_range` says it cannot copy between these files
    /// (another file system, an old kernel, a special file): fall back to read/write.
    static let kernelCopyUnsupported: Set<Errno> = [.improperLink, .invalidArgument, .noFunction, .notSupported, .notSupportedOnSocket, .badFileDescriptor]

    /// The bytes `copy_file_range` is asked for per call; progress is reported, and an
    /// interruption noticed, at this grain (8 MiB: under 100 ms on a disk of 100 MB/s).
    static let kernelChunk = 8 << 20

    /// Copies `input` (from its start) to `output` (at its current offset, empty).
    ///
    /// - Parameter hashing: What to hash: see ``Hashing``.
    /// - Parameter whileHashing: Runs once every byte is written, while the hash of the
    ///   last bytes may still be under way (a flush of `output` overlaps the hashing).
    static func copy(from input: FileDescriptor, to output: FileDescriptor, total: Int64, hashing: Hashing, progress: (@Sendable (Int64, Int64) -> Void)?, whileHashing: Overlap, isInterrupted: Interruption = nil) throws(Failure) -> Result {
        if (try? Syscalls.cloneFile(from: input, to: output)) != nil {
            let size: Int64
            do {
                size = try output.stat().size
            } catch {
                throw .write(error)
            }
            progress?(size, total)
            guard case .source(let prefix) = hashing else {
                try run(whileHashing)
                return Result(digest: nil, size: size, kernelMade: true)
            }
            // The clone cost nothing; the one read is the source's, overlapping the flush.
            let follower = HashFollower(input, mapped: false, prefix: prefix)
            follower.advance(to: size)
            return Result(digest: try follower.digest(after: whileHashing), size: size, kernelMade: true)
        }
        if let result = try kernelCopy(from: input, to: output, total: total, hashing: hashing, progress: progress, whileHashing: whileHashing, isInterrupted: isInterrupted) {
            return result
        }
        let result = try bufferedCopy(from: input, to: output, total: total, progress: progress, isInterrupted: isInterrupted)
        try run(whileHashing)
        return result
    }

    private static func run(_ overlap: Overlap) throws(Failure) {
        do {
            try overlap()
        } catch {
            throw .step(error)
        }
    }

    /// Reads and hashes `descriptor` from offset 0 to `size` (or its end, if shorter).
    static func hash(_ descriptor: FileDescriptor, upTo size: Int64) throws(Failure) -> SeedDBCore.SHA256Digest {
        let end: Int64
        do {
            end = min(size, try descriptor.stat().size)
        } catch {
            throw .read(error)
        }
        var hasher = SHA256()
        try feed(descriptor, from: 0, to: end, into: &hasher, mapped: false)
        return SeedDBCore.SHA256Digest(bytes: hasher.finalize())
    }

    /// Hashes `descriptor` from offset 0 to `size` on a second thread while `overlap` runs
    /// on this one (a flush of the same file, say); `overlap`'s failure is `.step`.
    static func hash(_ descriptor: FileDescriptor, upTo size: Int64, while overlap: Overlap) throws(Failure) -> SeedDBCore.SHA256Digest {
        let follower = HashFollower(descriptor, mapped: false, prefix: [])
        follower.advance(to: size)
        return try follower.digest(after: overlap)
    }

    /// The window hashing maps (or reads) at a time; mapped pages count as resident
    /// memory while mapped, so it stays small.
    static let mapWindow: Int64 = 4 << 20

    /// Feeds bytes `start..<end` of `descriptor` into `hasher`, a window at a time.
    ///
    /// - Parameter mapped: Read through a memory map, straight from the page cache with no
    ///   copy: only for files nobody else can truncate meanwhile (a mapped page past the
    ///   end of a truncated file faults the process), such as SeedDB's own temporary
    ///   copy. Otherwise `pread` into a buffer.
    /// - Parameter reusing: A buffer of ``mapWindow`` bytes for `pread`, kept by a caller
    ///   that feeds many ranges (a fresh one is zero-filled by the kernel page by page).
    static func feed(_ descriptor: FileDescriptor, from start: Int64, to end: Int64, into hasher: inout SHA256, mapped: Bool, reusing reused: UnsafeMutableRawBufferPointer? = nil) throws(Failure) {
        let page = Syscalls.memoryPageSize
        let owned = mapped || reused != nil ? nil : UnsafeMutableRawBufferPointer.allocate(byteCount: Int(mapWindow), alignment: Int(page))
        defer { owned?.deallocate() }
        let buffer = mapped ? nil : reused ?? owned
        var offset = start
        while offset < end {
            do {
                if let buffer {
                    let count = try descriptor.read(fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(mapWindow, end - offset))]))
                    guard count > 0 else { return }
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    offset += Int64(count)
                } else {
                    let base = offset - offset % page
                    let length = Int(min(mapWindow, end - base))
                    let region = try Syscalls.mapReadOnly(descriptor, offset: base, length: length)
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: region[Int(offset - base)...]))
                    Syscalls.unmap(region)
                    offset = base + Int64(length)
                }
            } catch {
                throw .read(error)
            }
        }
    }

    /// `copy_file_range`, with the source hashed on a second thread (`pread`, never mapped:
    /// someone else may truncate it) behind the kernel's copy when `hashing` asks.
    /// - Returns: `nil` when the kernel cannot copy between these files (nothing written).
    private static func kernelCopy(from input: FileDescriptor, to output: FileDescriptor, total: Int64, hashing: Hashing, progress: (@Sendable (Int64, Int64) -> Void)?, whileHashing: Overlap, isInterrupted: Interruption) throws(Failure) -> Result? {
        var follower: HashFollower?
        if case .source(let prefix) = hashing { follower = HashFollower(input, mapped: false, prefix: prefix) }
        var copied: Int64 = 0
        while true {
            let count: Int
            do {
                count = try Syscalls.copyFileRange(from: input, to: output, count: kernelChunk)
            } catch {
                follower?.finish()
                // Only before the first byte: a fallback must start from the beginning.
                if copied == 0 && kernelCopyUnsupported.contains(error) { return nil }
                throw .write(error)
            }
            if count == 0 { break }
            copied += Int64(count)
            follower?.advance(to: copied)
            progress?(copied, total)
            if isInterrupted?() == true {
                follower?.finish()
                throw .interrupted
            }
        }
        guard let follower else {
            try run(whileHashing)
            return Result(digest: nil, size: copied, kernelMade: true)
        }
        return Result(digest: try follower.digest(after: whileHashing), size: copied, kernelMade: true)
    }

    /// Decompresses `input` into `output` through `decoder`, the destination hashed on a
    /// second thread as it lands. Progress counts decompressed bytes written, against
    /// `expected`, the decompressed size when the format says it (0 when unknown).
    static func decompressingCopy(from input: FileDescriptor, to output: FileDescriptor, decoder: inout any ByteStream, expected: Int64, progress: (@Sendable (Int64, Int64) -> Void)?, whileHashing: Overlap, isInterrupted: Interruption = nil) throws(Failure) -> Result {
        let follower = HashFollower(output, mapped: true, prefix: [])
        var written: Int64 = 0
        var writeFailure: (any Error)?
        var interrupted = false
        let write = { (chunk: UnsafeRawBufferPointer) throws in
            do {
                _ = try output.writeAll(chunk)
            } catch {
                writeFailure = error
                throw error
            }
            written += Int64(chunk.count)
            follower.advance(to: written)
            // Checked per output chunk: a small input can decompress to gigabytes.
            progress?(written, expected)
            if isInterrupted?() == true {
                interrupted = true
                throw Failure.interrupted
            }
        }
        do {
            try FileSystem.forEachChunk(of: input) { chunk in
                try decoder.process(chunk, output: write)
            }
            try decoder.finish(output: write)
        } catch {
            follower.finish()
            if interrupted { throw .interrupted }
            if let writeFailure { throw .write(writeFailure) }
            if let error = error as? CompressionError { throw .corrupt(error.description) }
            throw .read(error)
        }
        return Result(digest: try follower.digest(after: whileHashing), size: written, kernelMade: false)
    }

    /// The portable fallback: one buffer, read, hash, write.
    private static func bufferedCopy(from input: FileDescriptor, to output: FileDescriptor, total: Int64, progress: (@Sendable (Int64, Int64) -> Void)?, isInterrupted: Interruption) throws(Failure) -> Result {
        var hasher = SHA256()
        var size: Int64 = 0
        var failure: Failure?
        do {
            // Neither a failed clone nor a refused kernel copy moved the input's offset.
            try FileSystem.forEachChunk(of: input) { chunk in
                hasher.update(bufferPointer: chunk)
                do {
                    _ = try output.writeAll(chunk)
                } catch {
                    failure = .write(error)
                    throw error
                }
                size += Int64(chunk.count)
                progress?(size, total)
                if isInterrupted?() == true {
                    failure = .interrupted
                    throw Failure.interrupted
                }
            }
        } catch {
            throw failure ?? .read(error)
        }
        return Result(digest: SeedDBCore.SHA256Digest(bytes: hasher.finalize()), size: size, kernelMade: false)
    }
}

/// Hashes a file on its own thread, following a copy: it reads only the bytes the copy
/// has announced with ``advance(to:)``.
private final class HashFollower: @unchecked Sendable {
    private let descriptor: FileDescriptor
    private let mapped: Bool
    private let condition = NSCondition()
    private var available: Int64 = 0
    private var done = false
    private var result: Result<SeedDBCore.SHA256Digest, CopyEngine.Failure>?
    private let finished = DispatchSemaphore(value: 0)

    private let prefix: [UInt8]

    /// - Parameter mapped: Read through a memory map (only a file nobody else can
    ///   truncate: SeedDB's own copy); otherwise `pread`.
    /// - Parameter prefix: The file's first bytes, already read: hashed without reading.
    init(_ descriptor: FileDescriptor, mapped: Bool, prefix: [UInt8]) {
        self.descriptor = descriptor
        self.mapped = mapped
        self.prefix = prefix
        let thread = Thread { [self] in run() }
        thread.name = "SeedDB.hash"
        thread.start()
    }

    /// Announces that bytes up to `offset` are written.
    func advance(to offset: Int64) {
        condition.lock()
        available = offset
        condition.signal()
        condition.unlock()
    }

    /// Runs `overlap` (everything is written) while the hashing catches up, then
    /// announces the end and waits for the digest.
    func digest(after overlap: CopyEngine.Overlap) throws(CopyEngine.Failure) -> SeedDBCore.SHA256Digest {
        do {
            try overlap()
        } catch {
            finish()
            throw .step(error)
        }
        return try finish().get()
    }

    /// Announces the end and waits for the digest of everything announced.
    @discardableResult
    func finish() -> Result<SeedDBCore.SHA256Digest, CopyEngine.Failure> {
        condition.lock()
        done = true
        condition.signal()
        condition.unlock()
        finished.wait()
        finished.signal()
        return result!
    }

    private func run() {
        let buffer = mapped ? nil : UnsafeMutableRawBufferPointer.allocate(byteCount: Int(CopyEngine.mapWindow), alignment: Int(Syscalls.memoryPageSize))
        defer { buffer?.deallocate() }
        var hasher = SHA256()
        hasher.update(data: prefix)
        var hashed = Int64(prefix.count)
        while true {
            condition.lock()
            while available <= hashed && !done { condition.wait() }
            let limit = available
            let stop = done && available <= hashed
            condition.unlock()
            if stop { break }
            do {
                try CopyEngine.feed(descriptor, from: hashed, to: limit, into: &hasher, mapped: mapped, reusing: buffer)
                hashed = limit
            } catch {
                result = .failure(error)
                finished.signal()
                drain()
                return
            }
        }
        result = .success(SeedDBCore.SHA256Digest(bytes: hasher.finalize()))
        finished.signal()
    }

    /// After a failure, waits for `finish()` so the writer never blocks on this thread.
    private func drain() {
        condition.lock()
        while !done { condition.wait() }
        condition.unlock()
    }
}
