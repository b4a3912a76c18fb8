import Foundation

/// Real images for the tests, made with libvips' own command line (`vips`, from Debian's
/// libvips-tools) and, for EXIF, a TIFF directory written byte by byte.
public enum TestImages {
    public static let folder: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-images-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    public static func vips(_ arguments: [String]) throws {
        guard try ChildProcess.run("/usr/bin/vips", arguments).status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// A solid-colour image of `width` × `height` in the format of `ext` (jpg, png, webp, gif...).
    public static func solid(width: Int, height: Int, rgb: (Int, Int, Int), ext: String) throws -> String {
        let base = folder + "/\(UUID().uuidString)"
        try vips(["black", base + ".v", "\(width)", "\(height)", "--bands", "3"])
        try vips(["linear", base + ".v", base + "." + ext, "1 1 1", "\(rgb.0) \(rgb.1) \(rgb.2)", "--uchar"])
        return base + "." + ext
    }

    /// A JPEG whose EXIF says `orientation` and carries a GPS position (57°42'N).
    public static func jpegWithEXIF(width: Int, height: Int, orientation: UInt16) throws -> String {
        let path = try solid(width: width, height: height, rgb: (40, 120, 200), ext: "jpg")
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tiff = exif(orientation: orientation)
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        jpeg.insert(contentsOf: segment, at: 2)
        let output = path.replacingOccurrences(of: ".jpg", with: "-exif\(orientation).jpg")
        try Data(jpeg).write(to: URL(fileURLWithPath: output))
        return output
    }

    /// The GPS latitude as stored: 57/1, 42/1, 0/1 as little-endian rationals.
    public static let gpsLatitude: [UInt8] = [57, 0, 0, 0, 1, 0, 0, 0, 42, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]

    /// Little-endian TIFF: IFD0 with Orientation and a GPS pointer; a GPS IFD with a latitude.
    public static func exif(orientation: UInt16) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value & 0xFFFF) + u16(value >> 16) }
        let ifd0 = 8, gpsIFD = ifd0 + 2 + 2 * 12 + 4, latitude = gpsIFD + 2 + 2 * 12 + 4
        var tiff: [UInt8] = [0x49, 0x49, 42, 0] + u32(ifd0)
        tiff += u16(2)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(Int(orientation)) + u16(0)
        tiff += u16(0x8825) + u16(4) + u32(1) + u32(gpsIFD)
        tiff += u32(0)
        tiff += u16(2)
        tiff += u16(0x0001) + u16(2) + u32(2) + [UInt8(ascii: "N"), 0, 0, 0]
        tiff += u16(0x0002) + u16(5) + u32(3) + u32(latitude)
        tiff += u32(0)
        tiff += gpsLatitude
        return tiff
    }

    /// The pixel at (`x`, `y`), one value per band, from `vips getpoint`.
    public static func pixel(_ path: String, x: Int, y: Int) throws -> [Double] {
        try output("/usr/bin/vips", ["getpoint", path, "\(x)", "\(y)"]).split(separator: " ").compactMap { Double($0) }
    }

    /// The mean of every band over the `size` × `size` square centred on (`x`, `y`): what a
    /// region shows, where one pixel of a noisy image may be anything.
    public static func average(_ path: String, x: Int, y: Int, size: Int) throws -> Double {
        let area = folder + "/area-\(UUID().uuidString).v"
        defer { try? FileManager.default.removeItem(atPath: area) }
        try vips(["extract_area", path, area, "\(x - size / 2)", "\(y - size / 2)", "\(size)", "\(size)"])
        return Double(try output("/usr/bin/vips", ["avg", area])) ?? -1
    }

    /// What a command printed, trimmed; throws when it fails.
    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(tool, arguments)
        guard result.status == 0 else { throw CocoaError(.fileReadUnknown) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether two colours are within `tolerance` on every channel (JPEG moves them a little).
    public static func close(_ a: [Double], _ b: (Int, Int, Int), tolerance: Double = 14) -> Bool {
        a.count >= 3 && abs(a[0] - Double(b.0)) <= tolerance && abs(a[1] - Double(b.1)) <= tolerance && abs(a[2] - Double(b.2)) <= tolerance
    }

    /// Width and height from `vipsheader`; zero for what it cannot read.
    public static func header(_ path: String) throws -> (width: Int, height: Int) {
        func field(_ name: String) -> Int { (try? output("/usr/bin/vipsheader", ["-f", name, path])).flatMap { Int($0) } ?? 0 }
        return (field("width"), field("height"))
    }

    public static func write(_ bytes: [UInt8], ext: String) throws -> String {
        let path = folder + "/\(UUID().uuidString).\(ext)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A PNG whose header declares `width` × `height` and whose pixel data is a stub.
    public static func pngDeclaring(width: Int, height: Int) throws -> String {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = data.count
            let body = Array(type.utf8) + data
            let crc = crc32(body)
            return [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
                + [UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let header = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        return try write(png, ext: "png")
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
