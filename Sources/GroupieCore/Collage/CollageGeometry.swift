import Foundation

/// A size in whole pixels.
public struct PixelSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width over height; 1 for an empty size.
    public var aspect: Double {
        guard width > 0, height > 0 else { return 1 }
        return Double(width) / Double(height)
    }
}

/// A rectangle in whole pixels, origin at the top left.
public struct PixelRect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Whether `other` lies wholly inside this rectangle (edges may touch).
    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// Whether the two rectangles share any pixel.
    public func intersects(_ other: PixelRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// Smaller by `amount` on every side.
    public func insetBy(_ amount: Int) -> PixelRect {
        PixelRect(x: x + amount, y: y + amount, width: max(0, width - 2 * amount), height: max(0, height - 2 * amount))
    }
}

/// The window of a source photo that a tile shows, in the source's pixels (after EXIF orientation).
/// Its aspect equals the tile frame's aspect exactly (up to floating-point rounding, relative 1e-9).
/// Centred by default; the renderer may move it with smart crop but never changes its size.
public struct SourceCrop: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest centred window of `source` with the aspect of `frame`.
    public static func centred(source: PixelSize, frame: PixelSize) -> SourceCrop {
        let sw = Double(max(1, source.width)), sh = Double(max(1, source.height))
        guard frame.width > 0, frame.height > 0 else { return SourceCrop(x: 0, y: 0, width: sw, height: sh) }
        let fw = Double(frame.width), fh = Double(frame.height)
        let width: Double, height: Double
        if fw * sh >= fh * sw {
            // The frame is wider than the source: keep the full width.
            width = sw
            height = sw * fh / fw
        } else {
            height = sh
            width = sh * fw / fh
        }
        return SourceCrop(x: (sw - width) / 2, y: (sh - height) / 2, width: width, height: height)
    }

    /// The part of the source's area left out, 0...1.
    public func lostFraction(of source: PixelSize) -> Double {
        let area = Double(max(1, source.width)) * Double(max(1, source.height))
        return max(0, 1 - width * height / area)
    }
}

/// One photo placed on the collage.
public struct CollageTile: Sendable, Hashable {
    /// Index into the input array.
    public var photoIndex: Int
    /// Where the photo's pixels go on the canvas (for polaroid: the photo inside the print, before rotation).
    public var frame: PixelRect
    public var crop: SourceCrop
    /// Polaroid only: the white print (frame lies inside it, with a thicker bottom border), before rotation.
    public var print: PixelRect?
    /// Degrees clockwise about the centre of `print` (polaroid); 0 for every other style.
    public var rotation: Double

    public init(photoIndex: Int, frame: PixelRect, crop: SourceCrop, print: PixelRect? = nil, rotation: Double = 0) {
        self.photoIndex = photoIndex
        self.frame = frame
        self.crop = crop
        self.print = print
        self.rotation = rotation
    }

    /// The axis-aligned box the tile covers on the canvas: `frame`, or for a polaroid the rotated print's bounds.
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        guard let print else {
            return (Double(frame.x), Double(frame.y), Double(frame.maxX), Double(frame.maxY))
        }
        return CollageTile.rotatedBounds(of: print, degrees: rotation)
    }

    /// Bounds of `rect` turned by `degrees` about its centre.
    static func rotatedBounds(of rect: PixelRect, degrees: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let radians = degrees * Double.pi / 180
        let c = abs(cos(radians)), s = abs(sin(radians))
        let w = Double(rect.width), h = Double(rect.height)
        let halfW = (w * c + h * s) / 2, halfH = (w * s + h * c) / 2
        let cx = Double(rect.x) + w / 2, cy = Double(rect.y) + h / 2
        return (cx - halfW, cy - halfH, cx + halfW, cy + halfH)
    }
}

/// Where everything goes on a mission's collage. Pure geometry: the renderer draws it.
public struct CollageLayout: Sendable, Hashable {
    /// The style actually used: never `.auto` (a searched layout is reported as `.grid`).
    public var style: VisualStyle
    /// The whole picture; `max(width, height)` is the requested long edge.
    public var canvas: PixelSize
    /// Where the photos are laid out: inside the outer margin, above the caption.
    public var photoArea: PixelRect
    /// The caption band at the bottom: full canvas width, touching the bottom edge.
    public var caption: PixelRect
    /// The gap between neighbouring tiles, and the outer margin around `photoArea`.
    public var gutter: Int
    /// One per input photo, in input order.
    public var tiles: [CollageTile]
    /// Sticker style only: where the sticker goes, over the photo's bottom-right corner, inside the canvas.
    public var sticker: PixelRect?
    /// Sticker style: width of the decorative frame drawn around the photo; 0 otherwise.
    public var frameWidth: Int
    /// Human-readable description, e.g. "rows 2+3" or "H(V(0,1),2)", for logs and tests.
    public var arrangement: String

    public init(
        style: VisualStyle, canvas: PixelSize, photoArea: PixelRect, caption: PixelRect, gutter: Int, tiles: [CollageTile],
        sticker: PixelRect? = nil, frameWidth: Int = 0, arrangement: String
    ) {
        self.style = style
        self.canvas = canvas
        self.photoArea = photoArea
        self.caption = caption
        self.gutter = gutter
        self.tiles = tiles
        self.sticker = sticker
        self.frameWidth = frameWidth
        self.arrangement = arrangement
    }
}
