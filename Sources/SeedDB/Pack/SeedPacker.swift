import Foundation
import GRDB
import SeedDBCore
import SystemPackage

/// Builds seed databases from SQL scripts: `seeddb pack`.
public enum SeedPacker {
    /// What a pack produced.
    public struct Report: Sendable, Hashable {
        /// The seed file written.
        public var output: String
        /// The SHA-256 of the database (of the decompressed bytes, for a compressed seed):
        /// what a manifest's `sha256` checks.
        public var sha256: SHA256Digest
        /// The database's size in bytes: the uncompressed SQLite file, which is what a
        /// deploy writes as the working copy (not the size of a compressed `output`).
        public var size: Int64
        /// The compression applied.
        public var compression: SeedCompression
    }

    /// Runs `scripts` in order into a new database in a temporary file beside `output`,
    /// sets `journal_mode=DELETE`, runs `VACUUM` and `quick_check`, compresses it if asked,
    /// and renames it into place. The same scripts and SQLite version give the same bytes.
    ///
    /// A missing output directory is created (with its missing parents, mode 0755), and
    /// removed again if the pack fails.
    ///
    /// `beforeInstall` runs once the database is built and checked, before it is renamed
    /// into place (`seeddb pack` records and signs the manifest there): when it throws,
    /// nothing is installed and the pack fails with its error.
    ///
    /// - Throws: ``SeedDBError`` `invalidArgument` (`output` is one of the scripts),
    ///   `seedUnavailable` (a script cannot be read), `invalidSeed` (a script fails, or the
    ///   result fails its check), `cannotCreate`/`ioFailure` (the output cannot be
    ///   written). Nothing is left behind on failure.
    public static func pack(
        scripts: [String], output: String, compression: SeedCompression,
        beforeInstall: (Report) throws(SeedDBError) -> Void = { _ in }
    ) throws(SeedDBError) -> Report {
        if let script = scripts.first(where: { isSameFile($0, output) }) {
            throw SeedDBError(.invalidArgument, "the output is one of the input scripts (\(script)): packing would overwrite it")
        }
        let sources = try scripts.map { (path) throws(SeedDBError) -> (String, String) in
            guard let bytes = try FileSystem.readFile(at: path) else {
                throw SeedDBError(.seedUnavailable, "SQL script not found: \(path)")
            }
            return (path, String(decoding: bytes, as: UTF8.self))
        }
        let directory = FileSystem.directory(of: output)
        let created = try createMissingDirectories(directory)
        do {
            return try pack(sources, output: output, compression: compression, beforeInstall: beforeInstall)
        } catch {
            for path in created.reversed() { _ = FileSystem.removeIfEmpty(path) }
            throw error
        }
    }

    private static func pack(
        _ sources: [(String, String)], output: String, compression: SeedCompression, beforeInstall: (Report) throws(SeedDBError) -> Void
    ) throws(SeedDBError) -> Report {
        let directory = FileSystem.directory(of: output)
        let stem = FileSystem.fileName(of: output)
        let (descriptor, database) = try FileSystem.createTemporaryFile(in: directory, stem: stem)
        try? descriptor.close()
        defer { try? FileSystem.remove(database) }
        try build(database, from: sources)
        let (sha256, size) = try FileSystem.digestAndSync(database)
        let report = Report(output: output, sha256: sha256, size: size, compression: compression)

        if let encoder = try encoder(for: compression) {
            let (compressed, compressedPath) = try FileSystem.createTemporaryFile(in: directory, stem: stem)
            defer { try? FileSystem.remove(compressedPath) }
            try compress(database, into: compressed, path: compressedPath, encoder: encoder)
            try beforeInstall(report)
            try FileSystem.rename(compressedPath, to: output)
        } else {
            try beforeInstall(report)
            try FileSystem.rename(database, to: output)
        }
        try FileSystem.syncDirectory(directory)
        return report
    }

    /// Whether `a` and `b` name the same file: the same path once standardized, or the
    /// same device and inode (a hard link, a symbolic link, `./x` against `x`).
    private static func isSameFile(_ a: String, _ b: String) -> Bool {
        let standardized = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        if standardized(a) == standardized(b) { return true }
        let manager = FileManager.default
        guard let first = try? manager.attributesOfItem(atPath: a), let second = try? manager.attributesOfItem(atPath: b),
              let inode = first[.systemFileNumber] as? UInt64, let device = first[.systemNumber] as? UInt64 else { return false }
        return second[.systemFileNumber] as? UInt64 == inode && second[.systemNumber] as? UInt64 == device
    }

    /// Creates `directory` and its missing parents (0755, like `mkdir -p` for a build
    /// output); returns the ones it created, outermost first.
    private static func createMissingDirectories(_ directory: String) throws(SeedDBError) -> [String] {
        var missing: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", try FileSystem.fileType(at: current) == nil {
            missing.insert(current, at: 0)
            current = FileSystem.directory(of: current)
        }
        guard !missing.isEmpty else { return [] }
        try FileSystem.createDirectories(directory, mode: 0o755)
        return missing
    }

    private static func build(_ path: String, from sources: [(String, String)]) throws(SeedDBError) {
        var current = ""
        var reading = ScriptPosition(sql: "")
        do {
            let queue = try SQLiteFile.open(path, access: .readWrite, label: "SeedDB.pack")
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                for (script, sql) in sources {
                    current = script
                    reading = ScriptPosition(sql: sql)
                    try db.inTransaction {
                        // Statement by statement, so that an error names its line.
                        let statements = try db.allStatements(sql: sql)
                        while let statement = try statements.next() {
                            reading.found(statement.sql)
                            try statement.execute()
                            reading.executed()
                        }
                        return .commit
                    }
                }
                current = ""
                try db.execute(sql: "VACUUM")
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no result"
                guard check == "ok" else {
                    throw SeedDBError(.invalidSeed, "the packed database fails quick_check: \(check)")
                }
            }
        } catch let error as SeedDBError {
            throw error
        } catch let error as DatabaseError {
            let place = current.isEmpty ? "while finishing the database" : "in \(current), line \(reading.failingLine)"
            throw SeedDBError(.invalidSeed, "SQL error \(place): \(error.message ?? "\(error.resultCode)")", underlying: error)
        } catch {
            throw SeedDBError.io(error, "cannot build", path)
        }
    }

    /// Where a script's run is, to name the line of a statement that fails: the statement
    /// being run, or, when the next one cannot be prepared (a syntax error), the first
    /// line after the last one run that is neither blank nor a comment.
    struct ScriptPosition {
        let sql: String
        /// Where the statement being run starts; `nil` while the next one is prepared.
        private var running: String.Index?
        /// Where the text after the last statement found starts.
        private var rest: String.Index

        init(sql: String) {
            self.sql = sql
            rest = sql.startIndex
        }

        /// The statement `text` (as SQLite keeps it: trimmed, without its semicolon) was
        /// prepared, and is about to run.
        mutating func found(_ text: String) {
            guard let range = sql.range(of: text, range: rest..<sql.endIndex) else { return }
            running = range.lowerBound
            rest = range.upperBound
        }

        /// The statement found last ran.
        mutating func executed() {
            running = nil
        }

        /// The 1-based line of the failure.
        var failingLine: Int {
            let start = running ?? Self.skippingBlanksAndComments(sql, from: rest)
            return sql[..<start].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        }

        /// The first index from `index` that is not white space, a `;`, a `-- …` line or a
        /// `/* … */` comment.
        static func skippingBlanksAndComments(_ sql: String, from index: String.Index) -> String.Index {
            var index = index
            while index < sql.endIndex {
                let rest = sql[index...]
                if let first = rest.first, first.isWhitespace || first == ";" {
                    index = sql.index(after: index)
                } else if rest.hasPrefix("--") {
                    index = rest.firstIndex(of: "\n") ?? sql.endIndex
                } else if rest.hasPrefix("/*") {
                    index = rest.range(of: "*/")?.upperBound ?? sql.endIndex
                } else {
                    break
                }
            }
            return index
        }
    }

    private static func encoder(for compression: SeedCompression) throws(SeedDBError) -> (any ByteStream)? {
        do {
            return try compression.encoder()
        } catch {
            throw SeedDBError(.ioFailure, "cannot start \(compression.rawValue) compression: \(error)")
        }
    }

    private static func compress(_ database: String, into output: FileDescriptor, path: String, encoder: any ByteStream) throws(SeedDBError) {
        var encoder = encoder
        do {
            try output.closeAfter {
                let input = try FileDescriptor.open(FilePath(database), .readOnly, options: [.closeOnExec])
                try input.closeAfter {
                    let write = { (chunk: UnsafeRawBufferPointer) throws in _ = try output.writeAll(chunk) }
                    try FileSystem.forEachChunk(of: input) { chunk in try encoder.process(chunk, output: write) }
                    try encoder.finish(output: write)
                }
                try Syscalls.fsync(output)
            }
        } catch {
            throw SeedDBError.io(error, "cannot write", path)
        }
    }
}
