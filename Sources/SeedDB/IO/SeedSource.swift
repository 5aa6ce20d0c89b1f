import SeedDBCore
import SystemPackage

/// The seed file an app ships: checked before it is copied, then streamed into place.
struct SeedSource {
    /// The seed's path.
    let path: String

    /// What a copy produced.
    struct CopyResult {
        /// The SHA-256 of the bytes written.
        var digest: SeedDBCore.SHA256Digest
        /// The number of bytes written.
        var size: Int64
        /// The seed's identity, when `digest` is known to be the seed file's own: a plain
        /// seed whose identity did not change while it was copied. `nil` for a compressed
        /// seed (the digest is its decompressed content's) or one that changed meanwhile.
        var identity: FileIdentity?
    }

    /// What ``inspect(readingHeader:)`` found.
    struct Inspection {
        /// The seed's identity when it was inspected.
        var identity: FileIdentity
        /// The header; `nil` for a compressed seed, whose header is known only once it is
        /// decompressed, or when it was not read.
        var header: SQLiteHeader?
        /// The bytes read for the header, and the seed's identity before they were read:
        /// if the seed still has that identity when it is copied, the hash starts after
        /// them instead of reading them again.
        var prefix: (identity: FileIdentity, bytes: [UInt8])?
    }

    /// How the seed file is compressed, from its name.
    var compression: SeedCompression { SeedCompression(path: path) }

    /// Checks what can be checked without reading the whole seed: it exists, is a
    /// readable regular file, starts with an SQLite header, and has no `-wal` holding
    /// frames or `-journal` holding changes that a copy of the file alone would lose.
    ///
    /// - Returns: The header and the bytes read for it.
    /// - Throws: ``SeedDBError`` `seedUnavailable` (66), `ioFailure` (74: reading a file
    ///   that is there failed, `SeedDBError.unreadableInputCode(_:)`) or `invalidSeed` (65).
    /// - Parameter readingHeader: Whether to read the header; `false` when the content is
    ///   known to have passed a check already (nothing of the seed is read then).
    func inspect(readingHeader: Bool = true) throws(SeedDBError) -> Inspection {
        let type: FileType?
        let identity: FileIdentity
        do {
            let stat = try FilePath(path).stat()
            type = stat.type
            identity = FileIdentity(stat)
        } catch .noSuchFileOrDirectory, .notDirectory {
            throw SeedDBError(.seedUnavailable, "seed not found: \(path)")
        } catch {
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(error)", underlying: error)
        }
        guard type == .regular else {
            throw SeedDBError(.seedUnavailable, "cannot read seed \(path): not a regular file")
        }
        guard compression == .none else { return Inspection(identity: identity, header: nil, prefix: nil) }
        try requireNoSidecarChanges()
        guard readingHeader else { return Inspection(identity: identity, header: nil, prefix: nil) }
        let prefix: [UInt8]
        do {
            prefix = try FileSystem.readPrefix(of: path, count: SQLiteHeader.length)
        } catch {
            // The cause alone: the error's own message names the path again.
            let cause = (error.underlying as? Errno).map(SeedDBError.describe) ?? error.message
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(cause)", underlying: error)
        }
        guard let header = SQLiteHeader(prefix) else {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): " + (prefix.isEmpty ? "the file is empty (0 bytes), not an SQLite 3 database" : "not an SQLite 3 database (bad header)"))
        }
        return Inspection(identity: identity, header: header, prefix: (identity, prefix))
    }

    /// The refusal of the seed at `path` whose header declares `declared` bytes where
    /// `read` were read (its copy's, or the file's size for a link to it), saying what may
    /// have cut it short or made it longer, and for a copy (`copying`) that it may have
    /// changed while it was copied. A copied deploy and a read-only one refuse it in the
    /// same words.
    static func wrongSize(_ path: String, declared: Int64, read: Int64, copying: Bool) -> SeedDBError {
        let why = read < declared ? "truncated" : "longer than its header declares: a transaction left unfinished in a -journal beside it, or bytes appended"
        return SeedDBError(.invalidSeed, "invalid seed \(path): its header declares \(declared) bytes but \(read) were read (\(why)\(copying ? ", or changed while copying" : ""))")
    }

    /// Refuses a seed whose `-wal` or `-journal` holds changes a copy of the file alone
    /// would lose (two `stat`s, no read).
    private func requireNoSidecarChanges() throws(SeedDBError) {
        // A WAL header is 32 bytes; anything longer holds frames a file copy would drop.
        if let wal = try FileSystem.status(at: path + "-wal"), wal.size > 32 {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): its -wal sidecar holds \(wal.size) bytes of unapplied frames; checkpoint it (PRAGMA wal_checkpoint(TRUNCATE)) before shipping")
        }
        if let journal = try FileSystem.status(at: path + "-journal"), journal.size > 0 {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): a -journal sidecar holds an unfinished transaction; open it once with sqlite3 to recover it before shipping")
        }
    }

    /// Copies the seed into `destination` at disk speed (see ``CopyEngine``), reading it
    /// at most once in user space.
    ///
    /// When `known` is the digest of the seed with the identity it has now, a kernel copy
    /// reads nothing: if the identity is still the same once the copy is made, the copy
    /// has that digest. Otherwise the seed is hashed in the same pass as the copy. A seed
    /// that changed while it was copied gets its copy read back and hashed: the digest is
    /// then what was written, and is not the seed's (``CopyResult/identity`` is `nil`).
    ///
    /// - Parameters:
    ///   - known: The seed's digest when it had a given identity (from the settings).
    ///   - prefix: The seed's first bytes, read by ``inspect(readingHeader:)``.
    ///   - rereads: Read the copy back and check it against the digest (`--integrity full`).
    ///   - whileHashing: Runs once every byte is written, overlapping the end of the
    ///     hashing (the caller flushes the copy there).
    /// - Throws: ``SeedDBError`` `seedUnavailable` when the seed cannot be read (`ioFailure`
    ///   when reading it fails, `SeedDBError.unreadableInputCode(_:)`),
    ///   `ioFailure`/`cannotCreate` when the destination cannot be written or reads back
    ///   wrong, or what `whileHashing` throws.
    func copy(to destination: FileDescriptor, destinationPath: String, known: SourceDigest? = nil, prefix: (identity: FileIdentity, bytes: [UInt8])? = nil, rereads: Bool = false, progress: (@Sendable (Int64, Int64) -> Void)?, whileHashing: CopyEngine.Overlap = {}, isInterrupted: CopyEngine.Interruption = nil) throws(SeedDBError) -> CopyResult {
        let input: FileDescriptor
        let before: FileIdentity
        do {
            input = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(error)", underlying: error)
        }
        defer { try? input.close() }
        do {
            before = FileIdentity(try input.stat())
        } catch {
            throw SeedDBError(SeedDBError.unreadableInputCode(error), "cannot read seed \(path): \(error)", underlying: error)
        }
        do {
            if var decoder = try decoder() {
                let expected = compression == .zstd ? ZstdFrameHeader.contentSize(of: input) ?? 0 : 0
                let result = try CopyEngine.decompressingCopy(from: input, to: destination, decoder: &decoder, expected: expected, progress: progress, whileHashing: whileHashing, isInterrupted: isInterrupted)
                return CopyResult(digest: result.digest!, size: result.size, identity: nil)
            }
            let knownDigest = known.flatMap { $0.identity == before ? $0.sha256 : nil }
            let read = prefix.flatMap { $0.identity == before ? $0.bytes : nil } ?? []
            let hashing: CopyEngine.Hashing = knownDigest == nil ? .source(prefix: read) : .none
            let result = try CopyEngine.copy(from: input, to: destination, total: before.size, hashing: hashing, progress: progress, whileHashing: whileHashing, isInterrupted: isInterrupted)
            let unchanged: Bool
            do {
                unchanged = try FileIdentity(input.stat()) == before
            } catch {
                throw CopyEngine.Failure.read(error)
            }
            guard result.kernelMade else {
                // Through user space: the digest is of the bytes written, whatever happened.
                return CopyResult(digest: result.digest!, size: result.size, identity: unchanged ? before : nil)
            }
            guard unchanged, let digest = result.digest ?? knownDigest else {
                return CopyResult(digest: try readBack(destination, destinationPath), size: result.size, identity: nil)
            }
            if rereads {
                let written = try readBack(destination, destinationPath)
                guard written == digest else {
                    throw SeedDBError(.ioFailure, "cannot copy seed to \(destinationPath): the copy reads back with SHA-256 \(written), the seed has \(digest)")
                }
            }
            return CopyResult(digest: digest, size: result.size, identity: before)
        } catch let error as CopyEngine.Failure {
            switch error {
            case .read(let cause):
                throw SeedDBError(SeedDBError.unreadableInputCode(cause), "cannot read seed \(path): \(cause)", underlying: cause)
            case .write(let cause as Errno) where cause == .noSpace:
                let needed: Int64? = switch compression {
                case .none: before.size
                case .zstd: ZstdFrameHeader.contentSize(of: input)
                default: nil
                }
                throw SeedDBError.noSpace(copying: needed, to: destination, destinationPath)
            case .write(let cause):
                throw SeedDBError.io(cause, "cannot copy seed to", destinationPath)
            case .corrupt(let reason):
                throw SeedDBError(.invalidSeed, "invalid seed \(path): \(reason)")
            case .step(let error):
                throw error
            case .interrupted:
                throw SeedDBError(.interrupted, "interrupted; nothing was changed")
            }
        } catch let error as SeedDBError {
            throw error
        } catch {
            throw SeedDBError(.ioFailure, "cannot copy seed to \(destinationPath): \(error)", underlying: error)
        }
    }

    /// The SHA-256 of what was written to `destination`, read back.
    private func readBack(_ destination: FileDescriptor, _ destinationPath: String) throws(SeedDBError) -> SeedDBCore.SHA256Digest {
        do {
            return try CopyEngine.hash(destination, upTo: .max)
        } catch {
            throw SeedDBError.io(error, "cannot read back", destinationPath)
        }
    }

    /// Calls `body` with the path of the seed as a plain database: the seed itself, or
    /// for a compressed seed a decompressed copy in `$TMPDIR`, removed afterwards.
    func withPlainFile<Result>(_ body: (String) throws(SeedDBError) -> Result) throws(SeedDBError) -> Result {
        guard compression != .none else { return try body(path) }
        let directory = FileSystem.trimmedTemporaryDirectory()
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: directory, stem: FileSystem.fileName(of: path), permissions: [.ownerReadWrite])
        defer { try? FileSystem.remove(temporary) }
        defer { try? descriptor.close() }
        _ = try copy(to: descriptor, destinationPath: temporary, progress: nil)
        return try body(temporary)
    }

    private func decoder() throws(CopyEngine.Failure) -> (any ByteStream)? {
        do {
            return try compression.decoder()
        } catch let error as SeedDBError {
            // The codec's library is missing: the seed cannot be read here, it is not invalid.
            throw .read(error)
        } catch {
            throw .corrupt("\(error)")
        }
    }
}
