import Foundation
import Testing

/// Signed seeds. A manifest signed (minisign's format) by a trusted key deploys;
/// anything else is refused before a byte is copied (exit 65, one line naming the manifest,
/// the key id and what failed, nothing changed); a lower serial than the one deployed is a
/// downgrade or a replay and is refused unless `--allow-downgrade`.
@Suite struct SignedSeedTests {
    let cli = CLIHarness()

    /// Whether the real `minisign` tool is installed (`.ci/run` installs it).
    static let minisign = ["/usr/bin/minisign", "/usr/local/bin/minisign"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var hasMinisign: Bool { minisign != nil }

    // MARK: Fixtures

    /// A new unencrypted key pair made by `seeddb keygen`: the public key's path, the secret
    /// key's, and the key id.
    func keygen(_ name: String) throws -> (publicKey: String, secretKey: String, id: String) {
        let (publicKey, secretKey) = (cli.root + "/\(name).pub", cli.root + "/\(name).key")
        let result = try cli.run(["keygen", "--unencrypted", "--public-key", publicKey, "--secret-key", secretKey, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return (publicKey, secretKey, try #require(try result.json()["keyId"] as? String))
    }

    /// The key id a public key file's comment names (`minisign public key <ID>`).
    func keyID(ofPublicKey path: String) throws -> String {
        let text = String(decoding: try #require(cli.bytes(path)), as: UTF8.self)
        return try #require(text.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
    }

    /// The demo seed `version`'s SHA-256, from its committed manifest.
    func digest(_ version: Int) throws -> String {
        let manifest = try #require(try JSONSerialization.jsonObject(with: cli.bytes("\(CLIHarness.seeds)/v\(version)/seeds.json") ?? Data()) as? [String: Any])
        return try #require(((manifest["seeds"] as? [[String: Any]])?.first?["sha256"]) as? String)
    }

    /// A release folder `release-<name>` holding a copy of demo seed `version` and an
    /// unsigned manifest for it; returns the manifest's path.
    func release(_ version: Int, serial: Int?, expires: String? = nil, name: String? = nil, sha256: Bool = true) throws -> String {
        let folder = cli.root + "/release-\(name ?? "\(version)")"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: folder + "/levels.sqlite")
        try FileManager.default.copyItem(atPath: "\(CLIHarness.seeds)/v\(version)/levels.sqlite", toPath: folder + "/levels.sqlite")
        var document: [String: Any] = ["app": cli.app, "seeds": [
            ["source": "levels.sqlite", "name": "levels.sqlite", "version": "\(version)"].merging(sha256 ? ["sha256": try digest(version)] : [:]) { $1 },
        ]]
        if let serial { document["serial"] = serial }
        if let expires { document["expires"] = expires }
        let manifest = folder + "/seeds.json"
        try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: manifest))
        return manifest
    }

    /// Signs `manifest` with `seeddb sign`.
    func sign(_ manifest: String, with secretKey: String, prehash: Bool = false) throws {
        let result = try cli.run(["sign", "--key", secretKey, manifest] + (prehash ? ["--prehash"] : []))
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Runs the real `minisign` with `arguments`, `input` on its standard input.
    func minisign(_ arguments: [String], input: String = "") throws -> CLIHarness.Result {
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        return try cli.shell("printf '\(input)' | '\(try #require(Self.minisign))' \(quoted)")
    }

    /// A `{"keyId", "serial"}` object's two fields, comparable.
    static func fields(_ object: Any?) -> [String]? {
        guard let object = object as? [String: Any], let keyID = object["keyId"] as? String, let serial = object["serial"] as? Int else { return nil }
        return [keyID, String(serial)]
    }

    func state() -> CLIHarness.State { cli.state() }

    /// Runs `arguments`, expects exit 65 with one line on standard error holding each of
    /// `mentioning`, and nothing changed.
    /// The case is logged for RELIABILITY.md's tampering table as `tampering` (see
    /// `Scripts/render-reliability.py`).
    @discardableResult
    func expectRefused(_ arguments: [String], mentioning: [String], tampering: String, status: Int32 = 65, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIHarness.Result {
        let before = state()
        let result = try cli.run(arguments)
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for text in mentioning {
            #expect(result.stderr.contains(text), "\(result.stderr) lacks \(text)", sourceLocation: sourceLocation)
        }
        let unchanged = state() == before
        #expect(unchanged, "a refused run changed something", sourceLocation: sourceLocation)
        let held = unchanged && result.status == status && mentioning.allSatisfy(result.stderr.contains)
        ReliabilityLog.record(suite: "tampering: \(tampering) (exit \(result.status))", badInputs: 1, dataLost: held ? 0 : 1)
        return result
    }

    /// The recorded signature (`{"keyId", "serial"}`) in `status --json`.
    func statusSignature(_ manifest: String) throws -> [String: Any]? {
        let result = try cli.run(["status", "--json", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        return try result.seeds().first?["signature"] as? [String: Any]
    }

    /// v1 (serial 1) deployed from a manifest `key` signed, with the app's own key in the
    /// settings; returns v2's signed manifest (serial 2), not deployed.
    func deployedV1(key: (publicKey: String, secretKey: String, id: String)) throws -> String {
        try FileManager.default.createDirectory(atPath: cli.root + "/config/\(cli.app)", withIntermediateDirectories: true)
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(fileURLWithPath: cli.settingsFile))
        let v1 = try release(1, serial: 1)
        try sign(v1, with: key.secretKey)
        let result = try cli.run(["deploy", "--manifest", v1, "--trusted-key", key.publicKey])
        #expect(result.status == 0, "\(result.stderr)")
        let v2 = try release(2, serial: 2)
        try sign(v2, with: key.secretKey)
        return v2
    }

    // MARK: Round trips with the real minisign

    @Test(.enabled(if: SignedSeedTests.hasMinisign, "needs minisign (apt-get install minisign)"), arguments: [false, true])
    func aKeyMadeByMinisignSignsAManifestSeedDBDeploys(legacy: Bool) throws {
        // Given a key pair made by minisign -G, and a manifest minisign signed (prehashed
        // "ED" by default, "Ed" with -l)
        let (publicKey, secretKey) = (cli.root + "/minisign.pub", cli.root + "/minisign.key")
        #expect(try minisign(["-G", "-W", "-p", publicKey, "-s", secretKey]).status == 0)
        let manifest = try release(2, serial: 7)
        let signed = try minisign(["-S", "-s", secretKey, "-m", manifest] + (legacy ? ["-l"] : []))
        #expect(signed.status == 0, "\(signed.stderr)")
        let tag = String(decoding: Data(base64Encoded: String(decoding: cli.bytes(manifest + ".minisig") ?? Data(), as: UTF8.self).split(separator: "\n")[1].description)?.prefix(2) ?? Data(), as: UTF8.self)
        #expect(tag == (legacy ? "Ed" : "ED"))

        // When SeedDB deploys it trusting that key, it deploys and records key and serial
        let result = try cli.run(["deploy", "--manifest", manifest, "--trusted-key", publicKey])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.levelCount() == 24)
        let signature = try #require(try statusSignature(manifest))
        #expect(signature["keyId"] as? String == (try keyID(ofPublicKey: publicKey)))
        #expect(signature["serial"] as? Int == 7)
        #expect(try cli.run(["verify", "--manifest", manifest, "--trusted-key", publicKey]).status == 0)
    }

    @Test(.enabled(if: SignedSeedTests.hasMinisign, "needs minisign (apt-get install minisign)"), arguments: [false, true])
    func aManifestSeedDBSignsVerifiesWithMinisign(prehash: Bool) throws {
        let key = try keygen("seeddb")
        let manifest = try release(2, serial: 3)
        try sign(manifest, with: key.secretKey, prehash: prehash)
        // -H: minisign insists on a prehashed signature.
        let verified = try minisign(["-V", "-m", manifest, "-p", key.publicKey] + (prehash ? ["-H"] : []))
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        #expect(verified.stdout.contains("app:\(cli.app)") && verified.stdout.contains("serial:3"), "the trusted comment names the app and the serial: \(verified.stdout)")
        // And a key SeedDB made signs with minisign itself.
        let other = try minisign(["-S", "-s", key.secretKey, "-m", manifest, "-x", cli.root + "/by-minisign.minisig"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try minisign(["-V", "-m", manifest, "-x", cli.root + "/by-minisign.minisig", "-p", key.publicKey]).status == 0)
    }

    @Test(.enabled(if: SignedSeedTests.hasMinisign, "needs minisign (apt-get install minisign)"))
    func encryptedKeysWorkBothWays() throws {
        // A key minisign encrypted, opened by SeedDB with $SEEDDB_PASSPHRASE
        let manifest = try release(2, serial: 1)
        let (publicKey, secretKey) = (cli.root + "/enc.pub", cli.root + "/enc.key")
        #expect(try minisign(["-G", "-p", publicKey, "-s", secretKey], input: "pass phrase\\npass phrase\\n").status == 0)
        var result = try cli.run(["sign", "--key", secretKey, manifest], environment: ["SEEDDB_PASSPHRASE": "pass phrase"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try minisign(["-V", "-m", manifest, "-p", publicKey]).status == 0)
        result = try cli.run(["sign", "--key", secretKey, manifest], environment: ["SEEDDB_PASSPHRASE": "wrong"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("wrong passphrase"), "\(result.stderr)")

        // A key SeedDB encrypted, opened by minisign with the passphrase on its input
        let (ours, oursSecret) = (cli.root + "/ours.pub", cli.root + "/ours.key")
        result = try cli.run(["keygen", "--public-key", ours, "--secret-key", oursSecret], environment: ["SEEDDB_PASSPHRASE": "other phrase"])
        #expect(result.status == 0, "\(result.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: oursSecret)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let signed = try minisign(["-S", "-s", oursSecret, "-m", manifest, "-x", cli.root + "/x.minisig"], input: "other phrase\\n")
        #expect(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
        #expect(try minisign(["-V", "-m", manifest, "-x", cli.root + "/x.minisig", "-p", ours]).status == 0)
        // No passphrase and no terminal: refused, nothing written.
        result = try cli.run(["keygen", "--public-key", cli.root + "/n.pub", "--secret-key", cli.root + "/n.key"])
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/n.key"))
    }

    // MARK: Deploying signed seeds

    @Test func aSignedManifestDeploysAndIsShownInStatus() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        let result = try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.levelCount() == 24)
        let signature = try #require(try statusSignature(v2))
        #expect(signature["keyId"] as? String == key.id)
        #expect(signature["serial"] as? Int == 2)
        #expect(Self.fields(cli.settingsEntry()?["signature"]) == Self.fields(["keyId": key.id, "serial": 2]))
        let text = try cli.run(["status", "--manifest", v2])
        #expect(text.stdout.contains("  signature:        key id \(key.id), serial 2"), "\(text.stdout)")
        // Up to date: a second deploy checks again and does nothing.
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey]).status == 0)
        // Unsigned, on purpose: no "signature".
        let plain = try cli.run(["deploy"] + cli.seedFlags(1) + ["--json", "--forget-signature"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try statusSignature(v2) == nil)
    }

    @Test func severalKeysMayBeTrustedToRotate() throws {
        let old = try keygen("old")
        let new = try keygen("new")
        let v1 = try release(1, serial: 1)
        try sign(v1, with: old.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v1, "--trusted-key", old.publicKey, "--trusted-key", new.publicKey]).status == 0)
        let v2 = try release(2, serial: 2)
        try sign(v2, with: new.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", old.publicKey, "--trusted-key", new.publicKey]).status == 0)
        #expect(try statusSignature(v2)?["keyId"] as? String == new.id)
        // The old key dropped: what it signed is no longer trusted.
        try expectRefused(["reseed", "--manifest", v1, "--trusted-key", new.publicKey], mentioning: [v1, old.id, "not trusted"], tampering: "a manifest signed by a key no longer trusted (rotated out)")
    }

    // MARK: Refusals: exit 65, nothing changed

    @Test func anUnsignedManifestIsRefused() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        try FileManager.default.removeItem(atPath: v2 + ".minisig")
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, key.id, "no signature"], tampering: "no signature beside the manifest")
        // status reports it (a warning), and still shows what is recorded.
        let status = try cli.run(["status", "--json", "--manifest", v2, "--trusted-key", key.publicKey])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("warning") && status.stderr.contains("no signature"), "\(status.stderr)")
        #expect(Self.fields(try status.seeds().first?["signature"]) == [key.id, "1"])
        // A seed described by flags has no signature either.
        try expectRefused(["deploy", "--trusted-key", key.publicKey] + cli.seedFlags(2), mentioning: ["levels.sqlite", key.id, "not from a signed manifest"], tampering: "a seed given by flags, not from a signed manifest")
    }

    @Test func aFlippedByteInTheManifestIsRefused() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        // Still a valid manifest: "version": "2" becomes "3".
        var bytes = try #require(cli.bytes(v2))
        let range = try #require(bytes.range(of: Data(#""version" : "2""#.utf8)))
        bytes[range.upperBound - 2] = UInt8(ascii: "3")
        try bytes.write(to: URL(fileURLWithPath: v2))
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, key.id, "signature does not match"], tampering: "a flipped byte in the manifest (still valid JSON)")
        // A flip that breaks the JSON too: still a bad signature (65), not a bad manifest (78).
        bytes[range.lowerBound] = UInt8(ascii: "#")
        try bytes.write(to: URL(fileURLWithPath: v2))
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, key.id, "signature does not match"], tampering: "a flipped byte that breaks the manifest's JSON")
        // Without a trusted key it is what it is: a bad manifest.
        #expect(try cli.run(["deploy", "--manifest", v2]).status == 78)
    }

    @Test(arguments: [1, 3])
    func aFlippedByteInTheSignatureIsRefused(line: Int) throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        // Line 1: the signature of the bytes (past the algorithm and key id); line 3: the
        // trusted comment's. One base64 digit changed, so it still decodes.
        var lines = String(decoding: try #require(cli.bytes(v2 + ".minisig")), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var characters = Array(lines[line])
        characters[40] = characters[40] == "A" ? "B" : "A"
        lines[line] = String(characters)
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: v2 + ".minisig"))
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, key.id, line == 1 ? "signature does not match" : "trusted comment"],
                          tampering: line == 1 ? "a flipped byte in the signature" : "a flipped byte in the trusted comment's signature")
    }

    @Test func aFlippedByteInTheSeedIsRefused() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        let seed = cli.root + "/release-2/levels.sqlite"
        var bytes = try #require(cli.bytes(seed))
        bytes[5000] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: seed))
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, key.id, "SHA-256"], tampering: "a flipped byte in the seed")
        #expect(cli.temporaryFiles.isEmpty)
        // verify checks the seed against the signed digest too.
        let verify = try cli.run(["verify", "--manifest", v2, "--trusted-key", key.publicKey])
        #expect(verify.status == 65)
        #expect(verify.stderr.contains(key.id) && verify.stderr.contains("SHA-256"), "\(verify.stderr)")
    }

    @Test func aKeyNotTrustedIsRefused() throws {
        let key = try keygen("release")
        let stranger = try keygen("stranger")
        let v2 = try deployedV1(key: key)
        try sign(v2, with: stranger.secretKey)
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", key.publicKey], mentioning: [v2, stranger.id, "not trusted"], tampering: "a manifest signed by a key not trusted")
    }

    /// A `--trusted-key` that is a directory exited 73 with `cannot read /tmp: is a
    /// directory`, which neither said it was the key nor gave the exit code of an input
    /// that cannot be read, and a FIFO's open waited for a writer (found by a contract
    /// probe): like a missing key, 66 and one line naming it as the public key.
    @Test(arguments: ["directory", "FIFO", "missing"])
    func aTrustedKeyThatIsNotAFileIsAnUnreadableInput(what: String) throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        let path = cli.root + "/trusted.pub"
        switch what {
        case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "FIFO": #expect(mkfifo(path, 0o644) == 0)
        default: break
        }
        let before = state()
        let result = try cli.run(["deploy", "--manifest", v2, "--trusted-key", path])
        #expect(result.status == 66, "\(what): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        let message = what == "missing" ? "public key not found: \(path)" : "cannot read public key \(path): not a regular file"
        #expect(result.stderr == "seeddb: error: \(message)\n", "\(result.stderr)")
        #expect(state() == before)
    }

    @Test func aLowerSerialIsRefusedUnlessAllowedAndRollbackIsRecorded() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey]).status == 0)
        // A replay of the older, validly signed manifest.
        let v1 = cli.root + "/release-1/seeds.json"
        let refused = try expectRefused(["deploy", "--manifest", v1, "--trusted-key", key.publicKey], mentioning: [v1, key.id, "serial 1", "serial 2", "--allow-downgrade"], tampering: "a replayed older manifest (lower serial), deploy")
        #expect(refused.stderr.contains("lower"))
        // The JSON error's message is the line, the flag that would allow it included.
        let json = try cli.run(["deploy", "--json", "--manifest", v1, "--trusted-key", key.publicKey])
        let message = (try json.json()["error"] as? [String: Any])?["message"] as? String
        #expect(message?.hasSuffix("; pass --allow-downgrade to deploy it anyway") == true && refused.stderr.contains(message ?? "-"), "\(json.stdout)")
        try expectRefused(["reseed", "--manifest", v1, "--trusted-key", key.publicKey], mentioning: [v1, "serial 1"], tampering: "a replayed older manifest (lower serial), reseed")

        // --allow-downgrade deploys it and records serial 1.
        var result = try cli.run(["deploy", "--manifest", v1, "--trusted-key", key.publicKey, "--allow-downgrade"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.levelCount() == 20)
        #expect(try statusSignature(v1)?["serial"] as? Int == 1)

        // rollback (local) restores v2 and records its signature again.
        result = try cli.run(["rollback", "--manifest", v1])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.levelCount() == 24)
        #expect(cli.settingsEntry()?["version"] as? String == "2")
        #expect(Self.fields(cli.settingsEntry()?["signature"]) == Self.fields(["keyId": key.id, "serial": 2]))
    }

    /// A rollback is local: it keeps the pin where the deploys put it. After a rotation to
    /// key B, a rollback to what key A signed does not pin A again (A's manifests stay
    /// refused, B's is held, not refused), and a held seed's newer serial of B pins.
    @Test func aRollbackNeverUndoesARotationNorLowersTheSerial() throws {
        let (a, b) = (try keygen("a"), try keygen("b"))
        _ = try deployedV1(key: a)
        let rotated = try release(2, serial: 2, name: "2b")
        try sign(rotated, with: b.secretKey)
        #expect(try cli.run(["deploy", "--manifest", rotated, "--trusted-key", b.publicKey]).status == 0)
        #expect(try statusSignature(rotated)?["keyId"] as? String == b.id)

        let rollback = try cli.run(["rollback", "--manifest", rotated])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try cli.levelCount() == 20, "v1 restored")
        #expect(Self.fields(cli.settingsEntry()?["signature"]) == Self.fields(["keyId": b.id, "serial": 2]), "\(cli.settingsEntry() ?? [:])")
        // The old key's newer release is refused: the rollback did not pin A again.
        let oldKey = try release(2, serial: 3, name: "2a")
        try sign(oldKey, with: a.secretKey)
        try expectRefused(["deploy", "--manifest", oldKey], mentioning: [oldKey, b.id, "not trusted"], tampering: "the rotated-out key after a rollback")
        // The new key's release is held, not refused.
        let held = try cli.run(["deploy", "--json", "--manifest", rotated])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(try held.seeds().first?["action"] as? String == "held", "\(held.stdout)")
        // A newer serial of B deployed while held pins it: serials 3 and 4 are then older.
        let newer = try release(2, serial: 5, name: "2c")
        try sign(newer, with: b.secretKey)
        #expect(try cli.run(["deploy", "--manifest", newer]).status == 0)
        #expect(Self.fields(cli.settingsEntry()?["signature"]) == Self.fields(["keyId": b.id, "serial": 5]), "\(cli.settingsEntry() ?? [:])")
        let replay = try release(2, serial: 4, name: "2d")
        try sign(replay, with: b.secretKey)
        try expectRefused(["deploy", "--manifest", replay], mentioning: [replay, "serial 4", "serial 5"], tampering: "a replay below the held seed's pin")
    }

    /// A deploy of serial 2 killed once it switched the working copy, then a replay of the
    /// older signed serial 1: refused as a downgrade before it finishes the killed run
    /// (whose finish would pin serial 2), so nothing changes, and the newer release's
    /// rerun finishes it. It was once finished recording the replay's serial 1, and then
    /// replaced 2 by 1 with no `--allow-downgrade`; later finished and recorded at 2 by
    /// the refused replay (a refusal that changed the disk).
    @Test(.enabled(if: DurabilityOrderTests.strace != nil, "strace is missing: .ci/run installs it"))
    func aReplayAfterAKilledNewerReleaseIsRefused() throws {
        let key = try keygen("release")
        let template = cli
        let v2 = try deployedV1(key: key)
        let v1 = template.root + "/release-1/seeds.json"
        var switched = 0
        for when in 1...12 {
            let trial = try template.clone()
            let (killed, _) = try SyscallKillMatrix.traced(trial, ["deploy", "--manifest", v2, "--trusted-key", key.publicKey], kill: ("rename", when))
            guard killed.killedBy == SIGKILL else { continue }
            let heldV2 = try trial.levelCount() == 24
            if heldV2 { switched += 1 }
            let killedSettings = trial.bytes(trial.settingsFile)
            let replay = try trial.run(["deploy", "--manifest", v1, "--trusted-key", key.publicKey])
            var entry = trial.settingsEntry() ?? [:]
            if heldV2 {
                #expect(replay.status == 65 && replay.stderr.contains("lower"), "rename #\(when): \(replay.status) \(replay.stderr)")
                #expect(try trial.levelCount() == 24, "rename #\(when): the replay replaced the newer release")
                #expect(trial.bytes(trial.settingsFile) == killedSettings, "rename #\(when): the refused replay changed the settings: \(entry)")
                let rerun = try trial.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey])
                entry = trial.settingsEntry() ?? [:]
                #expect(rerun.status == 0, "rename #\(when): \(rerun.stderr)")
                #expect(entry["version"] as? String == "2" && (entry["signature"] as? [String: Any])?["serial"] as? Int == 2, "rename #\(when): \(entry)")
            } else {
                #expect(replay.status == 0 && entry["version"] as? String == "1", "rename #\(when): \(replay.status) \(replay.stderr)")
            }
            #expect(entry["interrupted"] == nil, "rename #\(when): \(entry)")
        }
        #expect(switched > 0, "no kill came after the switch")
    }

    @Test func anExpiredManifestIsRefused() throws {
        let key = try keygen("release")
        _ = try deployedV1(key: key)
        let expired = try release(2, serial: 3, expires: "2020-01-01T00:00:00Z", name: "expired")
        try sign(expired, with: key.secretKey)
        try expectRefused(["deploy", "--manifest", expired, "--trusted-key", key.publicKey], mentioning: [expired, key.id, "expired", "2020-01-01T00:00:00Z"], tampering: "an expired manifest")
        // Not yet expired: deploys.
        let fresh = try release(2, serial: 3, expires: "2999-01-01", name: "fresh")
        try sign(fresh, with: key.secretKey)
        #expect(try cli.run(["deploy", "--manifest", fresh, "--trusted-key", key.publicKey]).status == 0)
    }

    @Test func aSignedManifestNeedsEverySeedsDigest() throws {
        let key = try keygen("release")
        let manifest = try release(2, serial: 1, sha256: false)
        let result = try cli.run(["sign", "--key", key.secretKey, manifest])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("sha256"))
        #expect(!FileManager.default.fileExists(atPath: manifest + ".minisig"))
        // Signed anyway, by minisign (which signs any file): refused at deploy, 78.
        if Self.hasMinisign {
            let (publicKey, secretKey) = (cli.root + "/m.pub", cli.root + "/m.key")
            #expect(try minisign(["-G", "-W", "-p", publicKey, "-s", secretKey]).status == 0)
            #expect(try minisign(["-S", "-s", secretKey, "-m", manifest]).status == 0)
            let deploy = try cli.run(["deploy", "--manifest", manifest, "--trusted-key", publicKey])
            #expect(deploy.status == 78, "\(deploy.stderr)")
            #expect(deploy.stderr.contains("sha256"), "\(deploy.stderr)")
            #expect(!FileManager.default.fileExists(atPath: cli.workingCopy))
        }
    }

    // MARK: System mode: /etc/seeddb/keys/<app>

    @Test func systemModeTrustsTheKeysInEtc() throws {
        let key = try keygen("release")
        let root = cli.root + "/system"
        let keys = root + "/etc/seeddb/keys/" + cli.app
        let manifest = try release(2, serial: 5)
        try sign(manifest, with: key.secretKey)
        // No keys directory: nothing is trusted, so an unsigned deploy is allowed.
        #expect(try cli.run(["deploy", "--system", "--root", root, "--dry-run"] + cli.seedFlags(1)).status == 0)
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: key.publicKey, toPath: keys + "/release.pub")
        let unsigned = try cli.run(["deploy", "--system", "--root", root] + cli.seedFlags(1))
        #expect(unsigned.status == 65, "\(unsigned.stderr)")
        let result = try cli.run(["deploy", "--system", "--root", root, "--manifest", manifest, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let status = try cli.run(["status", "--system", "--root", root, "--manifest", manifest, "--json"])
        #expect(Self.fields(try status.seeds().first?["signature"]) == Self.fields(["keyId": key.id, "serial": 5]))
    }

    @Test(.enabled(if: PackagingTests.isRoot, "the rule is for root"), arguments: ["directory", "key"])
    func aTrustedKeysDirectoryANonRootUserCanWriteIsRefused(what: String) throws {
        let key = try keygen("release")
        let root = cli.root + "/system"
        let keys = root + "/etc/seeddb/keys/" + cli.app
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: key.publicKey, toPath: keys + "/release.pub")
        let manifest = try release(2, serial: 5)
        try sign(manifest, with: key.secretKey)
        #expect(chmod(what == "directory" ? keys : keys + "/release.pub", what == "directory" ? 0o777 : 0o666) == 0)
        let before = (cli.list(root + "/var/lib/" + cli.app), cli.bytes(root + "/var/lib/" + cli.app + "/settings.json"))
        let result = try cli.run(["deploy", "--system", "--root", root, "--manifest", manifest])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(what == "directory" ? keys : keys + "/release.pub") && result.stderr.contains("non-root"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let unchanged = (cli.list(root + "/var/lib/" + cli.app), cli.bytes(root + "/var/lib/" + cli.app + "/settings.json")) == before
        #expect(unchanged)
        ReliabilityLog.record(suite: "tampering: a trusted-keys \(what) a non-root user can write, --system as root (exit \(result.status))", badInputs: 1, dataLost: unchanged && result.status == 65 ? 0 : 1)
    }

    // MARK: pack --sign, and the demo

    @Test func packSignsTheManifestItWrites() throws {
        let key = try keygen("release")
        let manifest = cli.root + "/dist/seeds.json"
        let result = try cli.run(["pack", "\(CLIHarness.seeds)/v2/levels.sql", "--output", cli.root + "/dist/levels.sqlite", "--version", "2",
                                  "--manifest", manifest, "--app", cli.app, "--serial", "9", "--sign", key.secretKey])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: manifest + ".minisig"))
        #expect(try cli.run(["deploy", "--manifest", manifest, "--trusted-key", key.publicKey]).status == 0)
        #expect(try statusSignature(manifest)?["serial"] as? Int == 9)
        #expect(try cli.run(["pack", "\(CLIHarness.seeds)/v2/levels.sql", "--output", cli.root + "/x.sqlite", "--version", "2", "--sign", key.secretKey]).status == 64, "--sign needs --manifest")
    }

    @Test(arguments: [1, 2])
    func theDemoManifestsAreSigned(version: Int) throws {
        let manifest = "\(CLIHarness.seeds)/v\(version)/seeds.json"
        let demoKey = "\(CLIHarness.seeds)/keys/demo.pub"
        let result = try cli.run(["deploy", "--manifest", manifest, "--trusted-key", demoKey])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try statusSignature(manifest)?["serial"] as? Int == version)
        if Self.hasMinisign {
            #expect(try minisign(["-V", "-m", manifest, "-p", demoKey]).status == 0)
        }
    }
}
