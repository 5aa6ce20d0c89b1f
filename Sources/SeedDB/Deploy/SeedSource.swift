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
    }

    /// How the seed file is compressed, from its name.
    var compression: SeedCompression { SeedCompression(path: path) }

    /// Checks what can be checked without reading the whole seed: it exists, is a
    /// readable regular file, starts with an SQLite header, and has no `-wal` holding
    /// frames or `-journal` holding changes that a copy of the file alone would lose.
    ///
    /// - Returns: The header; `nil` for a compressed seed, whose header is known only
    ///   once it is decompressed.
    /// - Throws: ``SeedDBError`` `seedUnavailable` (66) or `invalidSeed` (65).
    func inspect() throws(SeedDBError) -> SQLiteHeader? {
        let type: FileType?
        do {
            type = try FilePath(path).stat().type
        } catch .noSuchFileOrDirectory, .notDirectory {
            throw SeedDBError(.seedUnavailable, "seed not found: \(path)")
        } catch {
            throw SeedDBError(.seedUnavailable, "cannot read seed \(path): \(error)", underlying: error)
        }
        guard type == .regular else {
            throw SeedDBError(.seedUnavailable, "cannot read seed \(path): not a regular file")
        }
        guard compression == .none else { return nil }
        let prefix: [UInt8]
        do {
            prefix = try FileSystem.readPrefix(of: path, count: SQLiteHeader.length)
        } catch {
            throw SeedDBError(.seedUnavailable, "cannot read seed \(path): \(error.message)", underlying: error)
        }
        guard let header = SQLiteHeader(prefix) else {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): not an SQLite 3 database (bad header)")
        }
        // A WAL header is 32 bytes; anything longer holds frames a file copy would drop.
        if let wal = try FileSystem.status(at: path + "-wal"), wal.size > 32 {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): its -wal sidecar holds \(wal.size) bytes of unapplied frames; checkpoint it (PRAGMA wal_checkpoint(TRUNCATE)) before shipping")
        }
        if let journal = try FileSystem.status(at: path + "-journal"), journal.size > 0 {
            throw SeedDBError(.invalidSeed, "invalid seed \(path): a -journal sidecar holds an unfinished transaction; open it once with sqlite3 to recover it before shipping")
        }
        return header
    }

    /// Copies the seed into `destination` at disk speed (see ``CopyEngine``), hashing
    /// the bytes written.
    ///
    /// - Parameter whileHashing: Runs once every byte is written, overlapping the end of
    ///   the hashing (the caller flushes the copy there).
    /// - Throws: ``SeedDBError`` `seedUnavailable` when the seed cannot be read,
    ///   `ioFailure`/`cannotCreate` when the destination cannot be written, or what
    ///   `whileHashing` throws.
    func copy(to destination: FileDescriptor, destinationPath: String, progress: (@Sendable (Int64, Int64) -> Void)?, whileHashing: CopyEngine.Overlap = {}) throws(SeedDBError) -> CopyResult {
        let input: FileDescriptor
        let total: Int64
        do {
            input = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            total = (try? input.stat().size) ?? 0
        } catch {
            throw SeedDBError(.seedUnavailable, "cannot read seed \(path): \(error)", underlying: error)
        }
        defer { try? input.close() }
        do {
            let result: CopyEngine.Result
            if var decoder = try decoder() {
                result = try CopyEngine.decompressingCopy(from: input, to: destination, decoder: &decoder, total: total, progress: progress, whileHashing: whileHashing)
            } else {
                result = try CopyEngine.copy(from: input, to: destination, total: total, progress: progress, whileHashing: whileHashing)
            }
            return CopyResult(digest: result.digest, size: result.size)
        } catch {
            switch error {
            case .read(let cause):
                throw SeedDBError(.seedUnavailable, "cannot read seed \(path): \(cause)", underlying: cause)
            case .write(let cause):
                throw SeedDBError.io(cause, "cannot copy seed to", destinationPath)
            case .corrupt(let reason):
                throw SeedDBError(.invalidSeed, "invalid seed \(path): \(reason)")
            case .step(let error):
                throw error
            }
        }
    }

    /// Calls `body` with the path of the seed as a plain database: the seed itself, or
    /// for a compressed seed a decompressed copy in `$TMPDIR`, removed afterwards.
    func withPlainFile<Result>(_ body: (String) -> Result) throws(SeedDBError) -> Result {
        guard compression != .none else { return body(path) }
        let directory = FileSystem.trimmedTemporaryDirectory()
        let (descriptor, temporary) = try FileSystem.createTemporaryFile(in: directory, stem: FileSystem.fileName(of: path), permissions: [.ownerReadWrite])
        defer { try? FileSystem.remove(temporary) }
        defer { try? descriptor.close() }
        _ = try copy(to: descriptor, destinationPath: temporary, progress: nil)
        return body(temporary)
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
