/// Where a sticker collage's sticker goes, from the faces found in its photo: on a head, beside a
/// face or over one as the mission file says, else in its corner (`sticker_place`,
/// `sticker_corner`). Never over a face unless the file asks for `over`.
public enum StickerPlacement {
    /// - Parameters:
    ///   - photo: the photo's frame on the canvas.
    ///   - border: the decorative frame's width around it; the sticker may reach over it.
    ///   - faces: the faces, on the canvas, largest first.
    ///   - side: the sticker's usual side (the layout's sticker).
    public static func rect(
        photo: PixelRect, border: Int, faces: [PixelRect], place: StickerPlace?, corner: StickerCorner, side: Int
    ) -> PixelRect {
        let bounds = PixelRect(x: photo.x - border, y: photo.y - border, width: photo.width + 2 * border, height: photo.height + 2 * border)
        let inCorner = cornerRect(corner, in: bounds, side: side)
        guard let face = faces.first else { return inCorner }
        /// The file's corner, or another one, clear of every face.
        func clearCorner() -> PixelRect {
            ([corner] + StickerCorner.allCases).map { cornerRect($0, in: bounds, side: side) }
                .first { spot in !faces.contains { $0.intersects(spot) } } ?? inCorner
        }
        switch place {
        case .head: return head(on: face, within: bounds)
        case .over:
            let side = max(face.width, face.height)
            return PixelRect(x: face.x + face.width / 2 - side / 2, y: face.y + face.height / 2 - side / 2, width: side, height: side)
        case .beside: return beside(faces: faces, within: bounds, side: side, corner: corner) ?? clearCorner()
        case nil:
            if !faces.contains(where: { $0.intersects(inCorner) }) { return inCorner }
            return beside(faces: faces, within: bounds, side: side, corner: corner) ?? clearCorner()
        }
    }

    /// The sticker in `corner` of `bounds`.
    public static func cornerRect(_ corner: StickerCorner, in bounds: PixelRect, side: Int) -> PixelRect {
        let left = corner == .topLeft || corner == .bottomLeft, top = corner == .topLeft || corner == .topRight
        return PixelRect(
            x: left ? bounds.x : bounds.maxX - side, y: top ? bounds.y : bounds.maxY - side, width: side, height: side)
    }

    /// A hat: a square a quarter wider than the face, centred over it, its lower edge a sixth
    /// of the way down the face (where the hair line is). A face near the top gets a smaller
    /// hat, down to the face's width, and then one cut by the picture's edge: never one pulled
    /// down over its eyes.
    static func head(on face: PixelRect, within bounds: PixelRect) -> PixelRect {
        let width = face.width * 5 / 4
        let bottom = face.y + face.height / 6
        let top = max(bounds.y, bottom - width)
        let side = max(1, min(width, max(bottom - top, face.width)))
        let x = min(max(bounds.x, face.x + face.width / 2 - side / 2), bounds.maxX - side)
        return PixelRect(x: x, y: bottom - side, width: side, height: side)
    }

    /// Next to the largest face, on the side of `corner` first, then the other side, above,
    /// below; at the usual size, then smaller, down to half the face's height. Nil when no
    /// place next to it is clear of every face.
    static func beside(faces: [PixelRect], within bounds: PixelRect, side: Int, corner: StickerCorner) -> PixelRect? {
        guard let face = faces.first else { return nil }
        let gap = max(2, face.width / 10)
        let rightFirst = corner == .topRight || corner == .bottomRight
        var sizes: [Int] = []
        var size = min(side, face.height * 3 / 2)
        while size >= max(8, face.height / 2) {
            sizes.append(size)
            size = size * 3 / 4
        }
        for size in sizes {
            let right = PixelRect(x: face.maxX + gap, y: face.y + face.height / 2 - size / 2, width: size, height: size)
            let left = PixelRect(x: face.x - gap - size, y: right.y, width: size, height: size)
            let above = PixelRect(x: face.x + face.width / 2 - size / 2, y: face.y - gap - size, width: size, height: size)
            let below = PixelRect(x: above.x, y: face.maxY + gap, width: size, height: size)
            for candidate in (rightFirst ? [right, left] : [left, right]) + [above, below]
            where bounds.contains(candidate) && !faces.contains(where: { $0.intersects(candidate) }) {
                return candidate
            }
        }
        return nil
    }
}
