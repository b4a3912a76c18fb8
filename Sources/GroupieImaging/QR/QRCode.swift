import CPNG
import CQRencode
import Foundation

/// A QR code of a text, through libqrencode, drawn as PNG (through libpng) or SVG.
public struct QRCode: Sendable {
    public enum Failure: Error, Sendable {
        case cannotEncode(String)
        case cannotDrawPNG
    }

    /// The quiet zone scanners need around the code, in modules.
    public static let quietZone = 4

    /// Modules per side, without the quiet zone.
    public let width: Int
    /// Row-major; true is a dark module.
    public let modules: [Bool]

    /// Encodes `text` as 8-bit data with error correction level M.
    public init(_ text: String) throws {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw Failure.cannotEncode(String(cString: strerror(errno)))
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        self.width = width
        // libqrencode: bit 0 of each byte says whether the module is dark.
        self.modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Modules per side with the quiet zone.
    public var sizeInModules: Int { width + 2 * Self.quietZone }

    /// Whole pixels per module for an image of at most `pixels` per side (at least one).
    public func scale(forPixels pixels: Int) -> Int {
        max(1, pixels / sizeInModules)
    }

    public func isDark(x: Int, y: Int) -> Bool {
        let inner = (x - Self.quietZone, y - Self.quietZone)
        guard inner.0 >= 0, inner.0 < width, inner.1 >= 0, inner.1 < width else { return false }
        return modules[inner.1 * width + inner.0]
    }

    /// A 1-bit greyscale PNG, `scale` whole pixels per module.
    public func png(scale: Int) throws -> Data {
        let side = sizeInModules * scale
        let stride = (side + 7) / 8
        var rows = [UInt8](repeating: 0, count: stride * side)
        for y in 0..<side {
            for x in 0..<side where !isDark(x: x / scale, y: y / scale) {
                rows[y * stride + x / 8] |= 0x80 >> UInt8(x % 8)
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = rows.withUnsafeBufferPointer { buffer in
            groupie_png_encode_1bit(buffer.baseAddress, UInt32(side), UInt32(side), &output, &size)
        }
        guard status == 0, let output else { throw Failure.cannotDrawPNG }
        defer { groupie_png_free(output) }
        return Data(bytes: output, count: size)
    }

    /// An SVG with one path of the dark modules; runs of modules in a row are merged.
    public func svg(pixels: Int) -> String {
        let side = sizeInModules
        var path = ""
        for y in 0..<side {
            var x = 0
            while x < side {
                guard isDark(x: x, y: y) else { x += 1; continue }
                var run = 1
                while x + run < side, isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x) \(y)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
