/// The image formats visitors' phones send, recognised from the bytes, never from the
/// client's word.
public enum PhotoFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif

    /// How many leading bytes `detect` needs.
    public static let signatureLength = 12

    public static func detect(_ prefix: some Collection<UInt8>) -> PhotoFormat? {
        let bytes = Array(prefix.prefix(signatureLength))
        guard bytes.count >= 12 else { return nil }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        if Array(bytes[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heif }
        }
        return nil
    }

    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heif: "image/heic"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heif: "heic"
        }
    }

    /// The libvips loader that must read this format; any other is refused.
    var loaderPrefix: String {
        switch self {
        case .jpeg: "VipsForeignLoadJpeg"
        case .png: "VipsForeignLoadPng"
        case .webp: "VipsForeignLoadWebp"
        case .heif: "VipsForeignLoadHeif"
        }
    }
}
