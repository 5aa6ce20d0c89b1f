import SeedDBCore

extension SettingsEntry {
    /// Decodes `"signature": {"keyId": "<hex>", "serial": N}` of `object`, if present.
    static func signature(in object: [String: JSONValue], at prefix: String) throws(ShapeError) -> SeedSignature? {
        guard let value = object["signature"] else { return nil }
        guard let fields = value.object, let keyID = fields["keyId"]?.string, let serial = fields["serial"]?.unsignedInteger
        else { throw ShapeError(field: prefix + "signature") }
        return SeedSignature(keyID: keyID, serial: serial)
    }

    /// `{"keyId": "<hex>", "serial": N}`.
    static func jsonValue(of signature: SeedSignature) -> JSONValue {
        .object(["keyId": .string(signature.keyID), "serial": .number(String(signature.serial))])
    }
}
