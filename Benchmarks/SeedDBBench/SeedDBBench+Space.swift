#if canImport(Glibc)
import Glibc
#endif
import Foundation

extension SeedDBBench {
    /// One row of the bytes-at-rest table.
    struct SpaceRow {
        var fileSystem: String
        var layout: String
        var moment: String
        /// The blocks removing SeedDB's files frees (`statvfs`, after `sync`): what they hold
        /// that nothing else does, shared extents and hard links counted once.
        var held: Int64
        /// Of those, what removing the merge bases alone frees.
        var bases: Int64
        /// `du --block-size=1` of the working copy's directory (each inode once, sharing
        /// with files outside it not seen).
        var du: Int64
        /// The size of the seed deployed at that moment (v1 after a first deploy, v2 after an
        /// upgrade: v2's edit makes it 64 KiB larger, and the working copy holds v2's pages).
        var seedSize: Int64
        var files: String
    }

    /// The layouts measured: the flags, whether system mode, and the label.
    static let spaceLayouts: [(label: String, flags: [String], system: Bool)] = [
        ("data, merge, previous kept, system mode", ["--merge", "user-wins"], true),
        ("data, merge, previous kept, user mode", ["--merge", "user-wins"], false),
        ("data, no merge, previous kept, user mode", ["--merge", "off"], false),
        ("cache, no merge, previous kept, user mode", ["--merge", "off", "--location", "cache"], false),
        ("read-only, user mode", ["--read-only"], false),
    ]

    /// Issue 30, item 3: the bytes a working copy holds at rest, per layout, on ext4 and on
    /// XFS with reflinks (each a loop image made here): after a first deploy of a 64 MiB
    /// seed, and after the package manager renamed v2 over it (the user had edited 1 % of
    /// the rows) and v2 was deployed. Measured as the blocks freed by removing SeedDB's
    /// files (`df` before and after, `sync`ed), the merge bases first.
    mutating func bytesAtRest() {
        guard getuid() == 0 else { return print("bytes at rest: skipped, not running as root (mount needs it)") }
        for (name, make) in [("ext4", "mkfs.ext4 -q -F"), ("XFS with reflinks", "mkfs.xfs -q -f -m reflink=1")] {
            guard Measure.has(String(make.split(separator: " ")[0])) else {
                print("bytes at rest on \(name): skipped, \(make.split(separator: " ")[0]) is missing")
                continue
            }
            let image = scratch + "/space.img"
            let mountPoint = scratch + "/space"
            _ = Measure.shell("umount '\(mountPoint)' 2>/dev/null; rm -f '\(image)'; mkdir -p '\(mountPoint)'")
            guard Measure.shell("truncate -s 2G '\(image)' && \(make) '\(image)' && mount -o loop '\(image)' '\(mountPoint)'").status == 0 else {
                print("bytes at rest on \(name): skipped, could not make or loop-mount the image")
                continue
            }
            defer { _ = Measure.shell("umount '\(mountPoint)'; rm -f '\(image)'") }
            // v1: the benchmark's 64 MiB seed; v2: the same with 5 % of its rows changed, a file of its own.
            let v1 = mountPoint + "/v1.sqlite"
            let v2 = mountPoint + "/v2.sqlite"
            precondition(Measure.shell("cp --reflink=never '\(seed64M)' '\(v1)' && cp --reflink=never '\(seed64M)' '\(v2)' && sqlite3 '\(v2)' \"UPDATE tiles SET zoom = zoom + 100 WHERE id % 20 = 0\"").status == 0)
            for layout in Self.spaceLayouts {
                for upgraded in [false, true] {
                    space.append(spaceRow(on: mountPoint, fileSystem: name, layout: layout, v1: v1, v2: v2, upgraded: upgraded))
                }
            }
        }
        for row in space where row.moment == "after an upgrade" && row.layout.hasPrefix("data, merge") {
            let ratio = Double(row.held) / Double(row.seedSize)
            let system = row.layout.hasSuffix("system mode")
            let reflinks = row.fileSystem.hasPrefix("XFS")
            add(Result(
                figure: "Bytes at rest, \(row.layout), after an upgrade, \(row.fileSystem) (64 MiB seed)",
                value: String(format: "%.1f MiB (bases %.1f MiB)", Double(row.held) / 1_048_576, Double(row.bases) / 1_048_576),
                reference: String(format: "the seed deployed (v2): %.1f MiB", Double(row.seedSize) / 1_048_576),
                ratio: String(format: "%.2f×", ratio),
                target: reflinks ? "bases share the seed's extents (≤ 0.1×)" : system ? "≤ 2×" : "reported",
                met: reflinks ? Double(row.bases) <= 0.1 * Double(row.seedSize) : system ? ratio <= 2 : nil))
        }
    }

    /// One layout at one moment, from nothing: the package's seed v1 installed (root's,
    /// 0644, renamed into place), deployed; for `upgraded`, 1 % of the rows edited, v2
    /// renamed over the seed, deployed. Then the bases are removed, then everything of
    /// SeedDB's, each time `sync` and `df`.
    func spaceRow(on mountPoint: String, fileSystem: String, layout: (label: String, flags: [String], system: Bool), v1: String, v2: String, upgraded: Bool) -> SpaceRow {
        let root = mountPoint + "/run"
        let seed = root + "/usr/share/bench/tiles.sqlite"
        _ = Measure.shell("rm -rf '\(root)' && mkdir -p '\(root)/usr/share/bench'")
        // A read-only seed must be one the app's user cannot write (root runs the benchmark).
        let readOnly = layout.flags.contains("--read-only")
        func install(_ content: String) {
            precondition(Measure.shell("cp --reflink=never '\(content)' '\(seed).new' && chmod \(readOnly ? "0444" : "0644") '\(seed).new' && mv '\(seed).new' '\(seed)'").status == 0)
        }
        let location = layout.flags.contains("cache") ? "cache" : "data"
        let environment = xdg(root + "/home")
        let system = layout.system ? ["--system", "--root", root] : []
        let directory = layout.system ? root + (location == "cache" ? "/var/cache/bench" : "/var/lib/bench") : root + "/home/\(location)/bench"
        func deploy(_ version: Int) {
            let run = Measure.run([seeddb, "deploy", "--quiet", "--app", "bench", "--seed", seed, "--version", "\(version)"] + system + layout.flags, environment: environment)
            precondition(run.status == 0, "deploy of v\(version) (\(layout.label)) failed")
        }
        install(v1)
        deploy(1)
        if upgraded {
            // Nobody writes a read-only seed.
            precondition(readOnly || Measure.shell("sqlite3 '\(directory)/tiles.sqlite' \"UPDATE tiles SET zoom = zoom + 1 WHERE id % 100 = 0\"").status == 0)
            install(v2)
            deploy(2)
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { !$0.hasSuffix(".lock") && !$0.hasSuffix(".json") }.sorted()
            .map { $0.replacingOccurrences(of: "tiles.sqlite", with: "") }.map { $0.isEmpty ? "link" : $0 }.joined(separator: ", ")
        let du = Int64(Measure.output("du -s --block-size=1 '\(directory)' | cut -f1")) ?? 0
        let before = Self.usedBytes(mountPoint)
        _ = Measure.shell("rm -f '\(directory)/tiles.sqlite.base' '\(directory)/tiles.sqlite.previous.base' '\(directory)/tiles.sqlite.previous.base.xor.zst'")
        let withoutBases = Self.usedBytes(mountPoint)
        _ = Measure.shell("rm -rf '\(root)/home' '\(root)/var'")
        let after = Self.usedBytes(mountPoint)
        return SpaceRow(
            fileSystem: fileSystem, layout: layout.label, moment: upgraded ? "after an upgrade" : "after a first deploy",
            held: before - after, bases: before - withoutBases, du: du, seedSize: Self.fileSize(upgraded ? v2 : v1), files: files)
    }

    /// The bytes in use on the file system mounted at `mountPoint` (`statvfs`), once
    /// everything is on disk: `sync`, then a freeze and thaw (`fsfreeze`), which makes XFS
    /// finish freeing the blocks of removed files (it does that in the background), then
    /// read until two readings agree.
    static func usedBytes(_ mountPoint: String) -> Int64 {
        func read() -> Int64 {
            _ = Measure.shell("sync; fsfreeze -f '\(mountPoint)' 2>/dev/null && fsfreeze -u '\(mountPoint)'")
            var info = statvfs()
            guard statvfs(mountPoint, &info) == 0 else { return 0 }
            return (Int64(info.f_blocks) - Int64(info.f_bfree)) * Int64(info.f_frsize)
        }
        var last = read()
        for _ in 0..<20 {
            usleep(200_000)
            let now = read()
            if now == last { return now }
            last = now
        }
        return last
    }

    /// The bytes-at-rest table, in Markdown.
    var spaceTable: String {
        guard !space.isEmpty else { return "" }
        var text = """

        ## Bytes at rest per layout (issue 30)

        A 64 MiB seed (\(String(format: "%.1f", Double(space[0].seedSize) / 1_048_576)) MiB, the benchmark's compressible tiles), shipped as a package does it
        (root's, 0644, a new version renamed over the old), deployed with the flags named; the upgrade
        follows a user edit of 1 % of the rows. **× seed** is against the seed deployed at that
        moment: v1, and after an upgrade v2 (64 KiB larger than v1: its edit of 5 % of the rows
        grew it 16 pages; the previous generation holds v1's pages, the working copy v2's). **Held** is what removing SeedDB's files frees
        (`statvfs` used blocks before and after, each after `sync` and an `fsfreeze` freeze and thaw, which makes XFS finish freeing removed files' blocks, until two readings agree): shared extents and hard links are
        counted once, and the old seed's content a base keeps alive after the package replaced it is
        counted, since only SeedDB holds it then. **Bases** is what removing `.base` and `.previous.base`
        (or `.previous.base.xor.zst`, the base's compressed difference from `.previous`, kept so where the base shares its bytes with no other file) alone frees. `du` is `du -s --block-size=1` of the directory (it counts every inode in it once
        and cannot see sharing with the seed). A read-only seed (issue 30, item 4) is shipped 0444 and
        not edited (nobody writes it); its working copy is a link to the seed.

        | File system | Layout | Moment | Files | Held | × seed | Bases | `du` |
        |---|---|---|---|---|---|---|---|

        """
        for row in space {
            func mib(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
            text += "| \(row.fileSystem) | \(row.layout) | \(row.moment) | \(row.files) | \(mib(row.held)) | \(String(format: "%.2f×", Double(row.held) / Double(row.seedSize))) | \(mib(row.bases)) | \(mib(row.du)) |\n"
        }
        return text
    }
}

extension Measure {
    /// The standard output of a shell command line, trimmed.
    static func output(_ command: String) -> String {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = pipe
        do { try process.run() } catch { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
