import COpenSSL

/// A name handed to libcrypto: one of the shim's string literals (`gh_libcrypto_name_text`), static
/// C arrays that live as long as the program, since libcrypto keeps some names by reference.
enum CName {
    static var ec: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_EC) }
    static var rsa: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_RSA) }
    static var sha1: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_SHA1) }
    static var sha256: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_SHA256) }
    static var p256: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_P256) }
    static var prime256v1: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_PRIME256V1) }
    static var group: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_GROUP) }
    static var publicKey: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_PUBLIC_KEY) }
    static var privateKey: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_PRIVATE_KEY) }
    static var rsaN: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_RSA_N) }
    static var rsaE: UnsafePointer<CChar> { gh_libcrypto_name_text(GH_NAME_RSA_E) }

    /// The name as Swift text, for error messages.
    static func text(_ name: UnsafePointer<CChar>) -> String { String(cString: name) }
}
