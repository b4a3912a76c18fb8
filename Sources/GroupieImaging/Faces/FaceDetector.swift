import CFaces
import CVipsShim
import GroupieCore

/// Finds the frontal faces in a photo with OpenCV's Haar cascade (Debian's opencv-data), on a
/// grey copy of at most `maxSide` pixels that libvips makes. Used where a sticker is placed, when
/// a collage is drawn: never on an upload. Blocks: call it from a thread pool.
public struct FaceDetector: Sendable {
    public static let cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    /// The grey copy's long side: faces of a group photo are still some 30 pixels high.
    static let maxSide = 640
    static let capacity = 32

    public enum Failure: Error, Sendable, Equatable {
        /// The cascade file is missing or unreadable (opencv-data not installed).
        case cascadeUnavailable(String)
    }

    let cascadePath: String

    public init(cascadePath: String = FaceDetector.cascadePath) throws {
        _ = try PhotoProcessor()
        self.cascadePath = cascadePath
    }

    /// The faces in the photo at `path`, oriented as it is seen, largest first, in its pixels
    /// (`width` × `height`, its oriented size).
    public func faces(inPhotoAt path: String, width: Int, height: Int) throws -> [PixelRect] {
        try detect(scaledTo: { PixelSize(width: width, height: height) }) { buffer, capacity, grayWidth, grayHeight in
            groupie_vips_photo_gray(path, Int32(Self.maxSide), buffer, capacity, &grayWidth, &grayHeight)
        }
    }

    /// The faces in a photo's collage tile, drawn as the collage draws it (`size`, `crop`,
    /// `focus`), in the tile's pixels; and the tile's own size (a whole photo's is smaller than
    /// `size` on one axis).
    func faces(inTileOf path: String, size: PixelSize, crop: Int32, focus: (Double, Double)) throws -> (faces: [PixelRect], tile: PixelSize) {
        var tileWidth: Int32 = 0, tileHeight: Int32 = 0
        var tile = size
        let faces = try detect(scaledTo: { tile }) { buffer, capacity, grayWidth, grayHeight in
            let status = groupie_vips_tile_gray(
                path, Int32(size.width), Int32(size.height), crop, focus.0, focus.1, Int32(Self.maxSide), buffer, capacity,
                &tileWidth, &tileHeight, &grayWidth, &grayHeight)
            tile = PixelSize(width: Int(tileWidth), height: Int(tileHeight))
            return status
        }
        return (faces, tile)
    }

    /// Makes the grey copy with `gray`, finds its faces and scales them to `size` (read after
    /// `gray` has run).
    private func detect(
        scaledTo size: () -> PixelSize, gray: (UnsafeMutablePointer<UInt8>, Int32, inout Int32, inout Int32) -> Int32
    ) throws -> [PixelRect] {
        let capacity = Self.maxSide * Self.maxSide
        var pixels = [UInt8](repeating: 0, count: capacity)
        var width: Int32 = 0, height: Int32 = 0
        let status = pixels.withUnsafeMutableBufferPointer { gray($0.baseAddress!, Int32(capacity), &width, &height) }
        guard status == 0 else { throw PhotoProcessor.Failure.processing(PhotoProcessor.lastError()) }
        var found = [groupie_face](repeating: groupie_face(), count: Self.capacity)
        let count = groupie_faces_detect(pixels, width, height, width, cascadePath, &found, Int32(Self.capacity))
        guard count >= 0 else { throw Failure.cascadeUnavailable(cascadePath) }
        let target = size()
        let sx = Double(target.width) / Double(max(1, width)), sy = Double(target.height) / Double(max(1, height))
        return found.prefix(Int(count)).map { face in
            PixelRect(
                x: Int((Double(face.x) * sx).rounded()), y: Int((Double(face.y) * sy).rounded()),
                width: Int((Double(face.width) * sx).rounded()), height: Int((Double(face.height) * sy).rounded()))
        }
    }
}
