import Foundation
import Testing

/// Seeddb itself ships. Zstandard without a build-time `-dev` package, the
/// self-contained release binary and its `.deb` (built by `Scripts/build-deb.sh`, which CI
/// runs before the tests and names in `SEEDDB_DEB`), the service unit, completion and man page.
@Suite struct ShippingTests {
    let cli = CLIHarness()

    /// The repository's root.
    static let repository = URL(fileURLWithPath: CLIHarness.seeds).deletingLastPathComponent().path

    /// The `.deb` that `Scripts/build-deb.sh` made, when `SEEDDB_DEB` names one.
    static let deb: String? = ProcessInfo.processInfo.environment["SEEDDB_DEB"].flatMap {
        FileManager.default.fileExists(atPath: $0) ? $0 : nil
    }

    static let noDeb: Comment = "SEEDDB_DEB is unset: run Scripts/build-deb.sh DIR and export SEEDDB_DEB=DIR/seeddb_<version>_<arch>.deb (.ci/run does)"

    /// Whether `command` is in one of the system directories of PATH.
    static func has(_ command: String) -> Bool {
        ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(command)") }
    }

    /// A PATH without the Swift toolchain.
    static let systemPath = "/usr/sbin:/usr/bin:/sbin:/bin"

    /// `text` quoted for `/bin/sh`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The `.deb` unpacked into a fresh directory of this test's.
    func unpackedDeb() throws -> String {
        let deb = try #require(Self.deb)
        let tree = cli.root + "/deb-tree"
        let result = try cli.shell("dpkg-deb -x \(Self.quoted(deb)) \(Self.quoted(tree))")
        try #require(result.status == 0, "\(result.stderr)")
        return tree
    }

    /// A field of the `.deb`'s control file.
    func field(_ name: String) throws -> String {
        let deb = try #require(Self.deb)
        let result = try cli.shell("dpkg-deb -f \(Self.quoted(deb)) \(name)")
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The libraries `ldd` says `binary` loads, as (soname, resolved path).
    func libraries(of binary: String) throws -> [(name: String, path: String)] {
        let result = try cli.shell("ldd \(Self.quoted(binary))")
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("(") }
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces) else { return nil }
            return (name, parts.count >= 3 ? parts[2] : name)
        }
    }

    // MARK: Zstandard without libzstd-dev

    @Test func theBuildDoesNotLinkLibzstd() throws {
        let linked = try libraries(of: CLIHarness.binary).map(\.name)
        #expect(linked.contains { $0.hasPrefix("libsqlite3") }, "ldd works: \(linked)")
        #expect(!linked.contains { $0.hasPrefix("libzstd") }, "libzstd is loaded when a .zst seed is met, not linked: \(linked)")
    }

    /// Whether this process can hide a file from a child in a private mount namespace.
    static let canHideLibraries: Bool = {
        guard geteuid() == 0, has("unshare"), has("mount") else { return false }
        return (try? CLIHarness().shell("unshare --mount sh -c 'mount --bind /dev/null /dev/null'"))?.status == 0
    }()

    @Test(.enabled(if: ShippingTests.canHideLibraries, "needs root and unshare --mount to hide libzstd.so.1 from seeddb"))
    func aMissingLibzstdIsOneClearErrorAndOnlyForZstdSeeds() throws {
        // Given a zstd seed, a gzip seed and a plain one, made while libzstd is there.
        let zst = cli.root + "/levels.sqlite.zst"
        let gz = cli.root + "/gz/levels.sqlite.gz"
        try FileManager.default.createDirectory(atPath: cli.root + "/gz", withIntermediateDirectories: true)
        for seed in [zst, gz] {
            let pack = try cli.run(["pack", "\(CLIHarness.seeds)/v1/levels.sql", "--output", seed, "--version", "1"])
            try #require(pack.status == 0, "\(pack.stderr)")
        }
        // When libzstd.so.1 reads as an empty file (a private bind mount of /dev/null on it).
        func withoutLibzstd(_ arguments: [String]) throws -> CLIHarness.Result {
            let command = ([CLIHarness.binary] + arguments).map(Self.quoted).joined(separator: " ")
            return try cli.shell("""
                library=$(readlink -f "$(/sbin/ldconfig -p | awk '$1 == "libzstd.so.1" { print $NF; exit }')")
                [ -f "$library" ] || { echo "no libzstd.so.1 to hide" >&2; exit 99; }
                exec unshare --mount sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$library" \(command)
                """)
        }
        // Then a zstd seed fails in one line naming the library and its package, exit 66.
        let deploy = try withoutLibzstd(["deploy"] + cli.seedFlags(1, source: zst))
        #expect(deploy.status == 66, "\(deploy.stderr)")
        #expect(deploy.stderr.hasPrefix("seeddb: error: "))
        #expect(deploy.stderr.contains("libzstd.so.1"))
        #expect(deploy.stderr.contains("apt-get install libzstd1"))
        #expect(deploy.stderr.contains(zst), "the message names the seed")
        #expect(deploy.stderr.split(separator: "\n").count == 1, "\(deploy.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        // Packing one fails the same way, and leaves nothing behind.
        let output = cli.root + "/out/levels.sqlite.zst"
        try FileManager.default.createDirectory(atPath: cli.root + "/out", withIntermediateDirectories: true)
        let pack = try withoutLibzstd(["pack", "\(CLIHarness.seeds)/v1/levels.sql", "--output", output, "--version", "1"])
        #expect(pack.status == 74, "\(pack.stderr)")
        #expect(pack.stderr.contains("libzstd.so.1"))
        #expect(cli.list(cli.root + "/out").isEmpty)
        // And gzip and plain seeds never need it.
        let gzip = try withoutLibzstd(["deploy"] + cli.seedFlags(1, source: gz))
        #expect(gzip.status == 0, "\(gzip.stderr)")
        #expect(cli.bytes(cli.workingCopy) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        let plain = try withoutLibzstd(["deploy"] + cli.seedFlags(2))
        #expect(plain.status == 0, "\(plain.stderr)")
    }

    // MARK: The release binary and its .deb

    @Test(.enabled(if: ShippingTests.deb != nil, ShippingTests.noDeb))
    func theDebHoldsEverythingAPackagerExpects() throws {
        let deb = try #require(Self.deb)
        let version = try field("Version")
        let arch = try field("Architecture")
        #expect(URL(fileURLWithPath: deb).lastPathComponent == "seeddb_\(version)_\(arch).deb")
        #expect(try field("Package") == "seeddb")

        let tree = try unpackedDeb()
        let files = [
            "usr/bin/seeddb",
            "usr/share/man/man1/seeddb.1.gz",
            "usr/share/bash-completion/completions/seeddb",
            "usr/share/zsh/vendor-completions/_seeddb",
            "usr/share/fish/vendor_completions.d/seeddb.fish",
            "usr/share/doc/seeddb/copyright",
            "usr/share/doc/seeddb/changelog.Debian.gz",
        ]
        for file in files {
            #expect(FileManager.default.fileExists(atPath: "\(tree)/\(file)"), "the .deb lacks /\(file)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: tree + "/usr/bin/seeddb"))
        let copyright = String(decoding: cli.bytes(tree + "/usr/share/doc/seeddb/copyright") ?? Data(), as: UTF8.self)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        #expect(copyright.contains("License: MIT"))
        #expect(copyright.contains(" THE SOFTWARE IS PROVIDED \"AS IS\""))
        let changelog = try cli.shell("gzip -dc \(Self.quoted(tree + "/usr/share/doc/seeddb/changelog.Debian.gz"))")
        #expect(changelog.stdout.hasPrefix("seeddb (\(version)) "), "\(changelog.stdout)")
        // The completion scripts are the binary's own (bash's without its "#!" line).
        for (shell, file) in [("bash", "bash-completion/completions/seeddb"), ("zsh", "zsh/vendor-completions/_seeddb"), ("fish", "fish/vendor_completions.d/seeddb.fish")] {
            var script = try cli.run(["--generate-completion-script", shell]).stdout
            if script.hasPrefix("#!") { script = String(script.drop { $0 != "\n" }.dropFirst()) }
            #expect(cli.bytes("\(tree)/usr/share/\(file)") == Data(script.utf8), "\(file) is not what seeddb generates")
        }
    }

    @Test(.enabled(if: ShippingTests.deb != nil, ShippingTests.noDeb))
    func theReleaseBinaryNeedsNoToolchain() throws {
        let tree = try unpackedDeb()
        let seeddb = tree + "/usr/bin/seeddb"
        // ldd: nothing from Swift's runtime.
        let linked = try libraries(of: seeddb)
        #expect(!linked.isEmpty)
        for library in linked {
            for toolchain in ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"] {
                #expect(!library.name.hasPrefix(toolchain), "\(library.name) comes with the toolchain")
            }
            #expect(!library.path.contains("not found"))
        }
        // No run path: it needs only system libraries, and `$ORIGIN` would make the loader
        // look for each of them beside the binary first (build-release.sh).
        let dynamic = try cli.shell("readelf -d \(Self.quoted(seeddb))")
        #expect(dynamic.status == 0, "\(dynamic.stderr)")
        #expect(!dynamic.stdout.contains("RUNPATH") && !dynamic.stdout.contains("RPATH"), "\(dynamic.stdout)")
        // Depends: covers every library ldd shows (the packages that own them).
        let depends = try field("Depends")
        for library in linked where library.path.hasPrefix("/") && !library.name.hasPrefix("linux-vdso") {
            let owner = try cli.shell("dpkg -S \"$(readlink -f \(Self.quoted(library.path)))\" 2>/dev/null || dpkg -S \(Self.quoted(library.path))")
            let package = try #require(owner.stdout.split(separator: ":").first.map(String.init), "no package owns \(library.path)")
            #expect(depends.contains(package), "Depends: \(depends) lacks \(package) (for \(library.name))")
        }
        // It runs with the toolchain off PATH and LD_LIBRARY_PATH empty, zstd seeds included.
        let manifest = cli.root + "/seeds.json"
        let pack = try cli.shell("env -i PATH=\(Self.systemPath) LD_LIBRARY_PATH= \(Self.quoted(seeddb)) pack \(Self.quoted(CLIHarness.seeds + "/v2/levels.sql")) --output \(Self.quoted(cli.root + "/levels.sqlite.zst")) --version 2 --manifest \(Self.quoted(manifest)) --app \(cli.app)")
        #expect(pack.status == 0, "\(pack.stderr)")
        let run = try cli.shell("""
            env -i PATH=\(Self.systemPath) LD_LIBRARY_PATH= HOME=\(Self.quoted(cli.root + "/home")) XDG_DATA_HOME=\(Self.quoted(cli.root + "/data")) \
            XDG_CONFIG_HOME=\(Self.quoted(cli.root + "/config")) \(Self.quoted(seeddb)) deploy --manifest \(Self.quoted(manifest))
            """)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(cli.bytes(cli.workingCopy) == cli.bytes("\(CLIHarness.seeds)/v2/levels.sqlite"))
        let version = try cli.shell("env -i PATH=\(Self.systemPath) LD_LIBRARY_PATH= \(Self.quoted(seeddb)) --version")
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try field("Version")))
    }

    static var canRunLintian: Bool { deb != nil && has("lintian") }

    @Test(.enabled(if: ShippingTests.canRunLintian, "needs SEEDDB_DEB and lintian (apt-get install lintian)"))
    func lintianFindsNoErrorsAndTheReadmeExplainsEachWarning() throws {
        let deb = try #require(Self.deb)
        let lintian = try cli.shell("LC_ALL=C.UTF-8 lintian --tag-display-limit 0 \(Self.quoted(deb))")
        let lines = lintian.stdout.split(separator: "\n").map(String.init)
        #expect(lintian.status == 0, "\(lintian.stdout)\(lintian.stderr)")
        #expect(!lines.contains { $0.hasPrefix("E:") }, "\(lintian.stdout)")
        let packaging = String(decoding: cli.bytes(Self.repository + "/docs/packaging.md") ?? Data(), as: UTF8.self)
        #expect(packaging.contains("lintian"))
        for line in lines where line.hasPrefix("W:") {
            // "W: seeddb: tag-name [details]"
            let tag = line.split(separator: " ").dropFirst(2).first.map(String.init) ?? line
            #expect(packaging.contains("`\(tag)`"), "docs/packaging.md does not explain lintian's \(line)")
        }
    }

    @Test(.enabled(if: ShippingTests.deb != nil && ShippingTests.has("man"), "needs SEEDDB_DEB and man-db"))
    func theManPageListsEverySubcommand() throws {
        let tree = try unpackedDeb()
        let page = try cli.shell("MANWIDTH=100 LC_ALL=C.UTF-8 man -P cat -l \(Self.quoted(tree + "/usr/share/man/man1/seeddb.1.gz"))")
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.stdout.contains("seeddb"))
        // Each subcommand is an entry of the description's list: its name first on a line
        // at the list's indent.
        let entries = Set(page.stdout.split(separator: "\n").filter { $0.hasPrefix("     ") && !$0.hasPrefix("      ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) })
        for command in ["deploy", "reseed", "rollback", "status", "verify", "paths", "maintain", "pack", "purge"] {
            #expect(entries.contains(command), "the man page lacks \(command): \(entries.sorted())")
        }
        #expect(page.stdout.contains("--manifest"))
    }

    // MARK: Completion

    static var canRunBash: Bool { has("bash") }

    @Test(.enabled(if: ShippingTests.canRunBash, "needs bash"), arguments: [
        ("deploy --manifest mym", "mymanifest.json"),
        ("status --manifest mym", "mymanifest.json"),
        ("purge --manifest mym", "mymanifest.json"),
        ("deploy --seed mys", "myseed.sqlite.zst"),
        ("pack sch", "schema.sql"),
        ("pack schema.sql da", "data.sql"),
        ("pack schema.sql --manifest mym", "mymanifest.json"),
    ])
    func bashCompletesFileNames(line: String, expected: String) throws {
        let script = cli.root + "/seeddb.bash"
        let generated = try cli.run(["--generate-completion-script", "bash"])
        try #require(generated.status == 0)
        try Data(generated.stdout.utf8).write(to: URL(fileURLWithPath: script))
        let directory = cli.root + "/work"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for file in ["mymanifest.json", "myseed.sqlite.zst", "schema.sql", "data.sql", "other.txt"] {
            _ = FileManager.default.createFile(atPath: "\(directory)/\(file)", contents: Data())
        }
        // As bash calls a completion function: the words so far, the cursor at the end.
        let result = try cli.shell("""
            cd \(Self.quoted(directory)) && bash --norc --noprofile -c '
            shopt -s extglob
            source "$1"
            COMP_LINE="seeddb $2"
            COMP_POINT=${#COMP_LINE}
            read -r -a COMP_WORDS <<< "$COMP_LINE"
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            function=$(complete -p seeddb | sed -n "s/.* -F \\([^ ]*\\) .*/\\1/p")
            "$function" seeddb "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf "%s\\n" "${COMPREPLY[@]}"
            ' bash \(Self.quoted(script)) \(Self.quoted(line))
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let offered = result.stdout.split(separator: "\n").map(String.init)
        #expect(offered == [expected], "seeddb \(line)<TAB> offered \(offered) \(result.stderr)")
    }

    // MARK: The service unit

    static var canVerifyUnits: Bool { has("systemd-analyze") && FileManager.default.fileExists(atPath: "/usr/lib/systemd/system/sysinit.target") }

    @Test(.enabled(if: ShippingTests.canVerifyUnits, "needs systemd-analyze and systemd's units (apt-get install systemd)"))
    func theServiceUnitVerifiesAndItsDeployLineWorks() throws {
        let unit = Self.repository + "/Examples/systemd/levels-demo.service"
        let text = String(decoding: try #require(cli.bytes(unit)), as: UTF8.self)
        let pre = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStartPre=") }.map { String($0.dropFirst("ExecStartPre=".count)) })
        var words = pre.split(separator: " ").map(String.init)
        #expect(Array(words.prefix(4)) == ["/usr/bin/seeddb", "deploy", "--system", "--manifest"])
        #expect(words.contains("--quiet"))

        // Given a root with systemd's units, seeddb (the .deb's, else this build's) and the app.
        let root = cli.root + "/unit-root"
        try FileManager.default.createDirectory(atPath: root + "/usr/lib/systemd", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/usr/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/etc/systemd/system", withIntermediateDirectories: true)
        let seeddb = Self.deb != nil ? try unpackedDeb() + "/usr/bin/seeddb" : CLIHarness.binary
        let setup = try cli.shell("""
            cp -a /usr/lib/systemd/system \(Self.quoted(root + "/usr/lib/systemd/")) && \
            cp \(Self.quoted(seeddb)) \(Self.quoted(root + "/usr/bin/seeddb")) && \
            printf '#!/bin/sh\\nexec sleep infinity\\n' > \(Self.quoted(root + "/usr/bin/levels-server")) && \
            chmod 0755 \(Self.quoted(root + "/usr/bin/levels-server")) && \
            cp \(Self.quoted(unit)) \(Self.quoted(root + "/etc/systemd/system/levels-demo.service"))
            """)
        try #require(setup.status == 0, "\(setup.stderr)")
        // When systemd-analyze checks it: no complaint at all.
        let verify = try cli.shell("systemd-analyze verify --man=no --root=\(Self.quoted(root)) /etc/systemd/system/levels-demo.service")
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stdout)\(verify.stderr)")

        // And the ExecStartPre line deploys, silently (the package's manifest is Seeds/v1's).
        words[0] = root + "/usr/bin/seeddb"
        let manifest = try #require(words.firstIndex(of: "--manifest")) + 1
        words[manifest] = CLIHarness.seeds + "/v1/seeds.json"
        let deploy = try cli.shell((words + ["--root", root + "/image"]).map(Self.quoted).joined(separator: " "))
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(deploy.stdout.isEmpty, "--quiet: \(deploy.stdout)")
        #expect(cli.bytes(root + "/image/var/lib/com.example.levels/levels.sqlite") == cli.bytes(CLIHarness.seeds + "/v1/levels.sqlite"))
    }
}
