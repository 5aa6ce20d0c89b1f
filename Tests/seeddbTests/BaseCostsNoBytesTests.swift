import Foundation
import Testing

/// Issue 30, item 3: the merge base costs no bytes where the file system can share them.
/// In system mode, with the package's seed on the working copy's file system and only
/// root able to change it, `<name>.base` is a second name of the seed file (a hard link);
/// the package manager's rename of a new seed leaves the old content to the base, and the
/// next upgrade merges against it. Anywhere else the base is a copy of its own, and a base
/// changed behind SeedDB's back is caught by its digest, as before.
@Suite struct BaseCostsNoBytesTests {
    let cli = CLIHarness()

    /// The system image under the harness root, and the package's seed in it.
    private var image: String { cli.root + "/image" }
    private var packagedSeed: String { image + "/usr/share/\(cli.app)/levels.sqlite" }
    private var directory: String { image + "/var/lib/\(cli.app)" }

    private func stat(_ path: String) throws -> stat {
        var info = Glibc.stat()
        try #require(lstat(path, &info) == 0, "\(path): \(String(cString: strerror(errno)))")
        return info
    }

    private func sql(_ database: String, _ statement: String) throws -> String {
        let result = try cli.shell("sqlite3 '\(database)' \"\(statement)\"")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The SHA-256 (hex) of the base that `levels.sqlite.previous.base.xor.zst` in
    /// `directory` restores against `levels.sqlite.previous`, restored by hand as
    /// docs/merge.md shows (its snippet, run on copies of the two files).
    private func restoredByHand(in directory: String) throws -> String {
        let guide = String(decoding: cli.bytes(ShippingTests.repository + "/docs/merge.md") ?? Data(), as: UTF8.self)
        let snippet = try #require(guide.components(separatedBy: "```sh\n").dropFirst()
            .map { $0.components(separatedBy: "```")[0] }.first { $0.contains("xor.zst") }, "docs/merge.md shows no restore by hand")
        let scratch = cli.root + "/by-hand"
        let result = try cli.shell("""
            rm -rf '\(scratch)' && mkdir '\(scratch)' && cp '\(directory)/levels.sqlite.previous.base.xor.zst' '\(directory)/levels.sqlite.previous' '\(scratch)/' && cd '\(scratch)'
            \(snippet)
            sha256sum base.sqlite | cut -d' ' -f1
            """)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Installs demo seed `version` (or the file `from`) as the package manager does:
    /// written beside the seed under a temporary name, root's and 0644 (`mode`), then
    /// renamed over it.
    private func install(_ version: Int, from file: String? = nil, mode: mode_t = 0o644) throws {
        try FileManager.default.createDirectory(atPath: image + "/usr/share/\(cli.app)", withIntermediateDirectories: true)
        let unpacked = packagedSeed + ".dpkg-new"
        try? FileManager.default.removeItem(atPath: unpacked)
        try FileManager.default.copyItem(atPath: file ?? "\(CLIHarness.seeds)/v\(version)/levels.sqlite", toPath: unpacked)
        #expect(chown(unpacked, 0, 0) == 0 && chmod(unpacked, mode) == 0)
        #expect(rename(unpacked, packagedSeed) == 0)
    }

    /// Deploys `version` with `--json` and expects it to have merged against a base.
    private func mergedAgainstItsBase(deploying version: Int) throws {
        let upgrade = try deploy(version, ["--json"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let merge = try #require(try upgrade.seeds().first?["merge"] as? [String: Any], "\(upgrade.stdout)")
        #expect(merge["withoutBase"] as? Bool != true, "\(merge)")
    }

    private func deploy(_ version: Int, _ extra: [String] = []) throws -> CLIHarness.Result {
        try cli.run(["deploy", "--system", "--root", image, "--merge", "user-wins", "--app", cli.app, "--seed", packagedSeed, "--version", "\(version)"] + extra)
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func inSystemModeTheBaseIsTheSeedFileItselfAndKeepsTheOldContentAcrossTheRename() throws {
        // Given the package's v1 seed, deployed in system mode with a merge policy
        try install(1)
        let first = try deploy(1)
        #expect(first.status == 0, "\(first.stderr)")
        let base = directory + "/levels.sqlite.base"
        let v1 = try stat(packagedSeed)
        // Then the base is the seed file under a second name: no byte of its own
        #expect(try stat(base).st_ino == v1.st_ino)
        #expect(try stat(base).st_nlink == 2)
        #expect(try stat(base).st_mode & 0o7777 == 0o644, "the seed's mode, untouched")
        // And an up-to-date run changes nothing
        let again = try deploy(1)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        #expect(try stat(base).st_nlink == 2)

        // When the user edits a row, and the package manager renames v2 over the seed
        let workingCopy = directory + "/levels.sqlite"
        _ = try sql(workingCopy, "UPDATE levels SET background = 'mine' WHERE ix = 1")
        try install(2)
        // Then the base still holds v1, now its only name
        #expect(try stat(base).st_ino == v1.st_ino)
        #expect(try stat(base).st_nlink == 1)
        #expect(cli.bytes(base) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))

        // When v2 is deployed
        try mergedAgainstItsBase(deploying: 2)
        // Then it merged against v1's base: the user's edit stays, and a row only the seed
        // changed takes the seed's value (without a base, user-wins would keep v1's)
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 4") == "glacier")
        #expect(try sql(workingCopy, "SELECT count(*) FROM levels") == "24")
        // And the new base is the new seed file; v1's content went with the previous
        // generation, as its compressed difference from it (only SeedDB held it: a second
        // name would keep it whole)
        #expect(try stat(base).st_ino == stat(packagedSeed).st_ino)
        #expect(try stat(base).st_nlink == 2)
        #expect(!FileManager.default.fileExists(atPath: directory + "/levels.sqlite.previous.base"))
        let compressed = directory + "/levels.sqlite.previous.base.xor.zst"
        let v1Digest = try cli.shell("sha256sum < '\(CLIHarness.seeds)/v1/levels.sqlite' | cut -d' ' -f1")
        #expect(try restoredByHand(in: directory) == v1Digest.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try stat(compressed).st_size < stat("\(CLIHarness.seeds)/v1/levels.sqlite").st_size)
        #expect(!cli.list(directory).contains { $0.hasSuffix(".tmp") }, "\(cli.list(directory))")
        // And a verify finds everything as recorded
        let verify = try cli.run(["verify", "--system", "--root", image, "--app", cli.app, "--seed", packagedSeed, "--version", "2"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        // When it is rolled back, v1's base comes back with v1, decompressed
        let rollback = try cli.run(["rollback", "--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(cli.bytes(base) == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: compressed), "the compressed base went with the rollback")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")

        // When the working copy is purged, the seed stays whole
        let seedBytes = cli.bytes(packagedSeed)
        let purge = try cli.run(["purge", "--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(cli.bytes(packagedSeed) == seedBytes)
        #expect(try stat(packagedSeed).st_nlink == 1)
    }

    /// Installs a third version as the package manager would: v2 with row 7's background
    /// changed by the seed (`tundra`).
    private func installThird() throws {
        let unpacked = packagedSeed + ".dpkg-new"
        try? FileManager.default.removeItem(atPath: unpacked)
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v2/levels.sqlite", toPath: unpacked)
        _ = try sql(unpacked, "UPDATE levels SET background = 'tundra' WHERE ix = 7")
        #expect(chown(unpacked, 0, 0) == 0 && chmod(unpacked, 0o644) == 0)
        #expect(rename(unpacked, packagedSeed) == 0)
    }

    /// v1 deployed with a merge policy, a user edit, and v2 deployed over it: v1's base is
    /// compressed. The working copy's path and the compressed base's.
    private func deployV2OverAnEditedV1() throws -> (workingCopy: String, compressed: String) {
        try install(1)
        #expect(try deploy(1).status == 0)
        let workingCopy = directory + "/levels.sqlite"
        _ = try sql(workingCopy, "UPDATE levels SET background = 'mine' WHERE ix = 1")
        try install(2)
        #expect(try deploy(2).status == 0)
        return (workingCopy, directory + "/levels.sqlite.previous.base.xor.zst")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aRollbackDecompressesThePreviousBaseAndTheNextUpgradeMergesAgainstIt() throws {
        // Given v1 deployed with a merge policy, a user edit, and v2 deployed over it
        let (workingCopy, compressed) = try deployV2OverAnEditedV1()
        #expect(FileManager.default.fileExists(atPath: compressed), "\(cli.list(directory))")
        // When it is rolled back
        let rollback = try cli.run(["rollback", "--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.status == 0 && rollback.stderr.isEmpty, "\(rollback.stderr)")
        // Then v1's base is back, uncompressed, and the compressed file is gone
        #expect(cli.bytes(directory + "/levels.sqlite.base") == cli.bytes("\(CLIHarness.seeds)/v1/levels.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: compressed))
        #expect(!cli.list(directory).contains { $0.hasSuffix(".tmp") }, "\(cli.list(directory))")
        // When the package ships v3 (v2, and row 7 changed) and it is deployed
        try installThird()
        try mergedAgainstItsBase(deploying: 3)
        // Then it merged against the restored v1 base: the user's edit stays, and rows only
        // the seeds changed take the new seed's values (without a base, user-wins keeps v1's)
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 4") == "glacier")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 7") == "tundra")
        // And v1's base went with the previous generation, compressed again
        #expect(FileManager.default.fileExists(atPath: compressed))
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aSeedOfRandomBytesKeepsItsPreviousBaseAsASmallDelta() throws {
        // Given a 4 MiB seed of random rows (it does not compress), deployed with a merge
        // policy, and one row the user edited
        try install(1, from: try cli.makeSeed("random1.sqlite", marker: "one", megabytes: 4))
        #expect(try deploy(1).status == 0)
        let workingCopy = directory + "/levels.sqlite"
        _ = try sql(workingCopy, "UPDATE levels SET background = 'mine' WHERE ix = 1")
        // When the package ships another such seed and it is deployed
        try install(2, from: try cli.makeSeed("random2.sqlite", marker: "two", megabytes: 4))
        let upgrade = try deploy(2)
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        // Then v1's base is kept as its difference from the previous generation, which
        // differs from it in the pages the user wrote (the edited row, 64 KiB, and its
        // overflow pages): a sliver of the seed, not a copy
        let compressed = directory + "/levels.sqlite.previous.base.xor.zst"
        #expect(!FileManager.default.fileExists(atPath: directory + "/levels.sqlite.previous.base"), "\(cli.list(directory))")
        let size = try stat(compressed).st_size
        #expect(size < 256 * 1024, "\(size) bytes")
        let v1Digest = try cli.shell("sha256sum < '\(cli.root)/random1.sqlite' | cut -d' ' -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try restoredByHand(in: directory) == v1Digest)
        // When it is rolled back, v1's base comes back whole, and the user's edit with v1
        let rollback = try cli.run(["rollback", "--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"])
        #expect(rollback.status == 0 && !rollback.stderr.contains("merge base"), "\(rollback.stderr)")
        #expect(cli.bytes(directory + "/levels.sqlite.base") == cli.bytes(cli.root + "/random1.sqlite"))
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
        #expect(!FileManager.default.fileExists(atPath: compressed))
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aTamperedCompressedBaseIsCaughtByItsDigest() throws {
        // Given v2 deployed over v1 with a merge policy: v1's base compressed
        let (workingCopy, compressed) = try deployV2OverAnEditedV1()
        // When someone replaces it with another seed's content, well compressed
        #expect(try cli.shell("zstd -q -f -o '\(compressed)' '\(CLIHarness.seeds)/v2/levels.sqlite'").status == 0)
        let flags = ["--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"]
        let dryRun = try cli.run(["rollback", "--dry-run"] + flags)
        let rollback = try cli.run(["rollback"] + flags)
        // Then the rollback goes ahead without it, and says so; its dry run said so first
        // (it said nothing of the base)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(rollback.stderr.contains("levels.sqlite.previous.base.xor.zst does not match the recorded seed: the rollback restores no base (the next upgrade merges without one)"), "\(rollback.stderr)")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stderr == rollback.stderr, "\(dryRun.stderr)")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
        #expect(!FileManager.default.fileExists(atPath: compressed))
        #expect(!FileManager.default.fileExists(atPath: directory + "/levels.sqlite.base"))
        // And the next upgrade merges without a base, as with any base that does not match
        try installThird()
        let upgrade = try deploy(3, ["--json"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        let merge = try #require(try upgrade.seeds().first?["merge"] as? [String: Any], "\(upgrade.stdout)")
        #expect(merge["withoutBase"] as? Bool == true, "\(merge)")
        #expect(try sql(workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
    }

    /// A compressed base removed by hand: the rollback restored no base and said nothing,
    /// nor did its dry run (found by a contract probe; merge.md says it says so), and the
    /// next upgrade merged without one.
    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aRemovedCompressedBaseIsSaidByTheRollbackAndItsDryRun() throws {
        let (_, compressed) = try deployV2OverAnEditedV1()
        try FileManager.default.removeItem(atPath: compressed)
        let flags = ["--system", "--root", image, "--app", cli.app, "--name", "levels.sqlite"]
        let dryRun = try cli.run(["rollback", "--dry-run"] + flags)
        let rollback = try cli.run(["rollback"] + flags)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(rollback.stderr.contains("levels.sqlite.previous.base is missing (and \(compressed) too): the rollback restores no base (the next upgrade merges without one)"), "\(rollback.stderr)")
        #expect(dryRun.status == 0 && dryRun.stderr == rollback.stderr, "\(dryRun.stderr)")
    }

    /// The physical extents of the file at `path` (`xfs_io -c fiemap`), without their
    /// index: what two files that share their blocks have in common.
    private func extents(_ path: String) throws -> [String] {
        let result = try cli.shell("xfs_io -r -c fiemap '\(path)'")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").dropFirst().compactMap { line in
            line.split(separator: ":", maxSplits: 2).last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test(.enabled(if: ReflinkVolume.isPossible, "needs root and mkfs.xfs"))
    func onAReflinkFileSystemTheBaseIsACloneThatSharesTheSeedsExtents() throws {
        // Given the package's seed on an XFS volume with reflinks, deployed in system mode
        let volume = try ReflinkVolume()
        let cli = CLIHarness(root: volume.mountPoint + "/run")
        let image = cli.root + "/image"
        let seed = image + "/usr/share/\(cli.app)/levels.sqlite"
        try FileManager.default.createDirectory(atPath: image + "/usr/share/\(cli.app)", withIntermediateDirectories: true)
        let big = try cli.makeSeed("big.sqlite", marker: "one", megabytes: 4)
        #expect(try cli.shell("cp --reflink=never '\(big)' '\(seed)' && chmod 0644 '\(seed)'").status == 0)
        let result = try cli.run(["deploy", "--system", "--root", image, "--merge", "user-wins", "--app", cli.app, "--seed", seed, "--version", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        // Then the base is a file of its own (a clone, not a link), on the seed's blocks
        let base = image + "/var/lib/\(cli.app)/levels.sqlite.base"
        #expect(try stat(base).st_ino != stat(seed).st_ino)
        #expect(try stat(base).st_nlink == 1)
        let shared = try extents(seed)
        #expect(!shared.isEmpty)
        #expect(try extents(base) == shared, "the base does not share the seed's extents")
        #expect(try extents(image + "/var/lib/\(cli.app)/levels.sqlite.v1") == shared)
        // When the package renames a new seed over it and it is deployed
        let next = try cli.makeSeed("big2.sqlite", marker: "two", megabytes: 4)
        #expect(try cli.shell("cp --reflink=never '\(next)' '\(seed).new' && chmod 0644 '\(seed).new' && mv '\(seed).new' '\(seed)'").status == 0)
        // (with the loader saying which libraries it loads)
        let upgrade = try cli.run(
            ["deploy", "--system", "--root", image, "--merge", "user-wins", "--app", cli.app, "--seed", seed, "--version", "2"],
            environment: ["LD_DEBUG": "files"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        // Then the old base is the previous generation's under a second name, still on the
        // extents the previous generation shares: not compressed, which would cost bytes,
        // and zstd is not even loaded
        #expect(!upgrade.stderr.contains("libzstd"), "zstd was loaded for a base a reflink shares")
        let directory = image + "/var/lib/\(cli.app)"
        #expect(FileManager.default.fileExists(atPath: directory + "/levels.sqlite.previous.base"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/levels.sqlite.previous.base.xor.zst"))
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aReseedOfTheSameSeedFileLeavesNoSecondNameBehind() throws {
        // Given a linked base, the seed file unchanged: the new base is the same file
        try install(1)
        #expect(try deploy(1).status == 0)
        _ = try sql(directory + "/levels.sqlite", "UPDATE levels SET background = 'mine' WHERE ix = 1")
        let reseed = try cli.run(["reseed", "--system", "--root", image, "--merge", "user-wins", "--app", cli.app, "--seed", packagedSeed, "--version", "1"])
        #expect(reseed.status == 0, "\(reseed.stderr)")
        // Then no temporary name of it is left (a rename between two names of one file
        // does nothing), and the seed has exactly its names beside the working copy
        #expect(!cli.list(directory).contains { $0.hasSuffix(".tmp") }, "\(cli.list(directory))")
        let seed = try stat(packagedSeed)
        #expect(try stat(directory + "/levels.sqlite.base").st_ino == seed.st_ino)
        #expect(try stat(directory + "/levels.sqlite.previous.base").st_ino == seed.st_ino)
        #expect(seed.st_nlink == 3, "the seed, .base and .previous.base")
        #expect(try sql(directory + "/levels.sqlite", "SELECT background FROM levels WHERE ix = 1") == "mine")
        let status = try cli.run(["status", "--system", "--root", image, "--app", cli.app, "--seed", packagedSeed, "--version", "1"])
        #expect(status.status == 0 && !status.stdout.contains("leftover"), "\(status.stdout)")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aVersionAutoSeedIsKnownAfterItsBaseWasLinked() throws {
        // Given a `version: auto` seed whose base became a link (which moves the seed
        // file's change time, part of the identity its digest is remembered by)
        try install(1)
        let flags = ["deploy", "--system", "--root", image, "--merge", "user-wins", "--app", cli.app, "--seed", packagedSeed, "--version", "auto"]
        #expect(try cli.run(flags).status == 0)
        #expect(try stat(packagedSeed).st_nlink == 2)
        let settings = cli.bytes(directory + "/settings.json")
        // When the app starts again
        let again = try cli.run(flags)
        // Then the seed is known by its identity as it is now: nothing is hashed or written
        #expect(again.status == 0 && again.stdout.contains("unchanged"), "\(again.stdout)\(again.stderr)")
        #expect(cli.bytes(directory + "/settings.json") == settings, "the seed's identity was remembered again: it had been hashed")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aSeedOthersCanWriteIsNeverLinked() throws {
        // A seed its group may write could change the base through the link: a copy.
        try install(1, mode: 0o664)
        let result = try deploy(1)
        #expect(result.status == 0, "\(result.stderr)")
        let base = directory + "/levels.sqlite.base"
        #expect(try stat(base).st_ino != stat(packagedSeed).st_ino)
        #expect(try stat(base).st_nlink == 1 && stat(packagedSeed).st_nlink == 1)
        #expect(cli.bytes(base) == cli.bytes(packagedSeed))
    }

    @Test func inUserModeTheBaseIsACopyOfItsOwn() throws {
        // The same seed file, root's or not, deployed for a user: never linked.
        let seed = try cli.copySeed(1, to: "levels.sqlite")
        let result = try cli.run(["deploy", "--merge", "user-wins", "--app", cli.app, "--seed", seed, "--version", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let base = cli.workingCopy + ".base"
        #expect(try stat(base).st_ino != stat(seed).st_ino)
        #expect(try stat(base).st_nlink == 1 && stat(seed).st_nlink == 1)
        #expect(try stat(base).st_mode & 0o7777 == 0o444, "a read-only copy")
        #expect(cli.bytes(base) == cli.bytes(seed))
    }

    @Test func aBaseChangedWithItsModificationTimePutBackIsStillCaught() throws {
        // Given a base of its own (user mode), whose identity the record remembers so an
        // upgrade does not hash it again, and a user edit
        let seed = try cli.copySeed(1, to: "levels.sqlite")
        let flags = ["--merge", "user-wins", "--app", cli.app, "--name", "levels.sqlite"]
        #expect(try cli.run(["deploy", "--seed", seed, "--version", "1"] + flags).status == 0)
        let settings = String(decoding: cli.bytes(cli.settingsFile) ?? Data(), as: UTF8.self)
        #expect(settings.contains("\"baseFile\""), "\(settings)")
        _ = try sql(cli.workingCopy, "UPDATE levels SET background = 'mine' WHERE ix = 1")
        // When someone changes the base in place and puts its modification time back
        let base = cli.workingCopy + ".base"
        #expect(try cli.shell("""
            cp -p '\(base)' '\(cli.root)/mtime' && chmod u+w '\(base)' && sqlite3 '\(base)' "UPDATE levels SET background = 'tampered' WHERE ix = 4" \
            && chmod 0444 '\(base)' && touch -r '\(cli.root)/mtime' '\(base)'
            """).status == 0)
        // Then the next upgrade still finds it changed (its change time moved): it merges
        // without it, and says so
        let upgrade = try cli.run(["deploy", "--seed", try cli.copySeed(2, to: "levels.sqlite"), "--version", "2"] + flags)
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stderr.contains("does not match the recorded seed: merging without a base"), "\(upgrade.stderr)")
        #expect(try sql(cli.workingCopy, "SELECT background FROM levels WHERE ix = 1") == "mine")
    }

    @Test(.enabled(if: PackagingTests.isRoot, "system mode runs as root"))
    func aSeedChangedInPlaceIsCaughtByTheBasesDigest() throws {
        // Given a linked base, and someone who writes into the seed file instead of
        // replacing it: the base changes with it
        try install(1)
        #expect(try deploy(1).status == 0)
        _ = try sql(directory + "/levels.sqlite", "UPDATE levels SET background = 'mine' WHERE ix = 1")
        _ = try sql(packagedSeed, "UPDATE levels SET background = 'tampered' WHERE ix = 4")
        // When the next version is deployed
        try install(2)
        let result = try deploy(2)
        // Then the base's digest does not match the record: the merge runs without it, and says so
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("does not match the recorded seed: merging without a base"), "\(result.stderr)")
        #expect(try sql(directory + "/levels.sqlite", "SELECT background FROM levels WHERE ix = 1") == "mine")
    }
}
