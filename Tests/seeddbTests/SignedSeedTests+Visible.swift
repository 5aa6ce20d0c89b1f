import Foundation
import Testing

/// Signing that shows: a deploy that checked a signature says who signed and which
/// serial, and `sign` warns about what deploys would make of the manifest it signs.
extension SignedSeedTests {
    @Test func aDeployThatCheckedASignatureSaysSo() throws {
        let key = try keygen("release")
        let v2 = try release(2, serial: 3)
        try sign(v2, with: key.secretKey)
        // The line, installed and then up to date (the fast path prints the same).
        let installed = try cli.run(["deploy", "--manifest", v2, "--trusted-key", key.publicKey])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout == "levels.sqlite: installed 2 by swap (\(cli.workingCopy)); signed by \(key.id), serial 3\n", "\(installed.stdout)")
        let unchanged = try cli.run(["deploy", "--manifest", v2])
        #expect(unchanged.stdout == "levels.sqlite: unchanged at 2 (\(cli.workingCopy)); signed by \(key.id), serial 3\n", "\(unchanged.stdout)")
        // The JSON, both ways.
        for arguments in [["deploy", "--manifest", v2, "--json"], ["reseed", "--manifest", v2, "--json"], ["deploy", "--manifest", v2, "--json", "--dry-run"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.fields(try result.seeds().first?["signature"]) == [key.id, "3"], "\(arguments): \(result.stdout)")
        }
        // No key trusted and none pinned: nothing about signatures.
        let plain = CLIHarness()
        let unsigned = try plain.run(["deploy", "--json"] + plain.seedFlags(1))
        #expect(unsigned.status == 0, "\(unsigned.stderr)")
        #expect(try unsigned.seeds().first?["signature"] == nil)
        #expect(!(try plain.run(["deploy"] + plain.seedFlags(1))).stdout.contains("signed"))
    }

    /// `expires` an ISO-8601 time `days` from now.
    static func expires(inDays days: Double) -> String {
        Date().addingTimeInterval(days * 86_400).ISO8601Format()
    }

    @Test(arguments: [(-1.0, "expired on"), (3.0, "within 7 days"), (30.0, nil)] as [(Double, String?)])
    func signWarnsAboutAnExpiryPastOrNear(days: Double, warning: String?) throws {
        let key = try keygen("release")
        let expires = Self.expires(inDays: days)
        let manifest = try release(2, serial: 1, expires: expires)
        let result = try cli.run(["sign", "--key", key.secretKey, manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: manifest + ".minisig"), "it still signs")
        if let warning {
            #expect(result.stderr.hasPrefix("seeddb: warning: \(manifest) ") && result.stderr.contains(warning) && result.stderr.contains(expires), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        } else {
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    @Test func signWarnsWhenTheSerialIsNotHigherThanTheSignatureItReplaces() throws {
        let key = try keygen("release")
        let manifest = try release(2, serial: 2)
        let first = try cli.run(["sign", "--key", key.secretKey, manifest])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        // The same serial again, then a lower one: warned, and signed all the same.
        for serial in [2, 1] {
            let again = try release(2, serial: serial)
            let result = try cli.run(["sign", "--key", key.secretKey, again])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("serial \(serial), not higher than serial 2"), "\(result.stderr)")
            #expect(String(decoding: cli.bytes(manifest + ".minisig") ?? Data(), as: UTF8.self).contains("serial:\(serial)"))
            // Put serial 2's signature back for the next round.
            _ = try release(2, serial: 2)
            #expect(try cli.run(["sign", "--key", key.secretKey, manifest]).status == 0)
        }
        // A higher serial: no warning.
        let next = try release(2, serial: 3)
        let result = try cli.run(["sign", "--key", key.secretKey, next])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test(.enabled(if: SignedSeedTests.hasMinisign, "needs minisign (apt-get install minisign)"))
    func signReadsTheSerialOfASignatureMinisignMade() throws {
        // minisign's trusted comment has no serial: the manifest it signed is the one
        // beside it, so its serial is the previous one.
        let key = try keygen("release")
        let manifest = try release(2, serial: 5)
        #expect(try minisign(["-S", "-s", key.secretKey, "-m", manifest]).status == 0)
        let result = try cli.run(["sign", "--key", key.secretKey, manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("serial 5, not higher than serial 5"), "\(result.stderr)")
    }
}
