import Foundation
import GroupieCore
import PropertyBased
import Testing

/// Photo sizes from 64 to 8000 px a side, with 4:1 panoramas and 1:4 tall shots mixed in.
let collagePhotoSize = zip(Gen.int(in: 0...7), Gen.int(in: 64...8000), Gen.int(in: 64...8000)).map { input -> PixelSize in
    let (kind, a, b) = input
    let long = max(256, a)
    switch kind {
    case 0: return PixelSize(width: long, height: long / 4)
    case 1: return PixelSize(width: long / 4, height: long)
    default: return PixelSize(width: a, height: b)
    }
}
let collagePhotos = collagePhotoSize.array(of: 1...9)
let collageLongEdge = Gen.int(in: 512...4096)

@Suite("Collage layout")
struct CollageLayoutTests {
    // MARK: - Properties

    @Test("Every style keeps its invariants on random photos", arguments: VisualStyle.allCases)
    func invariants(style: VisualStyle) async {
        await propertyCheck(count: 150, input: collagePhotos, collageLongEdge) { photos, longEdge in
            let layout = CollageLayoutEngine.layout(photos: photos, longEdge: longEdge, style: style)
            checkInvariants(layout, photos: photos, longEdge: longEdge, style: style)
        }
    }

    @Test("The same input gives the same layout", arguments: VisualStyle.allCases)
    func deterministic(style: VisualStyle) async {
        await propertyCheck(count: 30, input: collagePhotos, collageLongEdge) { photos, longEdge in
            let first = CollageLayoutEngine.layout(photos: photos, longEdge: longEdge, style: style)
            let second = CollageLayoutEngine.layout(photos: photos, longEdge: longEdge, style: style)
            #expect(first == second)
        }
    }

    @Test("Tiles and gutters fill the photo area evenly", arguments: [VisualStyle.auto, .grid, .strip])
    func evenGutters(style: VisualStyle) async {
        await propertyCheck(count: 150, input: collagePhotos, collageLongEdge) { photos, longEdge in
            let layout = CollageLayoutEngine.layout(photos: photos, longEdge: longEdge, style: style)
            checkGutters(layout)
        }
    }

    @Test("Polaroid prints tilt by small, varied angles")
    func polaroidAngles() async {
        await propertyCheck(count: 100, input: collagePhotos, collageLongEdge) { photos, longEdge in
            let layout = CollageLayoutEngine.layout(photos: photos, longEdge: longEdge, style: .polaroid)
            #expect(layout.style == .polaroid)
            for tile in layout.tiles {
                #expect((-6...6).contains(tile.rotation))
                guard let print = tile.print else {
                    Issue.record("polaroid tile without a print")
                    continue
                }
                #expect(print.contains(tile.frame))
                let top = tile.frame.y - print.y, bottom = print.maxY - tile.frame.maxY
                let left = tile.frame.x - print.x, right = print.maxX - tile.frame.maxX
                #expect(top > 0 && left > 0 && right > 0)
                #expect(bottom > 2 * top)
            }
            if photos.count > 1 {
                #expect(Set(layout.tiles.map(\.rotation)).count > 1)
            }
        }
    }

    @Test("A sticker sits over the photo's corner, inside the canvas")
    func stickerPlacement() async {
        await propertyCheck(count: 100, input: collagePhotoSize, collageLongEdge) { photo, longEdge in
            let layout = CollageLayoutEngine.layout(photos: [photo], longEdge: longEdge, style: .sticker)
            #expect(layout.style == .sticker)
            #expect(layout.frameWidth > 0)
            guard let sticker = layout.sticker, let frame = layout.tiles.first?.frame else {
                Issue.record("no sticker or no tile")
                return
            }
            let canvas = PixelRect(x: 0, y: 0, width: layout.canvas.width, height: layout.canvas.height)
            #expect(canvas.contains(sticker))
            #expect(sticker.intersects(frame))
            #expect(sticker.x < frame.maxX && sticker.maxX >= frame.maxX && sticker.y < frame.maxY && sticker.maxY >= frame.maxY)
            #expect(!sticker.intersects(layout.caption))
            #expect(frame == layout.photoArea.insetBy(layout.frameWidth))
            let short = Double(min(layout.canvas.width, layout.canvas.height))
            #expect(Double(sticker.width) >= 0.3 * short && Double(sticker.width) <= 0.35 * short)
        }
    }

    // MARK: - Examples

    @Test("Four landscape photos in a grid make two rows of two")
    func gridOfFour() {
        let photos = Array(repeating: PixelSize(width: 4032, height: 3024), count: 4)
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .grid)
        #expect(layout.arrangement == "grid 2+2")
        #expect(Set(layout.tiles.map(\.frame.x)).count == 2)
        #expect(Set(layout.tiles.map(\.frame.y)).count == 2)
        #expect(layout.tiles[0].frame.y == layout.tiles[1].frame.y)
        #expect(layout.tiles[0].frame.x < layout.tiles[1].frame.x)
    }

    @Test("Five photos in a grid: three, then two widened")
    func gridOfFive() {
        let photos = Array(repeating: PixelSize(width: 4032, height: 3024), count: 5)
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .grid)
        #expect(layout.arrangement == "grid 3+2")
        #expect(layout.tiles[3].frame.width > layout.tiles[0].frame.width)
    }

    @Test("Three portrait photos: auto barely crops them")
    func autoThreePortraits() {
        let photos = Array(repeating: PixelSize(width: 3024, height: 4032), count: 3)
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .auto)
        #expect(layout.style == .grid)
        for (tile, photo) in zip(layout.tiles, photos) {
            #expect(tile.crop.lostFraction(of: photo) < 0.15)
        }
    }

    @Test("Nine alike photos: auto lays them out three by three")
    func autoNineAlike() {
        let photos = Array(repeating: PixelSize(width: 4032, height: 3024), count: 9)
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .auto)
        #expect(layout.arrangement == "rows 3+3+3")
        let widths = layout.tiles.map(\.frame.width), heights = layout.tiles.map(\.frame.height)
        #expect((widths.max() ?? 0) - (widths.min() ?? 0) <= 1)
        #expect((heights.max() ?? 0) - (heights.min() ?? 0) <= 1)
    }

    @Test("Mixed shapes: auto keeps every photo mostly whole")
    func autoMixed() {
        let photos = [
            PixelSize(width: 4000, height: 1000), PixelSize(width: 3024, height: 4032), PixelSize(width: 3024, height: 4032),
            PixelSize(width: 4032, height: 3024),
        ]
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .auto)
        for (tile, photo) in zip(layout.tiles, photos) {
            #expect(tile.crop.lostFraction(of: photo) < 0.25, "\(layout.arrangement)")
        }
    }

    @Test("One photo with a sticker")
    func stickerOne() {
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 3024, height: 4032)], longEdge: 2048, style: .sticker)
        #expect(layout.style == .sticker)
        #expect(layout.tiles.count == 1)
        #expect(layout.sticker != nil)
        #expect(layout.frameWidth == 61)
        #expect(layout.canvas.height == 2048)
    }

    @Test("A sticker mission with several photos falls back to auto")
    func stickerFallback() {
        let photos = Array(repeating: PixelSize(width: 4032, height: 3024), count: 3)
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .sticker)
        #expect(layout == CollageLayoutEngine.layout(photos: photos, longEdge: 2048, style: .auto))
        #expect(layout.style == .grid)
        #expect(layout.sticker == nil)
        #expect(layout.frameWidth == 0)
    }

    @Test("A strip is one portrait column up to four photos, then more columns")
    func strips() {
        let four = CollageLayoutEngine.layout(
            photos: Array(repeating: PixelSize(width: 4032, height: 3024), count: 4), longEdge: 2048, style: .strip)
        #expect(four.arrangement == "strip 4")
        #expect(four.canvas.height == 2048 && four.canvas.width < 1024)
        #expect(Set(four.tiles.map(\.frame.x)).count == 1)
        let five = CollageLayoutEngine.layout(
            photos: Array(repeating: PixelSize(width: 4032, height: 3024), count: 5), longEdge: 2048, style: .strip)
        #expect(five.arrangement == "strip 3+2")
        let nine = CollageLayoutEngine.layout(
            photos: Array(repeating: PixelSize(width: 3024, height: 4032), count: 9), longEdge: 2048, style: .strip)
        #expect(nine.arrangement == "strip 3+3+3")
        #expect(nine.canvas.width <= nine.canvas.height)
    }

    @Test("The long edge is kept within 256...4096")
    func longEdgeClamped() {
        let photos = [PixelSize(width: 4032, height: 3024)]
        let small = CollageLayoutEngine.layout(photos: photos, longEdge: 10, style: .auto)
        #expect(max(small.canvas.width, small.canvas.height) == 256)
        let big = CollageLayoutEngine.layout(photos: photos, longEdge: 100_000, style: .auto)
        #expect(max(big.canvas.width, big.canvas.height) == 4096)
    }

    @Test("Up to sixteen photos are searched, more are gridded, none gives no tiles")
    func counts() {
        let sixteen = (0..<16).map { PixelSize(width: 3000 + 97 * $0, height: 4000 - 131 * $0) }
        let searched = CollageLayoutEngine.layout(photos: sixteen, longEdge: 2048, style: .auto)
        checkInvariants(searched, photos: sixteen, longEdge: 2048, style: .auto)
        checkGutters(searched)
        let twenty = Array(repeating: PixelSize(width: 4032, height: 3024), count: 20)
        let gridded = CollageLayoutEngine.layout(photos: twenty, longEdge: 2048, style: .auto)
        checkInvariants(gridded, photos: twenty, longEdge: 2048, style: .auto)
        #expect(gridded.arrangement.hasPrefix("grid"))
        let none = CollageLayoutEngine.layout(photos: [], longEdge: 2048, style: .polaroid)
        #expect(none.tiles.isEmpty)
    }

    @Test("Bad sizes count as one pixel")
    func badSizes() {
        let photos = [PixelSize(width: 0, height: -5), PixelSize(width: 4000, height: 3000)]
        let layout = CollageLayoutEngine.layout(photos: photos, longEdge: 1024, style: .auto)
        #expect(layout.tiles.count == 2)
        #expect(layout.tiles[0].crop.width <= 1 && layout.tiles[0].crop.height <= 1)
    }

    // MARK: - Checks

    func bounds(of tile: CollageTile) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        guard let print = tile.print else {
            return (Double(tile.frame.x), Double(tile.frame.y), Double(tile.frame.maxX), Double(tile.frame.maxY))
        }
        // The print's corners turned about its centre.
        let cx = Double(print.x) + Double(print.width) / 2, cy = Double(print.y) + Double(print.height) / 2
        let radians = tile.rotation * .pi / 180
        var xs: [Double] = [], ys: [Double] = []
        for (dx, dy) in [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)] {
            let x = dx * Double(print.width) / 2, y = dy * Double(print.height) / 2
            xs.append(cx + x * cos(radians) - y * sin(radians))
            ys.append(cy + x * sin(radians) + y * cos(radians))
        }
        return (xs.min() ?? cx, ys.min() ?? cy, xs.max() ?? cx, ys.max() ?? cy)
    }

    func checkInvariants(_ layout: CollageLayout, photos: [PixelSize], longEdge: Int, style: VisualStyle) {
        let expectedStyle: VisualStyle =
            switch style {
            case .auto: .grid
            case .sticker: photos.count == 1 ? .sticker : .grid
            default: style
            }
        #expect(layout.style == expectedStyle)
        #expect(max(layout.canvas.width, layout.canvas.height) == longEdge)

        let caption = layout.caption
        #expect(caption.x == 0 && caption.width == layout.canvas.width && caption.maxY == layout.canvas.height)
        #expect(Double(caption.height) >= 0.10 * Double(longEdge) && Double(caption.height) <= 0.12 * Double(longEdge))
        let gutter = layout.gutter
        #expect(gutter >= 4 && Double(gutter) <= max(4, 0.011 * Double(longEdge) + 1))
        #expect(layout.photoArea == PixelRect(x: gutter, y: gutter, width: layout.canvas.width - 2 * gutter, height: caption.y - 2 * gutter))

        #expect(layout.tiles.map(\.photoIndex).sorted() == Array(photos.indices))
        let tolerance = 1e-6
        for tile in layout.tiles {
            guard photos.indices.contains(tile.photoIndex) else { continue }
            let photo = photos[tile.photoIndex]
            let frame = tile.frame, crop = tile.crop
            #expect(frame.width > 0 && frame.height > 0)
            let frameAspect = Double(frame.width) / Double(frame.height), cropAspect = crop.width / crop.height
            #expect(abs(cropAspect - frameAspect) / frameAspect < 1e-9)
            #expect(crop.x >= -tolerance && crop.y >= -tolerance)
            #expect(crop.x + crop.width <= Double(photo.width) + tolerance && crop.y + crop.height <= Double(photo.height) + tolerance)
            // The largest such window: it spans the photo's full width or full height.
            #expect(abs(crop.width - Double(photo.width)) < tolerance || abs(crop.height - Double(photo.height)) < tolerance)

            let b = bounds(of: tile)
            let area = layout.photoArea
            #expect(b.minX >= Double(area.x) - tolerance && b.minY >= Double(area.y) - tolerance)
            #expect(b.maxX <= Double(area.maxX) + tolerance && b.maxY <= Double(area.maxY) + tolerance)
            #expect(b.maxY <= Double(caption.y))
            if expectedStyle == .polaroid {
                #expect(tile.print != nil)
            } else {
                #expect(tile.print == nil && tile.rotation == 0)
            }
        }
        for i in layout.tiles.indices {
            for j in layout.tiles.indices where j > i {
                let a = bounds(of: layout.tiles[i]), b = bounds(of: layout.tiles[j])
                let apart = a.maxX <= b.minX + tolerance || b.maxX <= a.minX + tolerance || a.maxY <= b.minY + tolerance
                    || b.maxY <= a.minY + tolerance
                #expect(apart, "tiles \(i) and \(j) overlap")
            }
        }
        if expectedStyle == .sticker {
            #expect(layout.sticker != nil && layout.frameWidth > 0)
        } else {
            #expect(layout.sticker == nil && layout.frameWidth == 0)
        }
    }

    /// Tiles that face each other across a gap are exactly one gutter apart (or far enough apart that
    /// another tile fits between); every tile edge lies on the photo area's edge or one gutter from
    /// another tile; and the tiles, each grown by a gutter to the right and below unless at the edge,
    /// fill the photo area exactly.
    func checkGutters(_ layout: CollageLayout) {
        let frames = layout.tiles.map(\.frame), gutter = layout.gutter, area = layout.photoArea
        func overlapsVertically(_ a: PixelRect, _ b: PixelRect) -> Bool { a.y < b.maxY && b.y < a.maxY }
        func overlapsHorizontally(_ a: PixelRect, _ b: PixelRect) -> Bool { a.x < b.maxX && b.x < a.maxX }
        for a in frames {
            for b in frames where a != b {
                if overlapsVertically(a, b) && a.maxX <= b.x {
                    let gap = b.x - a.maxX
                    #expect(gap == gutter || gap >= 2 * gutter + 1, "horizontal gap \(gap), gutter \(gutter)")
                }
                if overlapsHorizontally(a, b) && a.maxY <= b.y {
                    let gap = b.y - a.maxY
                    #expect(gap == gutter || gap >= 2 * gutter + 1, "vertical gap \(gap), gutter \(gutter)")
                }
            }
            #expect(a.x == area.x || frames.contains { $0.maxX + gutter == a.x && overlapsVertically($0, a) })
            #expect(a.maxX == area.maxX || frames.contains { $0.x == a.maxX + gutter && overlapsVertically($0, a) })
            #expect(a.y == area.y || frames.contains { $0.maxY + gutter == a.y && overlapsHorizontally($0, a) })
            #expect(a.maxY == area.maxY || frames.contains { $0.y == a.maxY + gutter && overlapsHorizontally($0, a) })
        }
        let grown = frames.map { f in
            PixelRect(
                x: f.x, y: f.y, width: f.width + (f.maxX < area.maxX ? gutter : 0), height: f.height + (f.maxY < area.maxY ? gutter : 0))
        }
        #expect(grown.allSatisfy { area.contains($0) })
        #expect(grown.reduce(0) { $0 + $1.width * $1.height } == area.width * area.height)
        for i in grown.indices {
            for j in grown.indices where j > i {
                #expect(!grown[i].intersects(grown[j]))
            }
        }
    }
}
