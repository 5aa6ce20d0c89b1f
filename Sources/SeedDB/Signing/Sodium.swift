import SeedDBCore

/// Debian's libsodium, `libsodium.so.23`, loaded with `dlopen` the first time SeedDB needs
/// one of the two primitives minisign's formats use that swift-crypto lacks: BLAKE2b
/// (the prehashed `ED` signatures and the secret key's checksum) and scrypt (the secret
/// key's passphrase encryption).
///
/// Why libsodium: minisign itself is built on it, so these are the very functions minisign
/// calls, scrypt's `opslimit`/`memlimit` to N, r, p mapping included; swift-crypto has no
/// BLAKE2b, and its scrypt is in `_CryptoExtras`, a module without a stable API. Ed25519
/// itself is always swift-crypto's (`Curve25519.Signing`). Loaded at run time, as libzstd
/// is (see `ZstdLibrary`): the build needs no headers, and a process that only checks
/// legacy `Ed` signatures never loads it.
struct Sodium: @unchecked Sendable {
    // @unchecked: plain C function pointers, set once by `load()` and never changed.
    private typealias Initialize = @convention(c) () -> Int32
    private typealias GenericHash = @convention(c) (
        UnsafeMutablePointer<UInt8>?, Int, UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>?, Int) -> Int32
    private typealias Scrypt = @convention(c) (
        UnsafeMutablePointer<UInt8>?, UInt64, UnsafePointer<CChar>?, UInt64, UnsafePointer<UInt8>?, UInt64, Int) -> Int32

    private let genericHash: GenericHash
    private let scrypt: Scrypt

    /// The soname loaded.
    static let soname = "libsodium.so.23"

    /// The library, loaded once per process on first use, or why it could not be.
    private static let shared = Result { () throws(SeedDBError) in try load() }

    /// The loaded library.
    ///
    /// - Parameter purpose: What needs it, for the error message.
    /// - Throws: ``SeedDBError`` `seedUnavailable` naming `libsodium.so.23` and its package.
    static func loaded(for purpose: String) throws(SeedDBError) -> Sodium {
        do {
            return try shared.get()
        } catch {
            throw SeedDBError(.seedUnavailable, "\(purpose) needs \(soname), which \(error.message): install it with apt-get install libsodium23")
        }
    }

    /// BLAKE2b of `bytes`, `length` bytes long (32 or 64 here), unkeyed.
    func blake2b<Bytes: Collection<UInt8>>(_ bytes: Bytes, length: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        let input = Array(bytes)
        let status = input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                genericHash(output.baseAddress, length, input.baseAddress, UInt64(input.count), nil, 0)
            }
        }
        precondition(status == 0, "crypto_generichash refused a valid length")
        return output
    }

    /// minisign's key stream: scrypt (`crypto_pwhash_scryptsalsa208sha256`) of
    /// `passphrase` with `salt`, `opslimit` and `memlimit`, `length` bytes long.
    ///
    /// - Throws: ``SeedDBError`` `ioFailure` when scrypt fails (out of memory, limits out
    ///   of range).
    func scrypt(passphrase: [UInt8], salt: [UInt8], opslimit: UInt64, memlimit: UInt64, length: Int) throws(SeedDBError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        let status = passphrase.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                output.withUnsafeMutableBufferPointer { output in
                    password.withMemoryRebound(to: CChar.self) { password in
                        scrypt(output.baseAddress, UInt64(length), password.baseAddress, UInt64(password.count), salt.baseAddress, opslimit, Int(clamping: memlimit))
                    }
                }
            }
        }
        guard status == 0 else {
            throw SeedDBError(.ioFailure, "cannot derive the secret key's encryption key: scrypt failed (opslimit \(opslimit), memlimit \(memlimit))")
        }
        return output
    }

    private static func load() throws(SeedDBError) -> Sodium {
        let handle: UnsafeMutableRawPointer
        switch Syscalls.loadLibrary(soname) {
        case .success(let loaded): handle = loaded
        case .failure(let reason): throw SeedDBError(.seedUnavailable, "cannot be loaded (\(reason.message))")
        }
        // Never closed: the functions stay in use for the life of the process.
        func symbol<Function>(_ name: String, as type: Function.Type) throws(SeedDBError) -> Function {
            guard let address = Syscalls.symbol(name, in: handle) else {
                throw SeedDBError(.seedUnavailable, "has no \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        let initialize = try symbol("sodium_init", as: Initialize.self)
        guard initialize() >= 0 else { throw SeedDBError(.seedUnavailable, "failed to initialize") }
        return Sodium(
            genericHash: try symbol("crypto_generichash", as: GenericHash.self),
            scrypt: try symbol("crypto_pwhash_scryptsalsa208sha256", as: Scrypt.self))
    }
}
