import GroupieCore
import Testing

/// Where a sticker goes by the faces in its photo (`sticker_place`, `sticker_corner`).
@Suite("Sticker placement")
struct StickerPlacementTests {
    /// A 600 × 800 photo at (40, 40) in a 10-pixel frame; the usual sticker is 200 pixels.
    static let photo = PixelRect(x: 40, y: 40, width: 600, height: 800)
    static let bounds = PixelRect(x: 30, y: 30, width: 620, height: 820)
    static let face = PixelRect(x: 250, y: 300, width: 120, height: 120)
    static let small = PixelRect(x: 480, y: 330, width: 60, height: 60)

    static func place(_ faces: [PixelRect], _ place: StickerPlace?, corner: StickerCorner = .bottomRight) -> PixelRect {
        StickerPlacement.rect(photo: photo, border: 10, faces: faces, place: place, corner: corner, side: 200)
    }

    @Test("Without a face, every place is the file's corner, reaching over the frame", arguments: StickerCorner.allCases)
    func corners(corner: StickerCorner) {
        let rects = ([nil] + StickerPlace.allCases).map { Self.place([], $0, corner: corner) }
        #expect(Set(rects).count == 1)
        let rect = rects[0]
        #expect(rect.width == 200 && rect.height == 200)
        #expect(Self.bounds.contains(rect))
        switch corner {
        case .topLeft: #expect(rect.x == 30 && rect.y == 30)
        case .topRight: #expect(rect.maxX == 650 && rect.y == 30)
        case .bottomLeft: #expect(rect.x == 30 && rect.maxY == 850)
        case .bottomRight: #expect(rect.maxX == 650 && rect.maxY == 850)
        }
    }

    @Test("The bottom-right corner is where the layout has always put the sticker")
    func defaultCorner() {
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 600, height: 800)], longEdge: 1024, style: .sticker)
        let tile = layout.tiles[0].frame, sticker = layout.sticker!
        #expect(StickerPlacement.rect(photo: tile, border: layout.frameWidth, faces: [], place: nil, corner: .bottomRight, side: sticker.width) == sticker)
    }

    @Test("A hat sits on the largest face: centred over it, as wide as it or a little more, its lower edge at the hair line")
    func head() {
        let rect = Self.place([Self.face, Self.small], .head)
        #expect(abs((rect.x + rect.width / 2) - (Self.face.x + Self.face.width / 2)) <= 1)
        #expect(rect.width >= Self.face.width && rect.width <= Self.face.width * 3 / 2)
        #expect(rect.maxY == Self.face.y + Self.face.height / 6)
        // Below the hair line the face is clear.
        #expect(!rect.intersects(PixelRect(x: Self.face.x, y: Self.face.y + Self.face.height / 5, width: Self.face.width, height: Self.face.height * 4 / 5)))
    }

    @Test("A face at the top edge keeps its hat on its head, cut by the edge rather than over its eyes")
    func headAtTheTop() {
        let face = PixelRect(x: 250, y: 45, width: 120, height: 120)
        let rect = Self.place([face], .head)
        #expect(rect.maxY == face.y + face.height / 6)
        #expect(rect.width >= face.width)
    }

    @Test("Beside: next to the largest face, touching no face, inside the picture", arguments: StickerCorner.allCases)
    func beside(corner: StickerCorner) {
        let faces = [Self.face, Self.small]
        let rect = Self.place(faces, .beside, corner: corner)
        #expect(!faces.contains { $0.intersects(rect) }, "\(rect)")
        #expect(Self.bounds.contains(rect))
        // Next to it: level with it, within a sticker's width of it.
        #expect(rect.maxX >= Self.face.x - 200 && rect.x <= Self.face.maxX + 200)
    }

    @Test("Beside a face with no room around it: a corner clear of faces")
    func besideWithoutRoom() {
        let big = PixelRect(x: 45, y: 250, width: 590, height: 350)
        let rect = Self.place([big], .beside, corner: .topLeft)
        #expect(!big.intersects(rect))
        #expect(rect == StickerPlacement.cornerRect(.topLeft, in: Self.bounds, side: 200))
    }

    @Test("Over: only when asked, the sticker covers the largest face")
    func over() {
        let rect = Self.place([Self.face], .over)
        #expect(rect.contains(Self.face))
        #expect(rect.width == Self.face.width)
    }

    @Test("By default the sticker stays in its corner, and moves beside the faces when the corner would cover one")
    func byDefault() {
        #expect(Self.place([Self.face], nil) == StickerPlacement.cornerRect(.bottomRight, in: Self.bounds, side: 200))
        let inTheCorner = PixelRect(x: 520, y: 700, width: 100, height: 100)
        let rect = Self.place([inTheCorner], nil)
        #expect(!inTheCorner.intersects(rect))
    }
}
