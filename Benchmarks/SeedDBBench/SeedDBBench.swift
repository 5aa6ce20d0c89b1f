#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import Logging
import SeedDB

/// The SeedDB benchmark: every figure is a median over repeated runs, printed beside a
/// reference measured in the same run, and written to BENCHMARKS.md. `seeddb-bench`
/// (``BenchCommand``) parses the options and runs it.
struct SeedDBBench {
    var scratch = "/tmp/seeddb-bench"
    var output = "BENCHMARKS.md"
    var runs = 5
    var only: Set<String>?
    let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    var results: [Result] = []
    /// The bytes-at-rest table (``bytesAtRest()``).
    var space: [SpaceRow] = []

    /// One line of the results table.
    struct Result {
        var figure: String
        var value: String
        var reference: String
        var ratio: String
        var target: String
        var met: Bool?
    }

    var seeddb: String { binaries + "/seeddb" }
    var hello: String { binaries + "/bench-hello" }
    var seed1M: String { scratch + "/seed-1m.sqlite" }
    var seed64M: String { scratch + "/seed-64m.sqlite" }
    var seed1G: String { scratch + "/seed-1g.sqlite" }

    mutating func runAll() throws {
        for tool in [seeddb, hello] where !FileManager.default.isExecutableFile(atPath: tool) {
            fatalError("\(tool) is missing: run `Scripts/build-release.sh seeddb-bench bench-hello` first")
        }
        for tool in ["cp", "sync", "sqlite3", "openssl"] where !Measure.has(tool) {
            fatalError("\(tool) is missing: apt-get install -y sqlite3 openssl coreutils")
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        print("generating seeds in \(scratch) (kept between runs)…")
        try Self.makeSeed(seed1M, megabytes: 1)
        try Self.makeSeed(seed64M, megabytes: 64)
        // The bytes-at-rest table needs only the 64 MiB seed.
        if only.map({ !$0.isSubset(of: ["space"]) }) ?? true { try Self.makeSeed(seed1G, megabytes: 1024) }

        func wanted(_ figure: String) -> Bool { only?.contains(figure) ?? true }
        if wanted("startup") { try startupInProcess() }
        if wanted("process") { startupProcess() }
        if wanted("throughput") { throughputAndMemory() }
        if wanted("reseed") { reseedAndRestore(on: scratch, seed: seed1G, label: "scratch file system", reference: "cp", target: 1 / 0.9) }
        if wanted("reflink") { reflinkFigures() }
        if wanted("hashing") { try hashing() }
        if wanted("compressed") { compressedDeploy() }
        if wanted("live") { liveVersusSwap() }
        if wanted("contention") { coreContention() }
        if wanted("merge") { try mergedDeploy() }
        if wanted("untouched") { try untouchedUpgrade() }
        if wanted("space") { bytesAtRest() }
        if wanted("readonly") { try readOnlyLink() }
        try write()
    }

    // MARK: - Figures

    /// The up-to-date `deploy` call, in process, against `stat` + reading the settings.
    mutating func startupInProcess() throws {
        let directory = scratch + "/startup"
        try? FileManager.default.removeItem(atPath: directory)
        let directories = XDGDirectories(dataHome: directory + "/data", cacheHome: directory + "/cache", configHome: directory + "/config")
        let deployer = Deployer(directories: directories, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        // One app per seed, as an app ships its seed: each has its own settings file.
        let small = try Seed(app: AppIdentifier("bench-small"), source: seed1M, version: SeedVersion("1"))
        let large = try Seed(app: AppIdentifier("bench-large"), source: seed1G, version: SeedVersion("1"))
        let auto = try Seed(app: AppIdentifier("bench-auto"), source: seed1G, version: .auto)
        for seed in [small, large, auto] { try deployer.deploy(seed) }

        let iterations = 2000
        func perCall(_ body: () throws -> Void) rethrows -> Double {
            try Measure.seconds { for _ in 0..<iterations { try body() } } / Double(iterations) * 1e6
        }
        func reference(_ seed: Seed) -> Double {
            let paths = deployer.paths(for: seed)
            return perCall { Self.bareStartupCheck(workingCopy: paths.workingCopy, settings: paths.settingsFile) }
        }
        var samples: [String: [Double]] = [:]
        for _ in 0..<(runs * 3) {
            samples["ref-small", default: []].append(reference(small))
            samples["small", default: []].append(try perCall { try deployer.deploy(small) })
            samples["large", default: []].append(try perCall { try deployer.deploy(large) })
            samples["auto", default: []].append(try perCall { try deployer.deploy(auto) })
        }
        let reference = Measure.median(samples["ref-small"]!)
        for (key, label) in [("small", "1 MiB seed"), ("large", "1 GiB seed"), ("auto", "1 GiB seed, version auto")] {
            let value = Measure.median(samples[key]!)
            add(Result(
                figure: "Startup check in process (up-to-date `deploy`), \(label)",
                value: String(format: "%.2f µs", value), reference: String(format: "stat + read settings: %.2f µs", reference),
                ratio: String(format: "%.2f×", value / reference), target: "≤ 5×", met: value / reference <= 5))
        }
        let spread = Measure.median(samples["large"]!) / Measure.median(samples["small"]!)
        add(Result(
            figure: "Startup check, 1 GiB seed against 1 MiB seed", value: String(format: "%.2f µs", Measure.median(samples["large"]!)),
            reference: String(format: "1 MiB: %.2f µs", Measure.median(samples["small"]!)),
            ratio: String(format: "%.2f×", spread), target: "within 10 %", met: abs(spread - 1) <= 0.10))
    }

    /// `seeddb deploy` up to date as a whole process, against a Foundation hello world
    /// built with `-static-stdlib` and the dynamically linked one (both compiled here with
    /// `swiftc -O`, from `Benchmarks/Hello`).
    mutating func startupProcess() {
        let environment = xdg(scratch + "/process")
        let deploy = [seeddb, "deploy", "--quiet", "--app", "bench", "--seed", seed1M, "--version", "1"]
        _ = Measure.run(deploy, environment: environment)
        let linkage = Measure.shell("ldd '\(seeddb)' | grep -q libswiftCore").status == 0 ? "dynamic" : "static"
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Hello/main.swift"
        var hellos: [(String, String)] = []
        for (name, flags) in [("static", "-static-stdlib"), ("dynamic", "")] {
            let binary = scratch + "/hello-\(name)"
            if Measure.shell("swiftc -O \(flags) '\(source)' -o '\(binary)'").status == 0 {
                hellos.append((name, binary))
            } else {
                add(Result(
                    figure: "Startup check as a process, against a \(name) hello world", value: "skipped: swiftc could not build \(source)",
                    reference: "-", ratio: "-", target: "-", met: nil))
            }
        }
        // One paired loop per hello world (seeddb, then its hello, in turn): a third process
        // between two runs (the dynamic hello world maps a dozen shared libraries) would
        // leave the caches cold for whichever runs after it.
        for (name, binary) in hellos {
            var ours: [Double] = []
            var reference: [Double] = []
            for _ in 0..<(runs * 8) {
                let run = Measure.run(deploy, environment: environment)
                precondition(run.status == 0, "seeddb deploy failed")
                ours.append(run.seconds * 1000)
                reference.append(Measure.run([binary]).seconds * 1000)
            }
            let value = Measure.median(ours)
            let base = Measure.median(reference)
            add(Result(
                figure: "Startup check as a process (`seeddb deploy`, up to date, \(linkage) release build), against a \(name) hello world",
                value: String(format: "%.2f ms", value),
                reference: String(format: "Foundation hello world, %@: %.2f ms", name == "static" ? "-static-stdlib" : "dynamic", base),
                ratio: String(format: "%.2f×", value / base), target: name == "static" ? "≤ 1.5×" : "reported",
                met: name == "static" ? value / base <= 1.5 : nil))
        }
        if let staticHello = hellos.first(where: { $0.0 == "static" })?.1 {
            startupInstructions(deploy: deploy, environment: environment, hello: staticHello)
            binarySize(hello: staticHello)
        }
    }

    /// The up-to-date `deploy` in instructions, which stay the same on a loaded machine,
    /// against the static hello world: `valgrind --tool=callgrind`, on stripped copies
    /// (valgrind cannot read the debug information a release build carries).
    mutating func startupInstructions(deploy: [String], environment: [String: String], hello: String) {
        guard Measure.has("valgrind") else { return }
        func instructions(_ arguments: [String]) -> Double? {
            let stripped = scratch + "/stripped-" + FileSystemName.of(arguments[0])
            guard Measure.shell("strip -o '\(stripped)' '\(arguments[0])'").status == 0 else { return nil }
            let report = scratch + "/callgrind.txt"
            let command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--log-file=\(report)", stripped] + arguments.dropFirst()
            guard Measure.run(command, environment: environment).status == 0,
                  let text = try? String(contentsOfFile: report, encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.contains("refs:") }) else { return nil }
            return Double(line.split(separator: ":").last!.filter(\.isNumber))
        }
        guard let ours = instructions(deploy), let base = instructions([hello]) else { return }
        add(Result(
            figure: "Startup check as a process (`seeddb deploy`, up to date), in instructions (callgrind), against the static hello world",
            value: String(format: "%.1f M", ours / 1e6), reference: String(format: "Foundation hello world, -static-stdlib: %.1f M", base / 1e6),
            ratio: String(format: "%.2f×", ours / base), target: "≤ 1.5×", met: ours / base <= 1.5))
    }

    /// The stripped size of `seeddb` as packaged, against the static hello world.
    mutating func binarySize(hello: String) {
        func strippedSize(_ binary: String) -> Double? {
            let stripped = scratch + "/stripped-size"
            guard Measure.shell("strip -o '\(stripped)' '\(binary)'").status == 0 else { return nil }
            return Double(Self.fileSize(stripped))
        }
        guard let ours = strippedSize(seeddb), let base = strippedSize(hello) else { return }
        add(Result(
            figure: "Size of the stripped `seeddb` (as packaged)", value: String(format: "%.1f MB", ours / 1e6),
            reference: String(format: "Foundation hello world, -static-stdlib: %.1f MB", base / 1e6),
            ratio: String(format: "%.2f×", ours / base), target: "≤ 25 MB", met: ours <= 25e6))
    }

    /// `reseed` and restore (the working copy deleted) of a known seed in `directory`,
    /// against `reference` (`cp` or `cp --reflink=always`) + `sync` of the same seed; and
    /// on a reflink file system, a first deploy against `openssl dgst -sha256` + the copy.
    mutating func reseedAndRestore(on directory: String, seed: String, label: String, reference command: String, target: Double, firstDeploy: Bool = false) {
        let size = Double(Self.fileSize(seed))
        let environment = xdg(directory + "/reseed")
        // The cache location: one copy, no merge base (a `data` seed keeps one by default:
        // on ext4 a second copy, measured in the bytes-at-rest and untouched figures).
        let flags = ["--quiet", "--app", "bench", "--seed", seed, "--version", "1", "--keep-previous", "false", "--location", "cache"]
        let copy = directory + "/reference-copy.sqlite"
        let workingCopy = directory + "/reseed/cache/bench/" + FileSystemName.of(seed)
        var samples: [String: [Double]] = [:]
        for _ in 0..<max(3, runs - 2) {
            if firstDeploy {
                // Fresh directories each time: the seed is new to them, its digest unknown.
                try? FileManager.default.removeItem(atPath: directory + "/first")
                _ = Measure.shell("sync")
                samples["first", default: []].append(Self.timed([seeddb, "deploy", "--integrity", "none"] + flags, environment: xdg(directory + "/first")))
                try? FileManager.default.removeItem(atPath: directory + "/first")
                samples["first-ref", default: []].append(self.reference("openssl dgst -sha256 '\(seed)' > /dev/null && \(command) '\(seed)' '\(copy)' && sync '\(copy)'", writing: copy))
            }
            if !FileManager.default.fileExists(atPath: workingCopy) {
                _ = Measure.run([seeddb, "deploy"] + flags, environment: environment)
            }
            _ = Measure.shell("sync")
            samples["reseed", default: []].append(Self.timed([seeddb, "reseed"] + flags, environment: environment))
            // A cleaner wiped the working copy (its link and the file it points at).
            if let generation = try? FileManager.default.destinationOfSymbolicLink(atPath: workingCopy) {
                try? FileManager.default.removeItem(atPath: FileSystemName.directory(of: workingCopy) + "/" + generation)
            }
            try? FileManager.default.removeItem(atPath: workingCopy)
            _ = Measure.shell("sync")
            samples["restore", default: []].append(Self.timed([seeddb, "deploy"] + flags, environment: environment))
            samples["ref", default: []].append(self.reference("\(command) '\(seed)' '\(copy)' && sync '\(copy)'", writing: copy))
        }
        try? FileManager.default.removeItem(atPath: directory + "/reseed")
        let base = Measure.median(samples["ref"]!)
        let ceiling = String(format: "≤ %.2g× the time", target)
        if firstDeploy {
            let value = Measure.median(samples["first"]!)
            let reference = Measure.median(samples["first-ref"]!)
            add(Result(
                figure: "First deploy of a 1 GiB seed on \(label), --integrity none", value: String(format: "%.0f ms (%@)", value * 1000, Self.rate(size / value)),
                reference: String(format: "openssl dgst -sha256 + %@ + sync: %.0f ms", command, reference * 1000),
                ratio: String(format: "%.2f× the time", value / reference), target: "≤ 1.1× the time", met: value / reference <= 1.1))
        }
        for (key, what) in [("reseed", "Reseed"), ("restore", "Restore (working copy deleted)")] {
            let value = Measure.median(samples[key]!)
            add(Result(
                figure: "\(what) of a known 1 GiB seed on \(label)", value: String(format: "%.0f ms (%@)", value * 1000, Self.rate(size / value)),
                reference: String(format: "%@ + sync: %.0f ms", command, base * 1000),
                ratio: String(format: "%.2f× the time", value / base), target: ceiling, met: value / base <= target))
        }
    }

    /// The reseed, restore and first-deploy rows on an XFS image with reflinks, made and
    /// loop-mounted here, then unmounted and removed.
    mutating func reflinkFigures() {
        let label = "XFS with reflinks (loop image)"
        func skipped(_ why: String) {
            for figure in ["First deploy of a 1 GiB seed", "Reseed of a known 1 GiB seed", "Restore (working copy deleted) of a known 1 GiB seed"] {
                add(Result(figure: "\(figure) on \(label)", value: "skipped: \(why)", reference: "-", ratio: "-", target: "-", met: nil))
            }
        }
        guard getuid() == 0 else { return skipped("not running as root (mount needs it)") }
        guard Measure.has("mkfs.xfs") else { return skipped("mkfs.xfs is missing (apt-get install -y xfsprogs)") }
        let image = scratch + "/xfs.img"
        let mountPoint = scratch + "/xfs"
        _ = Measure.shell("umount '\(mountPoint)' 2>/dev/null; rm -f '\(image)'; mkdir -p '\(mountPoint)'")
        guard Measure.shell("truncate -s 4G '\(image)' && mkfs.xfs -q -f -m reflink=1 '\(image)' && mount -o loop '\(image)' '\(mountPoint)'").status == 0 else {
            return skipped("could not make or loop-mount an XFS image (loop devices unavailable?)")
        }
        defer { _ = Measure.shell("umount '\(mountPoint)'; rm -f '\(image)'") }
        let seed = mountPoint + "/seed-1g.sqlite"
        guard Measure.shell("cp '\(seed1G)' '\(seed)' && sync").status == 0,
              Measure.shell("cp --reflink=always '\(seed)' '\(mountPoint)/probe' && rm '\(mountPoint)/probe'").status == 0
        else { return skipped("the image does not clone files (cp --reflink=always failed)") }
        reseedAndRestore(on: mountPoint, seed: seed, label: label, reference: "cp --reflink=always", target: 2, firstDeploy: true)
    }

    /// A first deploy of 1 GiB (every fsync included), against `cp`+`sync` and
    /// `sqlite3 .backup`, with peak memory of the same runs and of a 64 MiB deploy.
    mutating func throughputAndMemory() {
        let size = Double(Self.fileSize(seed1G))
        let target = scratch + "/copy.sqlite"
        var samples: [String: [Double]] = [:]
        var memory: [String: [Int]] = [:]
        // Each copy follows the removal of the one before (1 GiB the file system still works
        // on after `sync`), and the first of an iteration follows `.backup`'s: the order
        // turns at every iteration, so no copy is always the one that pays for that.
        func deploy(_ integrity: String) -> (Self) -> Double {
            { bench in
                let run = bench.firstDeploy(bench.seed1G, integrity: integrity)
                memory["1g", default: []].append(run.peakResidentKiB)
                return run.seconds
            }
        }
        let copies: [(key: String, copy: (Self) -> Double)] = [
            ("none", deploy("none")),
            ("quick", deploy("quick")),
            ("cp", { bench in bench.reference("cp '\(bench.seed1G)' '\(target)' && sync '\(target)'", writing: target) }),
            ("backup", { bench in bench.reference("sqlite3 '\(bench.seed1G)' \".backup '\(target)'\"", writing: target) }),
        ]
        for iteration in 0..<max(4, runs - 2) {
            for index in copies.indices {
                let (key, copy) = copies[(index + iteration) % copies.count]
                samples[key, default: []].append(size / copy(self))
            }
            memory["64m", default: []].append(firstDeploy(seed64M, integrity: "quick").peakResidentKiB)
        }
        let cp = Measure.median(samples["cp"]!)
        let backup = Measure.median(samples["backup"]!)
        for (key, label) in [("none", "--integrity none"), ("quick", "--integrity quick")] {
            let value = Measure.median(samples[key]!)
            add(Result(
                figure: "First deploy of a 1 GiB seed, \(label)", value: Self.rate(value),
                reference: "cp + sync: \(Self.rate(cp))", ratio: String(format: "%.2f×", value / cp),
                target: key == "none" ? "≥ 0.9×" : "reported", met: key == "none" ? value / cp >= 0.9 : nil))
            add(Result(
                figure: "First deploy of a 1 GiB seed, \(label), against .backup", value: Self.rate(value),
                reference: "sqlite3 .backup: \(Self.rate(backup))", ratio: String(format: "%.2f×", value / backup),
                target: key == "none" ? "≥ 2.5×" : "reported", met: key == "none" ? value / backup >= 2.5 : nil))
        }
        let large = Double(Measure.median(memory["1g"]!.map(Double.init)))
        let small = Double(Measure.median(memory["64m"]!.map(Double.init)))
        add(Result(
            figure: "Peak resident memory of `seeddb deploy`, 1 GiB seed", value: String(format: "%.1f MiB", large / 1024),
            reference: String(format: "64 MiB seed: %.1f MiB", small / 1024), ratio: String(format: "+%.1f MiB", (large - small) / 1024),
            target: "≤ 48 MiB and ≤ 64 MiB case + 4 MiB", met: large <= 48 * 1024 && large <= small + 4096))
    }

    /// SHA-256 of 1 GiB in process, against `openssl dgst -sha256`.
    mutating func hashing() throws {
        let size = Double(Self.fileSize(seed1G))
        var ours: [Double] = []
        var reference: [Double] = []
        for _ in 0..<runs {
            reference.append(size / Measure.shell("openssl dgst -sha256 '\(seed1G)'").seconds)
            ours.append(size / (try Measure.seconds { _ = try FileDigest.sha256(ofFileAt: seed1G) }))
        }
        let value = Measure.median(ours)
        let base = Measure.median(reference)
        add(Result(
            figure: "SHA-256 of a 1 GiB seed (`version: auto`, records)", value: Self.rate(value),
            reference: "openssl dgst -sha256: \(Self.rate(base))", ratio: String(format: "%.2f×", value / base),
            target: "≥ 0.8×", met: value / base >= 0.8))
    }

    /// A first deploy of the 1 GiB seed shipped as `.zst`, against `zstd -d` + `sync`.
    mutating func compressedDeploy() {
        guard Measure.has("zstd") else {
            print("zstd is missing: skipping the compressed figure (apt-get install -y zstd)")
            return
        }
        let compressed = seed1G + ".zst"
        if Self.fileSize(compressed) == 0 {
            precondition(Measure.shell("zstd -q -f -3 '\(seed1G)' -o '\(compressed)'").status == 0, "zstd failed")
        }
        let size = Double(Self.fileSize(seed1G))
        let target = scratch + "/unzstd.sqlite"
        var ours: [Double] = []
        var reference: [Double] = []
        for _ in 0..<max(3, runs - 2) {
            ours.append(size / firstDeploy(compressed, integrity: "none").seconds)
            reference.append(size / self.reference("zstd -q -d -c '\(compressed)' > '\(target)' && sync '\(target)'", writing: target))
        }
        let value = Measure.median(ours)
        let base = Measure.median(reference)
        add(Result(
            figure: "First deploy of the 1 GiB seed shipped as .zst, --integrity none", value: Self.rate(value),
            reference: "zstd -d -c > dst && sync dst: \(Self.rate(base))", ratio: String(format: "%.2f×", value / base),
            target: "≥ 0.8×", met: value / base >= 0.8))
    }

    /// How much a SHA-256 running on the other core slows a kernel copy: on machines whose
    /// cores share execution resources, hashing every byte cannot hide behind the copy.
    mutating func coreContention() {
        let target = scratch + "/contended.sqlite"
        var alone: [Double] = []
        var beside: [Double] = []
        for _ in 0..<runs {
            alone.append(reference("cp '\(seed1G)' '\(target)'", writing: target) * 1000)
            beside.append(reference("openssl dgst -sha256 '\(seed1G)' > /dev/null & cp '\(seed1G)' '\(target)'; wait", writing: target) * 1000)
        }
        let value = Measure.median(beside)
        let reference = Measure.median(alone)
        add(Result(
            figure: "Context: `cp` of 1 GiB (no sync) while `openssl dgst -sha256` runs on the other core (both finish)",
            value: String(format: "%.0f ms", value), reference: String(format: "cp alone: %.0f ms", reference),
            ratio: String(format: "%.2f×", value / reference), target: "reported", met: nil))
    }

    /// `reseed` of 64 MiB by swap and by live.
    mutating func liveVersusSwap() {
        let environment = xdg(scratch + "/live")
        let base = ["reseed", "--quiet", "--keep-previous", "false", "--app", "bench", "--seed", seed64M, "--version", "1", "--location", "cache"]
        _ = Measure.run([seeddb] + base, environment: environment)
        var swap: [Double] = []
        var live: [Double] = []
        for _ in 0..<runs {
            swap.append(Measure.run([seeddb] + base + ["--strategy", "swap"], environment: environment).seconds * 1000)
            live.append(Measure.run([seeddb] + base + ["--strategy", "live"], environment: environment).seconds * 1000)
        }
        let value = Measure.median(live)
        let reference = Measure.median(swap)
        add(Result(
            figure: "Reseed of a 64 MiB seed, `--strategy live`", value: String(format: "%.0f ms", value),
            reference: String(format: "--strategy swap: %.0f ms", reference), ratio: String(format: "%.2f×", value / reference),
            target: "reported", met: nil))
    }

    // MARK: - Output

    mutating func add(_ result: Result) {
        results.append(result)
        let verdict = result.met.map { $0 ? "met" : "MISSED" } ?? "-"
        print("\(result.figure): \(result.value) | \(result.reference) | \(result.ratio) | \(result.target) | \(verdict)")
    }

    func write() throws {
        var text = """
        # Benchmarks

        Produced by `Scripts/build-release.sh seeddb-bench bench-hello && .build-release/release/seeddb-bench`
        (the flags the packaged `seeddb` is built with; this file is overwritten; run as root with `mkfs.xfs` installed for the reflink rows). Each figure is the median of repeated runs, measured in the same run as
        its reference, on the machine below. The machines are shared and noisy: read the
        ratios, not the absolute numbers. The copy figures (first deploy, reseed, restore,
        `.zst`, live) deploy to the cache location, one copy and no merge base; a `data` seed
        merges by default and keeps its merge base, which the bytes-at-rest and untouched
        figures measure.

        **Machine:** \(Self.machine(scratch))

        | Figure | SeedDB | Reference (same run) | Ratio | Target | Met |
        |---|---|---|---|---|---|

        """
        for result in results {
            text += "| \(result.figure) | \(result.value) | \(result.reference) | \(result.ratio) | \(result.target) | \(result.met.map { $0 ? "yes" : "**no**" } ?? "-") |\n"
        }
        text += spaceTable
        text += """

        Notes:
        - Throughput is the seed's size divided by the wall time of the whole process,
          every fsync included; each run starts from an empty target directory after `sync`.
          The page cache is warm for SeedDB and the references alike. The first deploys and
          their references (`cp`, `.backup`) take turns at going first in each round: the
          first copy after another's removal was the slow one.
        - A deploy records the SHA-256 of every byte it deploys (the settings store's
          `sha256`, the validation memo, `--sha256` checks), so its throughput is bounded by
          SHA-256 (the SHA-256 row) as much as by the disk. SeedDB hashes on a second thread
          and overlaps the final fsync with the end of the hashing; where the disk is slow
          the hash hides behind the flush, where the host caches writes (a `sync` of 1 GiB
          in a fraction of a second) the hash is the longer part. The context row shows
          whether the two cores can really run a copy and a hash side by side.
        - A seed's digest is remembered by file identity (device, inode, size, modification
          and change time): a reseed or restore of a known seed hashes nothing, and a kernel
          copy (`FICLONE`, `copy_file_range`) of an unchanged seed is not read back. A first
          deploy hashes the seed once, on a second thread that follows the kernel's copy.
        - The reflink rows run on an XFS image the harness makes (`mkfs.xfs -m reflink=1`),
          loop-mounted under the scratch directory, and removes after.
        - The read-only rows (a link straight to the seed, `--read-only`) copy and hash
          nothing: their time is the process and its flushes (the link's directory, the
          settings file and its directory), the same for any seed size.
        - The 1 GiB seed is generated by the harness (`\(scratch)`), never committed.

        """
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        print("wrote \(output)")
    }

    // MARK: - Helpers

    /// A first deploy of `seed` into empty XDG directories, after `sync`; they are removed after.
    func firstDeploy(_ seed: String, integrity: String) -> Measure.Run {
        let directory = scratch + "/first-deploy"
        try? FileManager.default.removeItem(atPath: directory)
        _ = Measure.shell("sync")
        let run = Measure.run([seeddb, "deploy", "--quiet", "--integrity", integrity, "--app", "bench", "--seed", seed, "--version", "1", "--location", "cache"], environment: xdg(directory))
        precondition(run.status == 0, "seeddb deploy of \(seed) failed")
        try? FileManager.default.removeItem(atPath: directory)
        return run
    }

    /// Seconds a run of `arguments` takes; it must succeed.
    static func timed(_ arguments: [String], environment: [String: String]) -> Double {
        let run = Measure.run(arguments, environment: environment)
        precondition(run.status == 0, "\(arguments.joined(separator: " ")) failed")
        return run.seconds
    }

    /// Seconds a reference command takes to write `target`, from none and after `sync`;
    /// `target` is removed after.
    func reference(_ command: String, writing target: String) -> Double {
        try? FileManager.default.removeItem(atPath: target)
        _ = Measure.shell("sync")
        let seconds = Measure.shell(command).seconds
        try? FileManager.default.removeItem(atPath: target)
        return seconds
    }

    func xdg(_ directory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory + "/data"
        environment["XDG_CACHE_HOME"] = directory + "/cache"
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        return environment
    }

    /// The work of the reference startup check: `stat` the working copy, read the settings.
    static func bareStartupCheck(workingCopy: String, settings: String) {
        var info = stat()
        _ = stat(workingCopy, &info)
        let fd = open(settings, O_RDONLY)
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(fd, &buffer, buffer.count)
        close(fd)
    }

    /// A seed of about `megabytes` MiB: tiles of compressible map data, as real seeds have.
    static func makeSeed(_ path: String, megabytes: Int) throws {
        if fileSize(path) >= Int64(megabytes) << 20 { return }
        try? FileManager.default.removeItem(atPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "CREATE TABLE tiles(id INTEGER PRIMARY KEY, zoom INTEGER NOT NULL, data BLOB NOT NULL)")
            // 32 distinct tiles of run-length map data (compressible, like real tiles),
            // each stored with its id stamped in, so no two rows are identical.
            var generator = SystemRandomNumberGenerator()
            let palette = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let tiles: [[UInt8]] = (0..<32).map { _ in
                var tile = [UInt8](repeating: 0, count: 64 * 1024)
                var index = 0
                while index < tile.count {
                    let value = palette[Int.random(in: 0..<palette.count, using: &generator)]
                    for _ in 0..<Int.random(in: 1...12, using: &generator) where index < tile.count {
                        tile[index] = value
                        index += 1
                    }
                }
                return tile
            }
            try db.inTransaction {
                for id in 0..<(megabytes * 16) {
                    var tile = tiles[id % tiles.count]
                    withUnsafeBytes(of: Int64(id).bigEndian) { tile.replaceSubrange(0..<8, with: $0) }
                    try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?)", arguments: [id, id % 18, Data(tile)])
                }
                return .commit
            }
        }
        try queue.close()
    }

    /// A path's last component and its directory.
    enum FileSystemName {
        static func of(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }
        static func directory(of path: String) -> String { String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        String(format: "%.0f MiB/s", bytesPerSecond / 1_048_576)
    }

    static func machine(_ scratch: String) -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let memory = ProcessInfo.processInfo.physicalMemory >> 30
        var system = utsname()
        uname(&system)
        let kernel = withUnsafeBytes(of: system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        var filesystem = "unknown"
        var longest = 0
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            if fields.count > 2, scratch.hasPrefix(fields[1]), fields[1].count > longest {
                longest = fields[1].count
                filesystem = fields[2]
            }
        }
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB RAM, Linux \(kernel), scratch on \(filesystem)"
    }
}
