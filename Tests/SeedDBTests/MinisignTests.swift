import Foundation
import Logging
@testable import SeedDB
import Testing

/// minisign's formats as SeedDB reads and writes them, and signed manifests through the
/// library API (`DeployConfiguration.trustedKeys`).
@Suite struct MinisignTests {
    let directory = TemporaryDirectory(prefix: "seeddb-minisign")

    /// A key minisign 0.11 made (`minisign -G -W`), with its public key and a prehashed
    /// signature of `{"a":1}\n` it made.
    static let minisignPublicKey = "untrusted comment: minisign public key D762126178BEF898\nRWSY+L54YRJi16Lzbt8hDhbo5tk4jpyRZ8ojvmccGxZ9Wc1acL0osLn6\n"
    static let minisignSignature = """
        untrusted comment: signature from minisign secret key
        RUSY+L54YRJi1+uJbQFuJIVvi0t0JvxFEliGAK/teT/FbWU5mscsZmRdYD1jWDsZaxSDxRTX5AaLFP7oiLZdwR6jfzacVZ+cOQE=
        trusted comment: timestamp:1795535195\tfile:m.json\thashed
        7wfzVTkLxVKQh3lV77e2GA5RUaJxEz4btY4i4EIHM2LdyADvBQoyIMNHsQpt9GUaMd98GIOFg1YXX/uUwpo8Ag==

        """

    @Test func aSignatureMinisignMadeVerifies() throws {
        let key = try MinisignPublicKey(text: Self.minisignPublicKey)
        #expect(key.keyID.description == "D762126178BEF898")
        let signature = try MinisignSignature(bytes: Array(Self.minisignSignature.utf8))
        #expect(signature.algorithm == .prehashed)
        #expect(signature.trustedComment == "timestamp:1795535195\tfile:m.json\thashed")
        try signature.verify(Array("{\"a\":1}\n".utf8), with: key)
        #expect(throws: MinisignSignature.Failure.badSignature) { try signature.verify(Array("{\"a\":2}\n".utf8), with: key) }
        var comment = signature
        comment.trustedComment += "\tserial:99"
        #expect(throws: MinisignSignature.Failure.badComment) { try comment.verify(Array("{\"a\":1}\n".utf8), with: key) }
        // The key's base64 line alone (what minisign -P takes) is a key too.
        #expect(try MinisignPublicKey(text: key.base64) == key)
    }

    @Test func keyIDsPrintAsMinisignPrintsThem() {
        #expect(MinisignKeyID([0x98, 0xF8, 0xBE, 0x78, 0x61, 0x12, 0x62, 0xD7]).description == "D762126178BEF898")
        // minisign formats with %PRIX64: no leading zeros.
        #expect(MinisignKeyID([0x01, 0, 0, 0, 0, 0, 0, 0x0A]).description == "A00000000000001")
    }

    @Test(arguments: [MinisignSignature.Algorithm.legacy, .prehashed])
    func aNewKeySignsAndItsFilesReadBack(algorithm: MinisignSignature.Algorithm) throws {
        let key = MinisignSecretKey.generate()
        let reread = try MinisignSecretKey(text: key.fileText(passphrase: nil)) { () throws(SeedDBError) in
            Issue.record("an unencrypted key needs no passphrase")
            return []
        }
        #expect(reread.keyID == key.keyID)
        let publicKey = try MinisignPublicKey(text: key.publicKey.fileText)
        #expect(publicKey == key.publicKey)
        let message = Array("manifest bytes".utf8)
        let signature = try reread.sign(message, trustedComment: "app:a.b\tserial:1", algorithm: algorithm)
        let parsed = try MinisignSignature(bytes: Array(signature.fileText.utf8))
        #expect(parsed == signature)
        try parsed.verify(message, with: publicKey)
        #expect(throws: MinisignSignature.Failure.otherKey) { try parsed.verify(message, with: MinisignSecretKey.generate().publicKey) }
    }

    @Test func malformedFilesAreRefusedWithTheirReason() {
        #expect(throws: SeedDBError.self) { try MinisignPublicKey(text: "untrusted comment: x\nnot base64\n") }
        #expect(throws: SeedDBError.self) { try MinisignSecretKey(text: Self.minisignPublicKey) { () throws(SeedDBError) in [] } }
        for text in ["", "untrusted comment: x\n", Self.minisignSignature.replacingOccurrences(of: "RUSY", with: "RXSY")] {
            #expect(throws: MinisignSignature.Failure.self) { try MinisignSignature(bytes: Array(text.utf8)) }
        }
        // The reason reads as English: one line, two lines.
        #expect(throws: MinisignSignature.Failure.malformed("1 line instead of 4")) { try MinisignSignature(bytes: Array("untrusted comment: x\n".utf8)) }
        #expect(throws: MinisignSignature.Failure.malformed("2 lines instead of 4")) { try MinisignSignature(bytes: Array("untrusted comment: x\nRWQ\n".utf8)) }
    }

    @Test func theSettingsEntryKeepsTheSignature() throws {
        var entry = SettingsEntry(record: DeployRecord(version: try SeedVersion("2"), sha256: try SHA256Digest(hex: String(repeating: "a", count: 64)), size: 1, deployedAt: "t"))
        entry.signature = SeedSignature(keyID: "D762126178BEF898", serial: 7, publicKey: try MinisignPublicKey(text: Self.minisignPublicKey).base64)
        entry.previous = DeployRecord(version: try SeedVersion("1"), sha256: try SHA256Digest(hex: String(repeating: "b", count: 64)), size: 1, deployedAt: "t")
        entry.previous?.signature = SeedSignature(keyID: "ABC", serial: 6)
        let json = entry.json
        #expect(json.object?["signature"]?.object?["serial"]?.unsignedInteger == 7)
        let decoded = try SettingsEntry.decoding(json.prettyPrinted)
        #expect(decoded == entry)
        var bad = try #require(json.object)
        bad["signature"] = .object(["keyId": .string("X"), "serial": .number("-1")])
        #expect(throws: SettingsEntry.ShapeError.self) { try SettingsEntry.decoding(JSONValue.object(bad).prettyPrinted) }
        // A pinned public key must be the key the key id names.
        bad["signature"] = .object(["keyId": .string("ABC"), "serial": .number("7"), "publicKey": .string(try MinisignPublicKey(text: Self.minisignPublicKey).base64)])
        #expect(throws: SettingsEntry.ShapeError.self) { try SettingsEntry.decoding(JSONValue.object(bad).prettyPrinted) }
    }

    @Test(arguments: [#""serial": -1"#, #""serial": 1.5"#, #""serial": true"#, #""serial": "3""#, #""expires": "soon""#])
    func aBadSerialOrExpiryIsAManifestError(field: String) throws {
        let path = directory.write("seeds.json", #"{"app": "a.b", \#(field), "seeds": [{"source": "x.sqlite", "version": "1"}]}"#)
        #expect { try Manifest.load(path) } throws: { ($0 as? SeedDBError)?.code == .invalidManifest }
    }

    @Test func theLibraryDeploysOnlyWhatATrustedKeySigned() throws {
        // Given a manifest of demo v2 signed by a key, with serial 4
        let key = MinisignSecretKey.generate()
        try FileManager.default.copyItem(atPath: DemoSeeds.v2, toPath: directory.file("levels.sqlite"))
        let digest = try FileDigest.sha256(ofFileAt: DemoSeeds.v2)
        let manifest = directory.write("seeds.json", #"{"app": "com.example.levels", "serial": 4, "seeds": [{"source": "levels.sqlite", "version": "2", "sha256": "\#(digest.hex)"}]}"#)
        try ManifestSigner.sign(manifest, with: key)

        var configuration = DeployConfiguration()
        configuration.trustedKeys = [MinisignSecretKey.generate().publicKey]
        let xdg = XDGDirectories(dataHome: directory.file("data"), cacheHome: directory.file("cache"), configHome: directory.file("config"))
        let seed = try #require(try Manifest.load(manifest).seeds.first)
        // When another key is trusted: refused, nothing made
        #expect { try Deployer(directories: xdg, configuration: configuration, logger: Logger(label: "test")).deploy(seed) } throws: { error in
            (error as? SeedDBError)?.code == .untrustedSeed && (error as? SeedDBError)?.message.contains(key.keyID.description) == true
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data")))
        // When the signer's key is trusted: deployed, and the signature recorded
        configuration.trustedKeys.append(key.publicKey)
        let deployer = Deployer(directories: xdg, configuration: configuration, logger: Logger(label: "test"))
        #expect(try deployer.deploy(seed).action == .installed)
        #expect(try deployer.status(seed).signature == SeedSignature(keyID: key.keyID.description, serial: 4, publicKey: key.publicKey.base64))
        // A seed not from a manifest is refused.
        var bare = seed
        bare.manifest = nil
        #expect { try deployer.reseed(bare) } throws: { ($0 as? SeedDBError)?.code == .untrustedSeed }

        // Without trustedKeys, the record's pin still checks: the signed manifest deploys,
        // the bare seed is refused, and forgetSignature leaves signing.
        var pinned = Deployer(directories: xdg, configuration: DeployConfiguration(), logger: Logger(label: "test"))
        #expect(try pinned.reseed(seed).signature?.keyID == key.keyID.description)
        #expect { try pinned.reseed(bare) } throws: { error in
            (error as? SeedDBError)?.remedy == .forgetSignature && (error as? SeedDBError)?.message.contains("pinned key id \(key.keyID)") == true
        }
        pinned.configuration.forgetSignature = true
        let left = try pinned.reseed(bare)
        #expect(left.forgotSignature?.keyID == key.keyID.description && left.signature == nil)
        #expect(try pinned.status(seed).pinnedKeyID == nil)
    }
}
