import SeedDBCore

extension SettingsEntry {
    /// `{"keyId": "<hex>", "serial": N, "publicKey": "<base64>"}` (`publicKey` when known).
    static func jsonValue(of signature: SeedSignature) -> JSONValue {
        var object: [String: JSONValue] = ["keyId": .string(signature.keyID), "serial": .number(String(signature.serial))]
        if let publicKey = signature.publicKey { object["publicKey"] = .string(publicKey) }
        return .object(object)
    }
}
