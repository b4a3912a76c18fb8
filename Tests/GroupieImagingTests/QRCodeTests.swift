import Foundation
import GroupieImaging
import GroupieTestSupport
import Testing

@Suite("QR codes")
struct QRCodeTests {
    static let url = "https://groupie.example-museum.se/j/K7M2QX"

    @Test("A PNG QR code decodes back to its URL with zbarimg")
    func roundTrip() throws {
        let code = try QRCode(Self.url)
        let png = try code.png(scale: code.scale(forPixels: 300))
        #expect(try QRDecoder.decode(png) == Self.url)
    }

    @Test("The PNG is a 1-bit greyscale image of whole pixels per module with a 4-module quiet zone")
    func pngShape() throws {
        let code = try QRCode(Self.url)
        let scale = code.scale(forPixels: 500)
        let png = try code.png(scale: scale)
        // IHDR: width and height (big-endian) at 16 and 20, bit depth at 24, colour type at 25.
        let bytes = [UInt8](png)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == (code.width + 8) * scale)
        #expect(width <= 500)
        #expect(bytes[24] == 1)
        #expect(bytes[25] == 0)
        #expect(!code.isDark(x: 3, y: 3))
        #expect(code.isDark(x: 4, y: 4), "the finder pattern starts right after the quiet zone")
    }

    @Test("Whole pixels: a size smaller than the code still gives one pixel per module")
    func tinySize() throws {
        let code = try QRCode(Self.url)
        #expect(code.scale(forPixels: 10) == 1)
    }

    @Test("The SVG draws the same code")
    func svg() throws {
        let code = try QRCode(Self.url)
        let svg = code.svg(pixels: 400)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\""))
        #expect(svg.contains("viewBox=\"0 0 \(code.width + 8) \(code.width + 8)\""))
        // zbarimg cannot read SVG; the module grid it draws is the one the PNG test decodes.
        #expect(svg.contains("M4 4h7v1h-7z"), "the top-left finder pattern is a run of 7 dark modules")
    }
}
