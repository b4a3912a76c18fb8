import Foundation
import GroupieCore
import GroupieTestSupport
import Testing

@testable import GroupieImaging

/// What a task asks to keep stays in the collage: a `framing: whole` photo uncut, and a sticker
/// on the people's heads or beside them, not over a face.
@Suite("Collage framing and stickers")
struct CollageFramingTests {
    static let paper: (Int, Int, Int) = (250, 248, 244)
    static let red: (Int, Int, Int) = (220, 40, 40), green: (Int, Int, Int) = (40, 180, 60), blue: (Int, Int, Int) = (40, 80, 220)
    static let assets = TestServerAssets.repository + "/assets"
    static let photos = TestServerAssets.repository + "/Tests/Fixtures/Photos"

    /// A tall photo, 200 × 1200, like a rocket: its top sixth red (the tip), its bottom sixth
    /// blue (the engines), green between.
    static func rocket() throws -> String {
        let tip = try TestImages.solid(width: 200, height: 200, rgb: red, ext: "png")
        let body = try TestImages.solid(width: 200, height: 800, rgb: green, ext: "png")
        let engines = try TestImages.solid(width: 200, height: 200, rgb: blue, ext: "png")
        let upper = TestImages.folder + "/rocket-\(UUID().uuidString).png", out = TestImages.folder + "/rocket-\(UUID().uuidString).png"
        try TestImages.vips(["join", tip, body, upper, "vertical"])
        try TestImages.vips(["join", upper, engines, out, "vertical"])
        #expect(try TestImages.header(out) == (200, 1200))
        return out
    }

    @Test("A whole photo keeps every row, from its tip to its engines, fitted into its cell on the background")
    func wholeKeepsItsHeight() throws {
        let rocket = try Self.rocket()
        let square = try TestImages.solid(width: 800, height: 800, rgb: (90, 90, 90), ext: "jpg")
        let layout = CollageLayoutEngine.layout(
            photos: [PixelSize(width: 200, height: 1200), PixelSize(width: 800, height: 800), PixelSize(width: 800, height: 800)],
            longEdge: 1024, style: .grid)
        let cell = try #require(layout.tiles.first { $0.photoIndex == 0 }).frame
        let caption = CollageContent.Caption(title: "Ready for launch", subtitle: "Space", names: ["Ada"])
        var content = CollageContent(photoPaths: [rocket, square, square], caption: caption, themeColor: "#0b6e8a", framing: [.whole, .focus, .focus])
        let out = TestImages.folder + "/whole-\(UUID().uuidString).png"
        _ = try CollageRenderer().render(layout: layout, content: content, format: .png, to: out)

        // Fitted: as tall as the cell, a sixth of that wide, centred; the background beside it.
        let width = cell.height / 6
        #expect(width < cell.width - 8, "the cell \(cell) is not wider than the photo; the test shows nothing")
        let left = cell.x + (cell.width - width) / 2, mid = cell.x + cell.width / 2
        #expect(TestImages.close(try TestImages.pixel(out, x: mid, y: cell.y + 3), Self.red), "the tip is cut")
        #expect(TestImages.close(try TestImages.pixel(out, x: mid, y: cell.maxY - 4), Self.blue), "the engines are cut")
        #expect(TestImages.close(try TestImages.pixel(out, x: mid, y: cell.y + cell.height / 2), Self.green))
        // No row dropped nor column added: the placed photo's edges are where its shape puts them.
        #expect(TestImages.close(try TestImages.pixel(out, x: left + 3, y: cell.y + cell.height / 2), Self.green))
        #expect(TestImages.close(try TestImages.pixel(out, x: left - 3, y: cell.y + cell.height / 2), Self.paper))
        #expect(TestImages.close(try TestImages.pixel(out, x: left + width + 3, y: cell.y + cell.height / 2), Self.paper))
        #expect(TestImages.close(try TestImages.pixel(out, x: cell.x + 2, y: cell.y + 2), Self.paper))
        // The other photos still fill their cells.
        let other = try #require(layout.tiles.first { $0.photoIndex == 1 }).frame
        #expect(TestImages.close(try TestImages.pixel(out, x: other.x + 2, y: other.y + 2), (90, 90, 90)))

        // Cropped to fill the cell (`focus`; centred here), the same cell loses the tip and the engines.
        content.framing = []
        content.smartCrop = false
        let cropped = TestImages.folder + "/cropped-\(UUID().uuidString).png"
        _ = try CollageRenderer().render(layout: layout, content: content, format: .png, to: cropped)
        #expect(TestImages.close(try TestImages.pixel(cropped, x: mid, y: cell.y + 3), Self.green))
        #expect(TestImages.close(try TestImages.pixel(cropped, x: mid, y: cell.maxY - 4), Self.green))
    }

    @Test("A whole photo on a polaroid print is fitted on the print's paper")
    func wholePrint() throws {
        let rocket = try Self.rocket()
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 200, height: 1200), PixelSize(width: 800, height: 800)], longEdge: 800, style: .polaroid)
        let content = CollageContent(
            photoPaths: [rocket, try TestImages.solid(width: 800, height: 800, rgb: (90, 90, 90), ext: "jpg")],
            caption: CollageContent.Caption(title: "T", subtitle: "S", names: []), themeColor: "#0b6e8a", framing: [.whole])
        let out = TestImages.folder + "/whole-print-\(UUID().uuidString).png"
        _ = try CollageRenderer().render(layout: layout, content: content, format: .png, to: out)
        #expect(try TestImages.header(out).width == layout.canvas.width)
    }

    /// The astronaut's portrait as a sticker collage with the beret, and the same without it.
    static func beret(place: StickerPlace?, corner: StickerCorner = .topRight) throws -> (path: String, plain: String, report: CollageRenderer.Report) {
        let photo = photos + "/astronaut.jpg"
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 512, height: 512)], longEdge: 1024, style: .sticker)
        var content = CollageContent(
            photoPaths: [photo], caption: CollageContent.Caption(title: "Be the artist", subtitle: "Art", names: ["Zoë"]), themeColor: "#8a1c3b",
            stickerPath: assets + "/stickers/beret.svg", framePath: assets + "/frames/frame-gold.svg", plainFramePath: assets + "/frames/frame-gold.svg",
            stickerPlace: place, stickerCorner: corner)
        let out = TestImages.folder + "/beret-\(UUID().uuidString).png"
        let report = try CollageRenderer().render(layout: layout, content: content, format: .png, to: out)
        content.stickerPath = nil
        let plain = TestImages.folder + "/beret-plain-\(UUID().uuidString).png"
        _ = try CollageRenderer().render(layout: layout, content: content, format: .png, to: plain)
        return (out, plain, report)
    }

    static func same(_ a: String, _ b: String, x: Int, y: Int) throws -> Bool {
        let p = try TestImages.pixel(a, x: x, y: y), q = try TestImages.pixel(b, x: x, y: y)
        return zip(p, q).allSatisfy { abs($0 - $1) <= 6 }
    }

    @Test("The beret sits on the astronaut's head: above her face, as wide as it, never over her eyes")
    func beretOnTheHead() throws {
        let (out, plain, report) = try Self.beret(place: .head)
        let face = try #require(report.faces?.first, "no face found")
        let sticker = try #require(report.sticker)
        // On the head: centred over the face, its lower edge at the top of the face.
        #expect(abs((sticker.x + sticker.width / 2) - (face.x + face.width / 2)) <= face.width / 8, "\(sticker) over \(face)")
        #expect((face.y - face.height / 4...face.y + face.height / 3).contains(sticker.maxY), "\(sticker) over \(face)")
        #expect(sticker.width >= face.width && sticker.width <= face.width * 3 / 2)
        // Drawn there: the beret is above the face's middle, and the eyes, nose and mouth are
        // the photo's own pixels.
        #expect(try !Self.same(out, plain, x: face.x + face.width / 2, y: sticker.y + sticker.height * 2 / 3), "no beret on the head")
        for (dx, dy) in [(1, 2), (2, 2), (3, 2), (1, 3), (2, 3), (3, 3), (2, 4)] {
            let x = face.x + face.width * dx / 4, y = face.y + face.height * dy / 5
            #expect(try Self.same(out, plain, x: x, y: y), "the sticker covers the face at \(x),\(y)")
        }
    }

    @Test("Beside: the sticker is next to the face and covers none of it")
    func beside() throws {
        let (out, plain, report) = try Self.beret(place: .beside)
        let face = try #require(report.faces?.first)
        let sticker = try #require(report.sticker)
        #expect(!sticker.intersects(face), "\(sticker) covers \(face)")
        #expect(try Self.same(out, plain, x: face.x + face.width / 2, y: face.y + face.height / 2))
        #expect(try !Self.same(out, plain, x: sticker.x + sticker.width / 2, y: sticker.y + sticker.height * 2 / 3))
    }

    @Test("Without a face the sticker goes to the file's corner")
    func corner() throws {
        let photo = try TestImages.solid(width: 800, height: 600, rgb: Self.green, ext: "jpg")
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 800, height: 600)], longEdge: 1024, style: .sticker)
        let content = CollageContent(
            photoPaths: [photo], caption: CollageContent.Caption(title: "T", subtitle: "S", names: []), themeColor: "#8a1c3b",
            stickerPath: Self.assets + "/stickers/beret.svg", framePath: Self.assets + "/frames/frame-gold.svg",
            stickerPlace: .head, stickerCorner: .topLeft)
        let out = TestImages.folder + "/corner-\(UUID().uuidString).png"
        let report = try CollageRenderer().render(layout: layout, content: content, format: .png, to: out)
        #expect(report.faces == [])
        let sticker = try #require(report.sticker)
        let tile = try #require(layout.tiles.first).frame
        #expect(sticker.x == tile.x - layout.frameWidth && sticker.y == tile.y - layout.frameWidth)
        #expect(!TestImages.close(try TestImages.pixel(out, x: sticker.x + sticker.width / 2, y: sticker.y + sticker.height / 2), Self.green))
        #expect(TestImages.close(try TestImages.pixel(out, x: tile.x + tile.width / 2, y: tile.y + tile.height / 2), Self.green))
    }
}
