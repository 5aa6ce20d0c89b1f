import Foundation
import Testing

/// `status` and `verify` say what `deploy` would refuse, in the deploy's own words: a
/// warning on standard error and `"refusal"` on the seed's JSON entry (`status` exits 0,
/// `verify` 65).
extension SignedSeedTests {
    /// The refusals a signed deploy makes.
    enum Refusal: String, CaseIterable {
        case lowerSerial, expired, unsignedAfterSigned, untrustedKey, digestDiffers
    }

    /// v1 deployed from a manifest `key` signed (pinned), and a manifest that deploy
    /// refuses for `refusal`, with the flags each command takes.
    func refused(_ refusal: Refusal, key: (publicKey: String, secretKey: String, id: String)) throws -> (manifest: String, flags: [String]) {
        let v2 = try deployedV1(key: key)
        switch refusal {
        case .lowerSerial:
            #expect(try cli.run(["deploy", "--manifest", v2]).status == 0)
            return (cli.root + "/release-1/seeds.json", ["--trusted-key", key.publicKey])
        case .expired:
            let expired = try release(2, serial: 3, expires: "2020-01-01T00:00:00Z", name: "expired")
            try sign(expired, with: key.secretKey)
            return (expired, [])
        case .unsignedAfterSigned:
            return (try release(2, serial: 3, name: "unsigned"), [])
        case .untrustedKey:
            let stranger = try release(2, serial: 3, name: "stranger")
            try sign(stranger, with: try keygen("stranger").secretKey)
            return (stranger, [])
        case .digestDiffers:
            let seed = cli.root + "/release-2/levels.sqlite"
            var bytes = try #require(cli.bytes(seed))
            bytes[5000] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: seed))
            return (v2, [])
        }
    }

    @Test(arguments: Refusal.allCases)
    func statusAndVerifySayWhatDeployWouldRefuse(_ refusal: Refusal) throws {
        // Given a manifest deploy refuses, and the line it prints
        let key = try keygen("release")
        let (manifest, flags) = try refused(refusal, key: key)
        let deploy = try expectRefused(["deploy", "--manifest", manifest] + flags, mentioning: [manifest, key.id], tampering: "status and verify: \(refusal.rawValue)")
        let line = String(try #require(deploy.stderr.split(separator: "\n").first).dropFirst("seeddb: error: ".count))

        // When status looks: exit 0, the line as a warning, and in --json
        let status = try cli.run(["status", "--manifest", manifest, "--json"] + flags)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr == "seeddb: warning: \(line)\n", "\(status.stderr)")
        #expect(try status.seeds().first?["refusal"] as? String == line)
        #expect(try status.seeds().first?["pinnedKeyId"] as? String == key.id)
        let text = try cli.run(["status", "--manifest", manifest] + flags)
        #expect(text.status == 0 && text.stderr.contains(line), "\(text.stderr)")
        #expect(text.stdout.contains("  pinned key:       \(key.id)"), "\(text.stdout)")

        // When verify looks: exit 65, the line as a warning, and in --json
        let verify = try cli.run(["verify", "--manifest", manifest, "--json"] + flags)
        #expect(verify.status == 65, "\(verify.stderr)")
        // Said once (it was also printed again as the error line).
        #expect(verify.stderr == "seeddb: warning: \(line)\n", "\(verify.stderr)")
        #expect(try verify.seeds().first?["refusal"] as? String == line)
    }

    @Test func nothingToRefuseIsNoWarning() throws {
        let key = try keygen("release")
        let v2 = try deployedV1(key: key)
        for command in ["status", "verify"] {
            let result = try cli.run([command, "--manifest", v2, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            #expect(try result.seeds().first?["refusal"] == nil)
        }
    }
}
