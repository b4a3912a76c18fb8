import Foundation

/// The original photo as Groupie serves it: rebuilt from an allow-list of what an image needs,
/// never a deny-list of known location tags. Visitors are often children, and nothing served
/// may say where a photo was taken, in whatever metadata carrier a device put it.
///
/// What passes: the coded image data, the ICC colour profile, and the orientation, which is
/// written afresh as the only entry of a new EXIF block (from the header libvips read, not
/// copied). Everything else goes: EXIF, XMP, IPTC, comments, text chunks, unknown segments and
/// chunks, and anything after the image ends (a second image appended, say). The pixels are
/// not touched: the coded data is copied byte for byte. That is every place cameras and phones
/// write location; an uploader who wants to hide text can still do so inside the kept parts
/// (coding tables, a profile's text), as they could in the pixels, which is no leak of theirs.
///
/// HEIF cannot be rebuilt this way; its original is served as a metadata-free JPEG made at upload.
public enum ServedOriginal {
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The bytes to serve for an original of `format`, whose EXIF orientation is `orientation`
    /// and whose stored size (before orientation) is `width` × `height`. Throws when the file
    /// does not have the structure of its format, so that it is refused at upload instead of
    /// being stored and never served.
    public static func make(from data: Data, format: PhotoFormat, orientation: Int, width: Int, height: Int) throws -> Data {
        let bytes = [UInt8](data)
        let orientation = (2...8).contains(orientation) ? orientation : 1
        switch format {
        case .jpeg: return Data(try jpeg(bytes, orientation: orientation))
        case .png: return Data(try png(bytes, orientation: orientation))
        case .webp: return Data(try webp(bytes, orientation: orientation, width: width, height: height))
        case .heif: throw Malformed(description: "HEIF originals are served as their JPEG transcode")
        }
    }

    /// Checks that `data` has the structure of `format` (every segment or chunk inside the
    /// file, an end of image), before any decoder sees it: a PNG chunk that declares a gigabyte
    /// in an 800-byte file makes libpng allocate that gigabyte. HEIF is left to libheif (nil).
    /// Returns the served bytes for orientation 1, which are final unless the header says otherwise.
    @discardableResult
    public static func checkStructure(_ data: Data, format: PhotoFormat) throws -> Data? {
        guard format != .heif else { return nil }
        return try make(from: data, format: format, orientation: 1, width: 1, height: 1)
    }

    /// Whether a JPEG is progressive (SOF2, SOF6, SOF10, SOF14): libjpeg then keeps every DCT
    /// coefficient of the whole image, two bytes a sample, until the last scan.
    public static func isProgressiveJPEG(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(256 * 1024))
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }
            guard index + 3 <= bytes.count else { return false }
            let marker = bytes[index]
            if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { return true }
            if marker == 0xDA { return false }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return false }
            index += 1 + (Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]))
        }
        return false
    }

    /// A TIFF block with one entry, the orientation: the whole EXIF of a served original.
    static func exif(orientation: Int) -> [UInt8] {
        [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // big-endian TIFF, first directory at 8
         0x00, 0x01,  // one entry
         0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00,  // Orientation, SHORT
         0x00, 0x00, 0x00, 0x00]  // no next directory
    }

    // MARK: JPEG

    /// Markers of segments that code the image: tables, frame headers, restart interval.
    static func isCodingMarker(_ marker: UInt8) -> Bool {
        switch marker {
        case 0xC0...0xCF: return marker != 0xC8  // SOFn, DHT (C4), DAC (CC); C8 is reserved
        case 0xDB, 0xDD, 0xDC: return true  // DQT, DRI, DNL
        default: return false
        }
    }

    static func jpeg(_ bytes: [UInt8], orientation: Int) throws -> [UInt8] {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw Malformed(description: "no JPEG start of image") }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(bytes.count)
        if orientation != 1 {
            let payload = Array("Exif\0\0".utf8) + exif(orientation: orientation)
            output += [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var index = 2
        var sawFrame = false, sawScan = false
        while true {
            // Any number of 0xFF fill bytes may come before a marker.
            guard index < bytes.count, bytes[index] == 0xFF else { throw Malformed(description: "no JPEG marker at byte \(index)") }
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }
            guard index < bytes.count else { throw Malformed(description: "the JPEG ends inside a marker") }
            let marker = bytes[index]
            index += 1
            if marker == 0xD9 {
                guard sawFrame, sawScan else { throw Malformed(description: "the JPEG ends before its image") }
                output += [0xFF, 0xD9]
                return output  // nothing after the end of the image is served
            }
            guard marker != 0x00, marker != 0x01, !(0xD0...0xD8).contains(marker) else {
                throw Malformed(description: "JPEG marker \(marker) outside a scan")
            }
            guard index + 2 <= bytes.count else { throw Malformed(description: "the JPEG ends inside a segment header") }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2, index + length <= bytes.count else { throw Malformed(description: "a JPEG segment runs past the end of the file") }
            let segment = bytes[(index - 2)..<(index + length)]
            let payload = bytes[(index + 2)..<(index + length)]
            index += length
            if isCodingMarker(marker) {
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xCC { sawFrame = true }
                output += segment
            } else if marker == 0xE2, payload.starts(with: Array("ICC_PROFILE\0".utf8)) {
                output += segment
            } else if marker == 0xEE, payload.count == 12, payload.starts(with: Array("Adobe".utf8)) {
                // Adobe's colour transform flag, which decoders need for CMYK and some RGB files.
                output += segment
            } else if marker == 0xDA {
                guard sawFrame else { throw Malformed(description: "a JPEG scan before its frame header") }
                sawScan = true
                output += segment
                // Entropy-coded data runs to the next marker that is neither a stuffed 0x00
                // nor a restart marker.
                let start = index
                while index + 1 < bytes.count {
                    if bytes[index] == 0xFF, bytes[index + 1] != 0x00, bytes[index + 1] != 0xFF, !(0xD0...0xD7).contains(bytes[index + 1]) { break }
                    index += 1
                }
                if index + 1 >= bytes.count {
                    // A file cut short inside its last scan: the data there is, closed properly.
                    output += bytes[start..<bytes.count]
                    output += [0xFF, 0xD9]
                    return output
                }
                output += bytes[start..<index]
            }
            // Every other segment (APPn, COM, extensions) is left out.
        }
    }

    // MARK: PNG

    /// Chunks that code the image or its colour; everything else is left out.
    static let pngChunks: Set<String> = ["IHDR", "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "IDAT", "IEND"]
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func png(_ bytes: [UInt8], orientation: Int) throws -> [UInt8] {
        guard bytes.count >= 8, Array(bytes[0..<8]) == pngSignature else { throw Malformed(description: "no PNG signature") }
        var output = pngSignature
        output.reserveCapacity(bytes.count)
        var index = 8
        var sawHeader = false, sawData = false, wroteOrientation = orientation == 1
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length <= Int(Int32.max), index + 12 + length <= bytes.count else { throw Malformed(description: "a PNG chunk runs past the end of the file") }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let chunk = bytes[index..<(index + 12 + length)]
            index += 12 + length
            if !sawHeader {
                guard type == "IHDR" else { throw Malformed(description: "the PNG does not start with its header") }
                sawHeader = true
            }
            guard pngChunks.contains(type) else { continue }
            if type == "IDAT" {
                if !wroteOrientation {
                    output += pngChunk("eXIf", exif(orientation: orientation))
                    wroteOrientation = true
                }
                sawData = true
            }
            output += chunk
            if type == "IEND" {
                guard sawData else { throw Malformed(description: "the PNG has no image data") }
                return output  // nothing after the end of the image is served
            }
        }
        throw Malformed(description: "the PNG has no end chunk")
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian32(data.count) + typeBytes + data + bigEndian32(Int(CRC32.checksum(typeBytes + data)))
    }

    static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    // MARK: WebP

    /// Chunks that code the image, its alpha, animation or colour profile.
    static let webpChunks: Set<String> = ["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP"]

    static func webp(_ bytes: [UInt8], orientation: Int, width: Int, height: Int) throws -> [UInt8] {
        guard bytes.count >= 20, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) else {
            throw Malformed(description: "no WebP header")
        }
        let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        // Nothing after the RIFF container's declared end is read.
        let end = min(bytes.count, 8 + riffSize)
        var chunks: [(type: String, body: [UInt8])] = []
        var index = 12
        while index + 8 <= end {
            let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let size = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16 | Int(bytes[index + 7]) << 24
            guard index + 8 + size <= end else { throw Malformed(description: "a WebP chunk runs past the end of the file") }
            if webpChunks.contains(type) { chunks.append((type, Array(bytes[(index + 8)..<(index + 8 + size)]))) }
            index += 8 + size + (size & 1)
        }
        guard chunks.contains(where: { ["VP8 ", "VP8L", "ANMF"].contains($0.type) }) else { throw Malformed(description: "the WebP has no image data") }
        if orientation != 1 {
            if let extended = chunks.firstIndex(where: { $0.type == "VP8X" }) {
                guard chunks[extended].body.count >= 10 else { throw Malformed(description: "a short WebP VP8X chunk") }
            } else {
                // The extended header that an EXIF chunk needs: canvas size minus one, 24 bits each.
                let w = width - 1, h = height - 1
                chunks.insert(("VP8X", [0, 0, 0, 0, UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF), UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF)]), at: 0)
            }
            chunks.append(("EXIF", exif(orientation: orientation)))
        }
        var body = Array("WEBP".utf8)
        for (type, chunkBody) in chunks {
            var chunkBody = chunkBody
            if type == "VP8X", chunkBody.count >= 1 {
                // Flags: XMP (0x04) never, EXIF (0x08) only for the orientation written here.
                chunkBody[0] = chunkBody[0] & ~UInt8(0x04 | 0x08) | (orientation != 1 ? 0x08 : 0)
            }
            let size = chunkBody.count
            body += Array(type.utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24 & 0xFF)] + chunkBody
            if size & 1 == 1 { body.append(0) }
        }
        let size = body.count
        return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24 & 0xFF)] + body
    }
}
