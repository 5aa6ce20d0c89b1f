import Foundation
import Testing

/// The pin (trust on first use): a seed deployed from a verified manifest records the
/// signer's public key, and from then on only that key (or a key trusted by
/// configuration, which re-pins) may sign what it deploys, never a lower serial; leaving
/// signing takes `--forget-signature`.
extension SignedSeedTests {
    /// The base64 line of a public key file (what the record pins).
    func base64(ofPublicKey path: String) throws -> String {
        let text = String(decoding: try #require(cli.bytes(path)), as: UTF8.self)
        return try #require(text.split(separator: "\n").last.map(String.init))
    }

    /// The record's `"signature"` object.
    func pinned() -> [String: Any]? {
        cli.settingsEntry()?["signature"] as? [String: Any]
    }

    @Test func oneRunWithoutTheKeyNoLongerUndoesTheTrust() throws {
        // Given serial 2 deployed with --trusted-key: the record pins the key
        let key = try keygen("a")
        let v2 = try release(2, serial: 2)
        try sign(v2, with: key.secretKey)
        let first = try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(pinned()?["publicKey"] as? String == (try base64(ofPublicKey: key.publicKey)))
        #expect(Self.fields(pinned()) == [key.id, "2"])

        // When an unsigned, different manifest is deployed without flags: refused
        let evil = try release(1, serial: nil, name: "evil")
        try expectRefused(["deploy", "--manifest", evil], mentioning: [evil, "unsigned", "pinned key id \(key.id)", "--forget-signature"], tampering: "an unsigned manifest over a pinned seed, no flags")
        try expectRefused(["reseed", "--manifest", evil], mentioning: [evil, "pinned key id \(key.id)"], tampering: "an unsigned manifest over a pinned seed, reseed")
        // and so is an unsigned manifest of the very version deployed (the fast path)
        let same = try release(2, serial: nil, name: "same")
        try expectRefused(["deploy", "--manifest", same], mentioning: [same, "pinned key id \(key.id)"], tampering: "an unsigned manifest of the deployed version over a pinned seed")
        // and a seed given by flags
        try expectRefused(["deploy"] + cli.seedFlags(1), mentioning: ["levels.sqlite", "pinned key id \(key.id)", "not from a signed manifest"], tampering: "a seed given by flags over a pinned seed")

        // When the old signed release (serial 1) is deployed with the key: refused too
        let v1 = try release(1, serial: 1)
        try sign(v1, with: key.secretKey)
        try expectRefused(["deploy", "--manifest", v1, "--trusted-key", key.publicKey], mentioning: [v1, "serial 1", "serial 2", "pinned key id \(key.id)"], tampering: "the older signed release over a pinned seed")
        #expect(try cli.levelCount() == 24)
    }

    @Test func theManifestThePinnedKeySignedDeploysWithoutTheKey() throws {
        let key = try keygen("release")
        let stranger = try keygen("stranger")
        let v2 = try deployedV1(key: key)
        // Signed by the pinned key: verified with the pin, no --trusted-key needed.
        let result = try cli.run(["deploy", "--manifest", v2])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("replaced 1 -> 2") && result.stdout.contains("signed by \(key.id), serial 2"), "\(result.stdout)")
        #expect(try cli.levelCount() == 24)
        #expect(Self.fields(pinned()) == [key.id, "2"])
        // Signed by another key that nothing trusts: refused, naming both keys.
        let other = try release(1, serial: 3, name: "other")
        try sign(other, with: stranger.secretKey)
        try expectRefused(["deploy", "--manifest", other], mentioning: [other, stranger.id, "not trusted", "pinned key id \(key.id)"], tampering: "a manifest signed by a key neither pinned nor trusted")
        // A changed byte is refused by the pinned key as by a trusted one.
        var bytes = try #require(cli.bytes(v2))
        bytes.append(contentsOf: Data(" ".utf8))
        try bytes.write(to: URL(fileURLWithPath: v2))
        try expectRefused(["reseed", "--manifest", v2], mentioning: [v2, key.id, "signature does not match"], tampering: "a changed byte in a manifest checked by the pinned key")
    }

    @Test func aNewlyTrustedKeyRePins() throws {
        // Given v1 pinned to the old key
        let old = try keygen("old")
        let new = try keygen("new")
        let v1 = try release(1, serial: 1)
        try sign(v1, with: old.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v1, "--trusted-key", old.publicKey]).status == 0)
        let v2 = try release(2, serial: 2)
        try sign(v2, with: new.secretKey)
        // The new key alone is not trusted
        try expectRefused(["deploy", "--manifest", v2], mentioning: [v2, new.id, "pinned key id \(old.id)"], tampering: "a new key before it is trusted")
        // When it is trusted once, its signature re-pins
        let rotated = try cli.run(["deploy", "--manifest", v2, "--trusted-key", new.publicKey])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(pinned()?["publicKey"] as? String == (try base64(ofPublicKey: new.publicKey)))
        // Then the new key's next release deploys without flags, and the old key's is refused.
        let v3 = try release(1, serial: 3, name: "3")
        try sign(v3, with: new.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v3]).status == 0)
        let v4 = try release(2, serial: 4, name: "4")
        try sign(v4, with: old.secretKey)
        try expectRefused(["deploy", "--manifest", v4], mentioning: [v4, old.id, "pinned key id \(new.id)"], tampering: "the rotated-out key after a re-pin")
    }

    @Test func anUpToDateSeedRePinsWithoutCopying() throws {
        // Given v2 pinned to the old key, then v2 re-signed by a new one at serial 3
        let old = try keygen("old")
        let new = try keygen("new")
        let v2 = try release(2, serial: 2)
        try sign(v2, with: old.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", old.publicKey]).status == 0)
        let generation = cli.generationFile
        let resigned = try release(2, serial: 3, name: "resigned")
        try sign(resigned, with: new.secretKey)
        // When it is deployed trusting the new key: unchanged, and pinned to it
        let result = try cli.run(["deploy", "--manifest", resigned, "--trusted-key", new.publicKey])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("unchanged at 2") && result.stdout.contains("signed by \(new.id), serial 3"), "\(result.stdout)")
        #expect(cli.generationFile == generation)
        #expect(Self.fields(pinned()) == [new.id, "3"])
        // so the replayed serial 2 is refused now.
        try expectRefused(["deploy", "--manifest", v2, "--trusted-key", old.publicKey], mentioning: [v2, "serial 2", "serial 3"], tampering: "a replay of the same version at a lower serial")
    }

    @Test(arguments: [false, true])
    func forgetSignatureLeavesSigningAndSaysSo(sameVersion: Bool) throws {
        let key = try keygen("release")
        let v2 = try release(2, serial: 2)
        try sign(v2, with: key.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey]).status == 0)
        let unsigned = try release(sameVersion ? 2 : 1, serial: nil, name: "unsigned")
        // A trusted key still applies: forgetting the pin does not drop it. So the refusal
        // without --forget-signature does not offer it (it did, found by a contract probe).
        let trusted = try expectRefused(["deploy", "--manifest", unsigned, "--trusted-key", key.publicKey], mentioning: [unsigned, "unsigned", key.id], tampering: "an unsigned manifest over a pinned seed, a trusted key")
        #expect(!trusted.stderr.contains("--forget-signature"), "\(trusted.stderr)")
        try expectRefused(["deploy", "--manifest", unsigned, "--forget-signature", "--trusted-key", key.publicKey], mentioning: [unsigned, "unsigned", key.id], tampering: "an unsigned manifest with --forget-signature and a trusted key")
        // Without the trusted key, the pin alone refuses: the flag is offered.
        try expectRefused(["deploy", "--manifest", unsigned], mentioning: [unsigned, "pass --forget-signature"], tampering: "an unsigned manifest over a pinned seed, no key")

        // When it is deployed with --forget-signature: deployed, said, and no longer pinned
        let result = try cli.run(["deploy", "--manifest", unsigned, "--forget-signature", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let entry = try #require(try result.seeds().first)
        #expect(entry["action"] as? String == (sameVersion ? "unchanged" : "replaced"))
        #expect(Self.fields(entry["forgotSignature"]) == [key.id, "2"])
        #expect(entry["signature"] == nil)
        #expect(pinned() == nil)
        #expect(try cli.levelCount() == (sameVersion ? 24 : 20))
        let status = try cli.run(["status", "--json", "--manifest", unsigned])
        #expect(try status.seeds().first?["pinnedKeyId"] == nil, "\(status.stdout)")
        // Then unsigned deploys need no flag, and say nothing about signatures.
        let plain = try cli.run(["reseed", "--manifest", unsigned])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stdout.contains("signed") && !plain.stdout.contains("forgot"), "\(plain.stdout)")
    }

    @Test func theLineSaysTheForgottenPin() throws {
        let key = try keygen("release")
        _ = try deployedV1(key: key)
        let unsigned = try release(2, serial: nil, name: "unsigned")
        let result = try cli.run(["deploy", "--manifest", unsigned, "--forget-signature"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("; forgot the pinned key id \(key.id)\n"), "\(result.stdout)")
    }

    @Test func purgeForgetsThePinWithTheRecord() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        let purged = try cli.run(["purge", "--manifest", v2])
        #expect(purged.status == 0, "\(purged.stderr)")
        let unsigned = try release(2, serial: nil, name: "unsigned")
        let result = try cli.run(["deploy", "--manifest", unsigned])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(pinned() == nil)
    }

    @Test func aRollbackToAnUnsignedGenerationKeepsThePin() throws {
        // Given unsigned v1, then v2 signed and pinned
        let key = try keygen("release")
        #expect(try cli.run(["deploy"] + cli.seedFlags(1)).status == 0)
        let v2 = try release(2, serial: 2)
        try sign(v2, with: key.secretKey)
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey]).status == 0)
        // When rolled back (local, no signature checked)
        let rollback = try cli.run(["rollback", "--manifest", v2])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try cli.levelCount() == 20)
        // Then the pin stays: an unsigned deploy is still refused
        #expect(Self.fields(pinned()) == [key.id, "2"])
        try expectRefused(["reseed"] + cli.seedFlags(1), mentioning: ["pinned key id \(key.id)"], tampering: "an unsigned seed after a rollback to an unsigned generation")
    }
}

extension SignedSeedTests {
    @Test func aRecordWithoutThePublicKeyPinsTheKeyIDUntilAKeyVouches() throws {
        // Given a record an earlier SeedDB wrote: key id and serial, no public key
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        var settings = try #require(cli.settings())
        var app = try #require(settings["seeddb"] as? [String: Any])
        var entry = try #require(app["levels.sqlite"] as? [String: Any])
        entry["signature"] = ["keyId": key.id, "serial": 1]
        app["levels.sqlite"] = entry
        settings["seeddb"] = app
        try JSONSerialization.data(withJSONObject: settings).write(to: URL(fileURLWithPath: cli.settingsFile))
        // When deployed without a key: unsigned and signed are both refused (the key is unknown)
        try expectRefused(["deploy", "--manifest", try release(2, serial: nil, name: "unsigned")], mentioning: ["pinned key id \(key.id)"], tampering: "an unsigned manifest over a record pinning a key id only")
        try expectRefused(["deploy", "--manifest", v2], mentioning: [v2, "pinned key id \(key.id) (recorded without its public key)"], tampering: "a signed manifest over a record pinning a key id only, no key given")
        // When the key is given once, it is pinned whole, and needed no more
        #expect(try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey]).status == 0)
        #expect(pinned()?["publicKey"] as? String == (try base64(ofPublicKey: key.publicKey)))
        #expect(try cli.run(["reseed", "--manifest", v2]).status == 0)
    }
}
