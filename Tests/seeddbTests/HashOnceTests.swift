import Foundation
import GRDB
import Testing

/// A seed's digest is computed at most once per file identity, a reseed or a
/// restore of a known seed reads none of its bytes (nor the copy's) in user space, and a
/// first deploy reads the seed once.
///
/// The bytes are counted from a syscall trace of the built binary (`strace -f -y`):
/// every `read`, `pread64`, `readv`, `preadv` and `preadv2` on a descriptor of the file,
/// and every mapping of it. A kernel copy (`FICLONE`, `copy_file_range`) moves no byte
/// through user space and does not count.
@Suite(.enabled(if: ReadTrace.isAvailable, "needs strace"))
struct HashOnceTests {
    let cli = CLIHarness()

    func entry() throws -> [String: Any] {
        let document = try #require(try JSONSerialization.jsonObject(with: cli.bytes(cli.settingsFile) ?? Data()) as? [String: Any])
        return try #require((document["seeddb"] as? [String: Any])?["levels.sqlite"] as? [String: Any])
    }

    func flags(_ seed: String, version: String = "1") -> [String] {
        ["--app", cli.app, "--seed", seed, "--name", "levels.sqlite", "--version", version]
    }

    /// The bytes of files in the app's data directory whose name holds `levels.sqlite`
    /// (the staged copy, the generation files, the working copy; not the lock).
    func workingCopyBytes(_ trace: ReadTrace) -> Int {
        trace.bytesRead { $0.hasPrefix(cli.appData + "/") && $0.contains("levels.sqlite") && !$0.hasSuffix(".lock") }
    }

    @Test func firstDeployReadsTheSeedOnce() throws {
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.size] as? Int)

        let trace = try ReadTrace.run(cli, ["deploy"] + flags(seed))
        #expect(trace.status == 0, "\(trace.stderr)")

        // The header check reads the first 100 bytes; the hash pass, the rest.
        let seedBytes = trace.bytesRead { $0 == seed }
        #expect(seedBytes == size, "read \(seedBytes) bytes of a \(size)-byte seed")
        // The digest is remembered for the seed's identity, change time included.
        let source = try #require(try entry()["source"] as? [String: Any])
        #expect(source["sha256"] as? String == (try entry()["sha256"] as? String))
        #expect(source["changed"] is Int && source["modified"] is Int && source["inode"] is Int)
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }

    @Test func aSignedFirstDeployStillReadsTheSeedOnce() throws {
        // Given a big seed listed with its sha256 in a manifest SeedDB signed
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.size] as? Int)
        let (publicKey, secretKey) = (cli.root + "/release.pub", cli.root + "/release.key")
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", publicKey, "--secret-key", secretKey]).status == 0)
        let manifest = cli.root + "/seeds.json"
        let digest = try cli.shell("sha256sum '\(seed)' | cut -c1-64").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data(#"{"app": "\#(cli.app)", "serial": 1, "seeds": [{"source": "big.sqlite", "name": "levels.sqlite", "version": "1", "sha256": "\#(digest)"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["sign", "--key", secretKey, manifest]).status == 0)

        // When it is deployed trusting the key, the signature check reads the manifest, not the seed
        let trace = try ReadTrace.run(cli, ["deploy", "--manifest", manifest, "--trusted-key", publicKey])
        #expect(trace.status == 0, "\(trace.stderr)")
        let seedBytes = trace.bytesRead { $0 == seed }
        #expect(seedBytes == size, "read \(seedBytes) bytes of a \(size)-byte seed: one pass, the copy's")
        #expect((try entry()["signature"] as? [String: Any])?["serial"] as? Int == 1)
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }

    @Test func aSignedManifestIsReadAndCheckedOncePerRunWhateverItLists() throws {
        // Given a signed manifest of three seeds
        let (publicKey, secretKey) = (cli.root + "/release.pub", cli.root + "/release.key")
        #expect(try cli.run(["keygen", "--unencrypted", "--public-key", publicKey, "--secret-key", secretKey]).status == 0)
        var entries: [String] = []
        for name in ["a", "b", "c"] {
            let seed = try cli.makeSeed("\(name).sqlite", marker: name, megabytes: 1)
            let digest = try cli.shell("sha256sum '\(seed)' | cut -c1-64").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            entries.append(#"{"source": "\#(name).sqlite", "name": "\#(name).sqlite", "version": "1", "sha256": "\#(digest)"}"#)
        }
        let manifest = cli.root + "/seeds.json"
        try Data(#"{"app": "\#(cli.app)", "serial": 1, "seeds": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(try cli.run(["sign", "--key", secretKey, manifest]).status == 0)
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }

        // When the release is deployed, then deployed again (the fast path), trusting the key
        for _ in 0..<2 {
            let trace = try ReadTrace.run(cli, ["deploy", "--manifest", manifest, "--trusted-key", publicKey])
            #expect(trace.status == 0, "\(trace.stderr)")
            // Then each run reads the manifest and its signature once, not once per seed and step
            #expect(trace.bytesRead { $0 == manifest } == size(manifest))
            #expect(trace.bytesRead { $0 == manifest + ".minisig" } == size(manifest + ".minisig"))
        }
    }

    @Test func reseedOfAKnownSeedReadsNoByteOfIt() throws {
        // Given a seed deployed once (its digest remembered, its content checked)
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.size] as? Int)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)

        // When it is reseeded (the previous generation not kept: keeping it reads the old
        // merge base once, to keep it compressed, see BENCHMARKS.md)
        let trace = try ReadTrace.run(cli, ["reseed", "--keep-previous", "false"] + flags(seed))

        // Then no byte of the seed is read, and the copy is not read back to be hashed:
        // what SQLite reads of the old and new copy to carry the app's tables is a few pages.
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0)
        let copyBytes = workingCopyBytes(trace)
        #expect(copyBytes < size / 16, "read \(copyBytes) bytes of the working copies")
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }

    @Test func restoreOfAKnownSeedReadsNeitherTheSeedNorTheCopy() throws {
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)
        try FileManager.default.removeItem(atPath: cli.contentFile)
        try FileManager.default.removeItem(atPath: cli.workingCopy)

        let trace = try ReadTrace.run(cli, ["deploy"] + flags(seed))

        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0)
        #expect(workingCopyBytes(trace) == 0)
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }

    @Test func integrityFullReadsTheCopyBack() throws {
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.size] as? Int)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)
        try FileManager.default.removeItem(atPath: cli.contentFile)
        try FileManager.default.removeItem(atPath: cli.workingCopy)

        let trace = try ReadTrace.run(cli, ["deploy", "--integrity", "full"] + flags(seed))

        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0, "the seed is known: not read")
        #expect(workingCopyBytes(trace) >= size, "the copy is read back")
    }

    @Test func aChangedSeedIsHashedAgainEvenWithItsModificationTimeRestored() throws {
        // Given a deployed seed
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 2)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)
        let before = try #require(try entry()["source"] as? [String: Any])

        // When its bytes change in place and its modification time is put back
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.modificationDate] as? Date)
        let queue = try DatabaseQueue(path: seed)
        try queue.write { try $0.execute(sql: "UPDATE levels SET map = randomblob(16) WHERE ix = 1") }
        try queue.close()
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: seed)
        let trace = try ReadTrace.run(cli, ["reseed"] + flags(seed))

        // Then the change time tells: the seed is read and the new digest remembered
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } > 0)
        let after = try #require(try entry()["source"] as? [String: Any])
        #expect(after["changed"] as? Int != before["changed"] as? Int)
        #expect(after["sha256"] as? String != before["sha256"] as? String)
    }

    @Test func aSourceWithoutChangeTimeIsACacheMiss() throws {
        // Given an entry written before the change time was remembered
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 2)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: cli.bytes(cli.settingsFile) ?? Data()) as? [String: Any])
        var seeddb = try #require(document["seeddb"] as? [String: Any])
        var entry = try #require(seeddb["levels.sqlite"] as? [String: Any])
        var source = try #require(entry["source"] as? [String: Any])
        source["changed"] = nil
        entry["source"] = source
        seeddb["levels.sqlite"] = entry
        document["seeddb"] = seeddb
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: cli.settingsFile))

        // When it is reseeded, the seed is hashed (once) and the full identity remembered
        let trace = try ReadTrace.run(cli, ["reseed"] + flags(seed))
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } > 0)
        #expect((try self.entry()["source"] as? [String: Any])?["changed"] is Int)
    }

    @Test func aManifestDigestIsCheckedAgainstTheRememberedOne() throws {
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 2)
        #expect(try cli.run(["deploy"] + flags(seed)).status == 0)
        let digest = try #require(try entry()["sha256"] as? String)

        var trace = try ReadTrace.run(cli, ["reseed", "--sha256", digest] + flags(seed))
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0)

        let wrong = String(repeating: "0", count: 64)
        trace = try ReadTrace.run(cli, ["reseed", "--sha256", wrong] + flags(seed))
        #expect(trace.status == 65, "\(trace.stderr)")
        #expect(trace.stderr.contains("expected \(wrong)"))
        #expect(trace.bytesRead { $0 == seed } == 0, "refused on the remembered digest")
        #expect(cli.temporaryFiles.isEmpty)
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }
}

/// The same on a reflink file system: an XFS image, loop-mounted for the suite (root and
/// `mkfs.xfs` needed), where the copy is a `FICLONE`.
@Suite(.enabled(if: ReadTrace.isAvailable && ReflinkVolume.isPossible, "needs strace, root and mkfs.xfs"))
struct ReflinkHashOnceTests {
    @Test func aKnownSeedIsClonedWithoutReadingItAndANewOneIsReadOnce() throws {
        let volume = try ReflinkVolume()
        let cli = CLIHarness(root: volume.mountPoint + "/run")
        // Given a seed on the reflink volume, deployed once: read exactly once
        let seed = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: seed)[.size] as? Int)
        let flags = ["--app", cli.app, "--seed", seed, "--name", "levels.sqlite", "--version", "1"]
        var trace = try ReadTrace.run(cli, ["deploy"] + flags)
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == size)

        // When it is reseeded and restored, nothing of it is read
        trace = try ReadTrace.run(cli, ["reseed"] + flags)
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0)
        try FileManager.default.removeItem(atPath: cli.contentFile)
        try FileManager.default.removeItem(atPath: cli.workingCopy)
        trace = try ReadTrace.run(cli, ["deploy"] + flags)
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(trace.bytesRead { $0 == seed } == 0)
        #expect(trace.bytesRead { $0.hasPrefix(cli.appData + "/") && $0.contains("levels.sqlite") } == 0)

        // Then the working copy shares the seed's extents
        let shared = try cli.shell("filefrag -v '\(cli.contentFile)' | grep -c shared")
        #expect(Int(shared.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0, "not a clone: \(shared.stdout)")
        #expect(cli.generation(of: cli.workingCopy) == .generation("one"))
    }
}

/// A small XFS image with reflinks, loop-mounted until released.
final class ReflinkVolume {
    let image: String
    let mountPoint: String

    static var isPossible: Bool {
        getuid() == 0 && ["/sbin/mkfs.xfs", "/usr/sbin/mkfs.xfs"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init() throws {
        var template = Array("/tmp/seeddb-xfs-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        image = directory + "/volume.img"
        mountPoint = directory + "/mnt"
        let result = try CLIHarness().shell("mkdir -p '\(mountPoint)' && truncate -s 512M '\(image)' && mkfs.xfs -q -f -m reflink=1 '\(image)' && mount -o loop '\(image)' '\(mountPoint)'")
        try #require(result.status == 0, "cannot make the XFS volume: \(result.stderr)")
    }

    deinit {
        _ = try? CLIHarness().shell("umount '\(mountPoint)'; rm -rf '\(FileSystemPath.directory(of: image))'")
    }
}

enum FileSystemPath {
    static func directory(of path: String) -> String { String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
}

/// A run of the built binary under `strace`, and the bytes it read from each file.
struct ReadTrace {
    var status: Int32
    var stderr: String
    /// Bytes read in user space, by path.
    var bytes: [String: Int]

    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isAvailable: Bool { strace != nil }

    /// The bytes read from the files whose path satisfies `matching`.
    func bytesRead(_ matching: (String) -> Bool) -> Int {
        bytes.filter { matching($0.key) }.values.reduce(0, +)
    }

    /// Runs `seeddb arguments` under `strace` in `cli`'s directories.
    static func run(_ cli: CLIHarness, _ arguments: [String]) throws -> ReadTrace {
        let output = cli.root + "/strace-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(strace))
        process.arguments = ["-f", "-y", "-s", "0", "-e", "trace=read,pread64,readv,preadv,preadv2,mmap", "-o", output, CLIHarness.binary] + arguments
        process.environment = cli.environment
        process.currentDirectoryURL = URL(fileURLWithPath: cli.root)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return ReadTrace(status: process.terminationStatus, stderr: stderr, bytes: parse(text))
    }

    /// Sums the results of reads (and the lengths of mappings) per file.
    ///
    /// A call another thread interrupted is split over two lines, `… <unfinished ...>` and
    /// `<... pread64 resumed> …) = N`: the first names the file, the second the result.
    static func parse(_ text: String) -> [String: Int] {
        var bytes: [String: Int] = [:]
        var pending: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let pid = String(parts[0])
            let call = String(parts[1]).trimmingCharacters(in: .whitespaces)
            if call.hasPrefix("mmap(") {
                // mmap(addr, length, prot, flags, fd</path>, offset) = address
                let fields = call.dropFirst(5).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count >= 5, let path = Self.path(in: fields[4]), let length = Int(fields[1]), !call.contains("= -1") else { continue }
                bytes[path, default: 0] += length
                continue
            }
            let path: String?
            if call.hasPrefix("<...") {
                path = pending.removeValue(forKey: pid)
            } else {
                path = Self.path(in: call)
                if call.hasSuffix("<unfinished ...>") {
                    if let path { pending[pid] = path }
                    continue
                }
            }
            guard let path, let equals = call.range(of: ") = ", options: .backwards) else { continue }
            let result = call[equals.upperBound...].prefix { $0.isNumber || $0 == "-" }
            if let count = Int(result), count > 0 { bytes[path, default: 0] += count }
        }
        return bytes
    }

    /// The path `strace -y` prints after the first descriptor: `3</path/to/file>`.
    private static func path(in text: String) -> String? {
        guard let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") else { return nil }
        let before = text[..<open].last
        guard let before, before.isNumber else { return nil }
        return String(text[text.index(after: open)..<close])
    }
}
