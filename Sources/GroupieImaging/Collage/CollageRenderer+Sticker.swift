import GroupieCore

extension CollageRenderer {
    /// Where the sticker goes on `photo`'s layer: by the faces in the photo as the collage shows
    /// it (cropped or fitted whole), as the mission file says (`StickerPlacement`); in its corner
    /// when the face finder cannot run, with `faces` nil.
    static func stickerRect(photo: Layer, border: Int, side: Int, content: CollageContent) -> (rect: PixelRect, faces: [PixelRect]?) {
        let frame = photo.rect
        var faces: [PixelRect]?
        if let source = photo.source, let detector = try? FaceDetector(),
            let found = try? detector.faces(inTileOf: source, size: frame.size, crop: Int32(photo.crop), focus: photo.focus)
        {
            // A whole photo is centred in its frame, as the collage draws it.
            let left = frame.x + (frame.width - found.tile.width) / 2, top = frame.y + (frame.height - found.tile.height) / 2
            faces = found.faces.map { PixelRect(x: $0.x + left, y: $0.y + top, width: $0.width, height: $0.height) }
        }
        let rect = StickerPlacement.rect(
            photo: frame, border: border, faces: faces ?? [], place: content.stickerPlace, corner: content.stickerCorner, side: side)
        return (rect, faces)
    }
}
