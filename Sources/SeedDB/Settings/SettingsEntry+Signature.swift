import SeedDBCore

extension SettingsEntry {
    /// Decodes `"signature": {"keyId": "<hex>", "serial": N, "publicKey": "<base64>"}` of
    /// `object`, if present. A public key must be a minisign key with that key id.
    static func signature(in object: [String: JSONValue], at prefix: String) throws(ShapeError) -> SeedSignature? {
        guard let value = object["signature"] else { return nil }
        guard let fields = value.object, let keyID = fields["keyId"]?.string, let serial = fields["serial"]?.unsignedInteger
        else { throw ShapeError(field: prefix + "signature") }
        var signature = SeedSignature(keyID: keyID, serial: serial)
        if let value = fields["publicKey"] {
            guard let text = value.string, (try? MinisignPublicKey(text: text))?.keyID.description == keyID
            else { throw ShapeError(field: prefix + "signature.publicKey") }
            signature.publicKey = text
        }
        return signature
    }

    /// `{"keyId": "<hex>", "serial": N, "publicKey": "<base64>"}` (`publicKey` when known).
    static func jsonValue(of signature: SeedSignature) -> JSONValue {
        var object: [String: JSONValue] = ["keyId": .string(signature.keyID), "serial": .number(String(signature.serial))]
        if let publicKey = signature.publicKey { object["publicKey"] = .string(publicKey) }
        return .object(object)
    }
}
