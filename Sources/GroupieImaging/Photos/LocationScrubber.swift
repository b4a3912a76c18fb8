import Foundation

/// Removes location data from an original photo without re-encoding it: visitors are often
/// children, and nothing Groupie serves may say where a photo was taken.
///
/// JPEG keeps its EXIF (orientation, camera) with the GPS directory emptied, and loses XMP;
/// PNG and WebP lose their EXIF and XMP. HEIF cannot be edited byte-wise here: it gives nil,
/// and the caller serves a metadata-free transcode instead.
public enum LocationScrubber {
    public static func scrub(_ data: Data, format: PhotoFormat) -> Data? {
        switch format {
        case .jpeg: return scrubJPEG([UInt8](data)).map { Data($0) }
        case .png: return scrubPNG([UInt8](data)).map { Data($0) }
        case .webp: return scrubWebP([UInt8](data)).map { Data($0) }
        case .heif: return nil
        }
    }

    // MARK: JPEG

    static func scrubJPEG(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            // Start of scan: the rest is entropy-coded data, copied as it is.
            if marker == 0xDA {
                output += bytes[index...]
                return output
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            var segment = Array(bytes[index..<(index + 2 + length)])
            if marker == 0xE1 {
                let payload = Array(segment[4...])
                if payload.starts(with: Array("Exif\0\0".utf8)) {
                    if let scrubbed = emptyGPSDirectory(tiff: Array(payload[6...])) {
                        segment = Array(segment[0..<10]) + scrubbed
                    } else {
                        segment = []  // unreadable EXIF: dropped whole, location and all
                    }
                } else if payload.starts(with: Array("http://ns.adobe.com/xap/1.0/".utf8)) || payload.starts(with: Array("http://ns.adobe.com/xmp/extension/".utf8)) {
                    segment = []
                }
            }
            output += segment
            index += 2 + length
        }
        return nil
    }

    /// The TIFF structure of an EXIF block with every entry of its GPS directory, and the
    /// values they point at, overwritten with zeros; offsets elsewhere stay valid.
    static func emptyGPSDirectory(tiff: [UInt8]) -> [UInt8]? {
        var tiff = tiff
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(little ? at + 2 : at), let low = u16(little ? at : at + 2) else { return nil }
            return high << 16 | low
        }
        guard let ifd0 = u32(4), let count = u16(ifd0) else { return nil }
        let typeSizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8]
        for entry in 0..<count {
            let at = ifd0 + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            guard tag == 0x8825 else { continue }
            guard let gps = u32(at + 8), let gpsCount = u16(gps) else { return nil }
            for gpsEntry in 0..<gpsCount {
                let entryAt = gps + 2 + gpsEntry * 12
                guard let type = u16(entryAt + 2), let components = u32(entryAt + 4) else { return nil }
                let size = (typeSizes[type] ?? 1) * components
                if size > 4, let valueAt = u32(entryAt + 8), valueAt + size <= tiff.count {
                    for offset in valueAt..<(valueAt + size) { tiff[offset] = 0 }
                }
                guard entryAt + 12 <= tiff.count else { return nil }
                for offset in entryAt..<(entryAt + 12) { tiff[offset] = 0 }
            }
            // An empty directory: zero entries, no next directory.
            tiff[gps] = 0
            tiff[gps + 1] = 0
        }
        return tiff
    }

    // MARK: PNG

    static func scrubPNG(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count > 8 else { return nil }
        var output = Array(bytes[0..<8])
        var index = 8
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard index + 12 + length <= bytes.count else { return nil }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let chunk = bytes[index..<(index + 12 + length)]
            let isXMP = type == "iTXt" && Array(bytes[(index + 8)..<min(index + 8 + 17, bytes.count)]) == Array("XML:com.adobe.xmp".utf8)
            if type != "eXIf" && !isXMP { output += chunk }
            index += 12 + length
            if type == "IEND" { return output }
        }
        return nil
    }

    // MARK: WebP

    static func scrubWebP(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 12 else { return nil }
        var chunks: [UInt8] = []
        var index = 12
        while index + 8 <= bytes.count {
            let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let size = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16 | Int(bytes[index + 7]) << 24
            let padded = size + (size & 1)
            guard index + 8 + padded <= bytes.count else { return nil }
            var chunk = Array(bytes[index..<(index + 8 + padded)])
            if type == "VP8X", chunk.count > 8 {
                chunk[8] &= ~UInt8(0x08 | 0x04)  // no EXIF, no XMP any more
            }
            if type != "EXIF" && type != "XMP " { chunks += chunk }
            index += 8 + padded
        }
        let riffSize = UInt32(4 + chunks.count)
        return Array("RIFF".utf8) + [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24)]
            + Array("WEBP".utf8) + chunks
    }
}
