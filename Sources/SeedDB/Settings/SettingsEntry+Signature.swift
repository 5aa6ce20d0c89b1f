import Foundation
import SeedDBCore

extension SettingsEntry {
    /// Decodes `"signature": {"keyId": "<hex>", "serial": N}` of `object`, if present.
    static func signature(in object: [String: Any], at prefix: String) throws(ShapeError) -> SeedSignature? {
        guard let value = object["signature"] else { return nil }
        guard let fields = value as? [String: Any], let keyID = fields["keyId"] as? String,
              let number = fields["serial"] as? NSNumber, String(cString: number.objCType) != "c",
              number.int64Value >= 0 || String(cString: number.objCType) == "Q"
        else { throw ShapeError(field: prefix + "signature") }
        return SeedSignature(keyID: keyID, serial: number.uint64Value)
    }

    /// `{"keyId": "<hex>", "serial": N}`.
    static func jsonObject(of signature: SeedSignature) -> [String: Any] {
        ["keyId": signature.keyID, "serial": NSNumber(value: signature.serial)]
    }
}
