import Foundation

/// A canvas with its caption band, margin and photo area, before any photo is placed.
struct CollageCanvas: Sendable, Hashable {
    var size: PixelSize
    var photoArea: PixelRect
    var caption: PixelRect
    var gutter: Int

    /// Canvas proportions to try, best liked first, with a small penalty for the less liked ones
    /// (portrait and square suit phones).
    static let shapes: [(width: Int, height: Int, penalty: Double)] = [
        (4, 5, 0), (1, 1, 0), (3, 4, 0.01), (2, 3, 0.02), (5, 4, 0.03), (4, 3, 0.03), (3, 2, 0.05), (9, 16, 0.08),
        (2, 1, 0.1), (1, 2, 0.1),
    ]

    /// About 1 % of the long edge, at least 4 px.
    static func gutter(longEdge: Int) -> Int { max(4, Int((Double(longEdge) / 100).rounded())) }

    /// 11 % of the long edge: room for three lines (title, venue · date, names).
    static func captionHeight(longEdge: Int) -> Int { Int((Double(longEdge) * 0.11).rounded()) }

    init(width: Int, height: Int) {
        let longEdge = max(width, height)
        let gutter = CollageCanvas.gutter(longEdge: longEdge)
        let captionHeight = CollageCanvas.captionHeight(longEdge: longEdge)
        size = PixelSize(width: width, height: height)
        caption = PixelRect(x: 0, y: height - captionHeight, width: width, height: captionHeight)
        photoArea = PixelRect(
            x: gutter, y: gutter, width: max(1, width - 2 * gutter), height: max(1, height - captionHeight - 2 * gutter))
        self.gutter = gutter
    }

    /// A canvas of proportions `width`:`height` whose long side is `longEdge`.
    init(shapeWidth: Int, shapeHeight: Int, longEdge: Int) {
        if shapeWidth >= shapeHeight {
            self.init(width: longEdge, height: Int((Double(longEdge * shapeHeight) / Double(shapeWidth)).rounded()))
        } else {
            self.init(width: Int((Double(longEdge * shapeWidth) / Double(shapeHeight)).rounded()), height: longEdge)
        }
    }

    var shortSide: Int { min(size.width, size.height) }

    /// A tile whose short side is below this is too small to make out.
    var readableSide: Double { 0.14 * Double(shortSide) }
}

/// How good a set of tile frames is; lower is better.
enum CollageScore {
    /// Weights: mean crop lost, worst crop lost, log of the biggest over the smallest tile area,
    /// and for each unreadable tile a fixed cost plus one in proportion to how far it falls short.
    static let meanCropWeight = 1.0
    static let worstCropWeight = 0.5
    static let balanceWeight = 0.2
    static let unreadableCost = 0.5
    static let unreadableWeight = 4.0

    static func of(frames: [PixelRect], photos: [PixelSize], canvas: CollageCanvas) -> Double {
        guard !frames.isEmpty else { return 0 }
        var lostSum = 0.0, lostMax = 0.0, smallest = Double.infinity, biggest = 0.0, unreadable = 0.0
        let readable = canvas.readableSide
        for (frame, photo) in zip(frames, photos) {
            let lost = SourceCrop.centred(source: photo, frame: frame.size).lostFraction(of: photo)
            lostSum += lost
            lostMax = max(lostMax, lost)
            let area = Double(max(1, frame.width)) * Double(max(1, frame.height))
            smallest = min(smallest, area)
            biggest = max(biggest, area)
            let short = Double(min(frame.width, frame.height))
            if short < readable { unreadable += unreadableCost + unreadableWeight * (1 - short / readable) }
        }
        return meanCropWeight * lostSum / Double(frames.count) + worstCropWeight * lostMax
            + balanceWeight * log(biggest / smallest) + unreadable
    }
}
