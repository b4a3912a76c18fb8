import Foundation

/// Lays out a finished mission's collage: where each photo, the caption and any sticker go. Pure
/// geometry, the same input always gives the same layout; the renderer draws it.
public enum CollageLayoutEngine {
    public static let longEdgeRange = 256...4096
    /// Up to this many photos `auto` searches; beyond it, it lays them out as a grid.
    public static let searchLimit = 16
    /// Polaroid tilt in degrees, by photo index (repeating).
    public static let polaroidAngles: [Double] = [-4, 3, -2, 5, -5, 2, -3, 4, -1, 6, -6, 1]

    /// photos: each chosen photo's pixel size after orientation; longEdge: e.g. 2048 (clamped to 256...4096).
    public static func layout(photos: [PixelSize], longEdge: Int, style: VisualStyle) -> CollageLayout {
        let longEdge = min(max(longEdge, longEdgeRange.lowerBound), longEdgeRange.upperBound)
        let photos = photos.map { PixelSize(width: max(1, $0.width), height: max(1, $0.height)) }
        guard !photos.isEmpty else { return empty(longEdge: longEdge) }
        switch style {
        case .grid: return grid(photos: photos, longEdge: longEdge)
        case .strip: return strip(photos: photos, longEdge: longEdge)
        case .polaroid: return polaroid(photos: photos, longEdge: longEdge)
        case .sticker where photos.count == 1: return sticker(photo: photos[0], longEdge: longEdge)
        case .sticker, .auto:
            return photos.count <= searchLimit
                ? CollageSearch.layout(photos: photos, longEdge: longEdge) : grid(photos: photos, longEdge: longEdge)
        }
    }

    /// A 4:5 canvas with no tiles.
    static func empty(longEdge: Int) -> CollageLayout {
        let canvas = CollageCanvas(shapeWidth: 4, shapeHeight: 5, longEdge: longEdge)
        return CollageLayout(
            style: .grid, canvas: canvas.size, photoArea: canvas.photoArea, caption: canvas.caption, gutter: canvas.gutter,
            tiles: [], arrangement: "empty")
    }

    // MARK: - Grid

    /// Row lengths to try for `count` photos: about square, full rows first, the last row shorter.
    static func gridRows(count: Int) -> [[Int]] {
        let root = Int(Double(count).squareRoot().rounded(.up))
        var seen: [[Int]] = []
        for columns in max(1, root - 1)...min(count, root + 1) {
            let rows = (count + columns - 1) / columns
            var lengths = [Int](repeating: columns, count: rows)
            lengths[rows - 1] = count - columns * (rows - 1)
            if !seen.contains(lengths) { seen.append(lengths) }
        }
        return seen
    }

    /// Rows stacked top to bottom (one row: the row itself).
    static func rowsSlice(_ lengths: [Int]) -> CollageSlice {
        var next = 0
        let rows = lengths.map { length -> CollageSlice in
            defer { next += length }
            return length == 1 ? .photo(next) : .row((next..<next + length).map { .photo($0) })
        }
        return rows.count == 1 ? rows[0] : .column(rows)
    }

    /// Cost of a grid's look apart from the photos: far from square, empty cells at the end.
    static func gridShapeCost(_ lengths: [Int]) -> Double {
        let columns = lengths.first ?? 1
        return 0.03 * Double(abs(lengths.count - columns)) + 0.05 * Double(columns - (lengths.last ?? columns))
    }

    /// One way of cutting a canvas into about-square rows of equal cells.
    struct GridCandidate {
        var lengths: [Int]
        var canvas: CollageCanvas
        /// The canvas shape's penalty and the grid's look (`gridShapeCost`).
        var penalty: Double
        var cells: [PixelRect]
    }

    /// Every about-square row split of `count` cells on every canvas shape: what `grid` and
    /// `polaroid` choose among.
    static func gridCandidates(count: Int, longEdge: Int) -> [GridCandidate] {
        var candidates: [GridCandidate] = []
        for lengths in gridRows(count: count) {
            let slice = rowsSlice(lengths)
            for shape in CollageCanvas.shapes {
                let canvas = CollageCanvas(shapeWidth: shape.width, shapeHeight: shape.height, longEdge: longEdge)
                var cells = [PixelRect](repeating: canvas.photoArea, count: count)
                slice.place(in: canvas.photoArea, aspects: nil, gutter: canvas.gutter, frames: &cells)
                candidates.append(GridCandidate(lengths: lengths, canvas: canvas, penalty: shape.penalty + gridShapeCost(lengths), cells: cells))
            }
        }
        return candidates
    }

    /// Equal tiles in about-square rows; the last row's tiles widen to fill. The row split and the canvas
    /// shape are those that crop the photos least.
    static func grid(photos: [PixelSize], longEdge: Int) -> CollageLayout {
        var best: (score: Double, canvas: CollageCanvas, lengths: [Int], frames: [PixelRect])?
        for candidate in gridCandidates(count: photos.count, longEdge: longEdge) {
            let score = CollageScore.of(frames: candidate.cells, photos: photos, canvas: candidate.canvas) + candidate.penalty
            if best.map({ score < $0.score }) ?? true { best = (score, candidate.canvas, candidate.lengths, candidate.cells) }
        }
        guard let best else { return empty(longEdge: longEdge) }
        return CollageLayout(
            style: .grid, canvas: best.canvas.size, photoArea: best.canvas.photoArea, caption: best.canvas.caption,
            gutter: best.canvas.gutter, tiles: tiles(photos: photos, frames: best.frames),
            arrangement: "grid " + best.lengths.map(String.init).joined(separator: "+"))
    }

    static func tiles(photos: [PixelSize], frames: [PixelRect]) -> [CollageTile] {
        zip(photos, frames).enumerated().map { index, pair in
            CollageTile(photoIndex: index, frame: pair.1, crop: .centred(source: pair.0, frame: pair.1.size))
        }
    }

    // MARK: - Strip

    /// Photo-booth columns: one for up to 4 photos, else one per 4 photos; columns filled top to bottom in
    /// turn, lengths differing by at most one (a shorter column's tiles are taller to fill).
    static func stripColumns(count: Int) -> [Int] {
        let columns = count <= 4 ? 1 : (count + 3) / 4
        return (0..<columns).map { count / columns + ($0 < count % columns ? 1 : 0) }
    }

    /// Equal tiles in portrait columns. The canvas is `longEdge` tall and as wide as tiles of the photos'
    /// middle aspect (kept within 1:2...2:1) need, between 30 % of the height and square.
    static func strip(photos: [PixelSize], longEdge: Int) -> CollageLayout {
        let lengths = stripColumns(count: photos.count)
        let aspects = photos.map(\.aspect).sorted()
        let cellAspect = min(2, max(0.5, aspects[aspects.count / 2]))
        let gutter = CollageCanvas.gutter(longEdge: longEdge)
        let rows = lengths.max() ?? 1
        let areaHeight = Double(longEdge - CollageCanvas.captionHeight(longEdge: longEdge) - 2 * gutter)
        let cellHeight = (areaHeight - Double((rows - 1) * gutter)) / Double(rows)
        let areaWidth = Double(lengths.count) * cellHeight * cellAspect + Double((lengths.count - 1) * gutter)
        let width = min(longEdge, max(Int((0.3 * Double(longEdge)).rounded()), Int(areaWidth.rounded()) + 2 * gutter))
        let canvas = CollageCanvas(width: width, height: longEdge)
        var next = 0
        let columns = lengths.map { length -> CollageSlice in
            defer { next += length }
            return length == 1 ? .photo(next) : .column((next..<next + length).map { .photo($0) })
        }
        let slice = columns.count == 1 ? columns[0] : .row(columns)
        var frames = [PixelRect](repeating: canvas.photoArea, count: photos.count)
        slice.place(in: canvas.photoArea, aspects: nil, gutter: canvas.gutter, frames: &frames)
        return CollageLayout(
            style: .strip, canvas: canvas.size, photoArea: canvas.photoArea, caption: canvas.caption, gutter: canvas.gutter,
            tiles: tiles(photos: photos, frames: frames), arrangement: "strip " + lengths.map(String.init).joined(separator: "+"))
    }

    // MARK: - Polaroid

    /// Side border of a print as a share of the photo's short side; the bottom border is four times it.
    static let printBorder = 0.07
    static let printBottom = 4

    /// A print's photo keeps the photo's aspect within 4:5...5:4.
    static func printPhotoAspect(_ photo: PixelSize) -> Double { min(1.25, max(0.8, photo.aspect)) }

    /// The biggest print of a photo of `aspect`, turned by `degrees`, whose bounds fit in `cell` with half
    /// a pixel to spare, centred in it; `nil` if the cell is too small for any.
    static func print(aspect: Double, degrees: Double, in cell: PixelRect) -> (print: PixelRect, frame: PixelRect)? {
        func make(width: Int) -> (print: PixelRect, frame: PixelRect) {
            let height = max(1, Int((Double(width) / aspect).rounded()))
            let border = max(2, Int((printBorder * Double(min(width, height))).rounded()))
            let printWidth = width + 2 * border, printHeight = height + (1 + printBottom) * border
            let x = cell.x + (cell.width - printWidth) / 2, y = cell.y + (cell.height - printHeight) / 2
            return (
                PixelRect(x: x, y: y, width: printWidth, height: printHeight),
                PixelRect(x: x + border, y: y + border, width: width, height: height)
            )
        }
        func fits(_ print: PixelRect) -> Bool {
            let b = CollageTile.rotatedBounds(of: print, degrees: degrees)
            return b.minX >= Double(cell.x) + 0.5 && b.minY >= Double(cell.y) + 0.5
                && b.maxX <= Double(cell.maxX) - 0.5 && b.maxY <= Double(cell.maxY) - 0.5
        }
        // Print size per pixel of photo width, then its turned bounds.
        let radians = degrees * Double.pi / 180
        let c = abs(cos(radians)), s = abs(sin(radians))
        let short = min(1, 1 / aspect)
        let perWidth = 1 + 2 * printBorder * short, perHeight = 1 / aspect + Double(1 + printBottom) * printBorder * short
        let scale = min(
            (Double(cell.width) - 2) / (perWidth * c + perHeight * s), (Double(cell.height) - 2) / (perWidth * s + perHeight * c))
        var width = max(1, Int(scale.rounded(.down)))
        var placed = make(width: width)
        while !fits(placed.print) {
            guard width > 1 else { return nil }
            width -= max(1, width / 64)
            placed = make(width: width)
        }
        return placed
    }

    /// Prints with white borders on a grid of cells, each tilted by a fixed angle from its index and as big
    /// as fits its cell; the row split and canvas shape are those that give the prints the most room.
    static func polaroid(photos: [PixelSize], longEdge: Int) -> CollageLayout {
        var best: (score: Double, canvas: CollageCanvas, lengths: [Int], tiles: [CollageTile])?
        for candidate in gridCandidates(count: photos.count, longEdge: longEdge) {
            var tiles: [CollageTile] = []
            var covered = 0.0
            for (index, (photo, cell)) in zip(photos, candidate.cells).enumerated() {
                let degrees = polaroidAngles[index % polaroidAngles.count]
                guard let placed = print(aspect: printPhotoAspect(photo), degrees: degrees, in: cell) else { break }
                covered += Double(placed.print.width * placed.print.height)
                tiles.append(
                    CollageTile(
                        photoIndex: index, frame: placed.frame, crop: .centred(source: photo, frame: placed.frame.size),
                        print: placed.print, rotation: degrees))
            }
            guard tiles.count == photos.count else { continue }
            let area = Double(candidate.canvas.photoArea.width * candidate.canvas.photoArea.height)
            let score = -covered / area + candidate.penalty
            if best.map({ score < $0.score }) ?? true { best = (score, candidate.canvas, candidate.lengths, tiles) }
        }
        guard let best else { return grid(photos: photos, longEdge: longEdge) }
        return CollageLayout(
            style: .polaroid, canvas: best.canvas.size, photoArea: best.canvas.photoArea, caption: best.canvas.caption,
            gutter: best.canvas.gutter, tiles: best.tiles,
            arrangement: "polaroid " + best.lengths.map(String.init).joined(separator: "+"))
    }

    // MARK: - Sticker

    /// Width of the sticker style's decorative frame: 3 % of the long edge.
    static func stickerFrameWidth(longEdge: Int) -> Int { max(2, Int((0.03 * Double(longEdge)).rounded())) }

    /// One photo filling the photo area inside a decorative frame, on the canvas shape that crops it least;
    /// a square sticker of 32 % of the canvas's short side over the photo's bottom-right corner, reaching
    /// over the frame but not into the margin or the caption band.
    static func sticker(photo: PixelSize, longEdge: Int) -> CollageLayout {
        let frameWidth = stickerFrameWidth(longEdge: longEdge)
        var best: (score: Double, canvas: CollageCanvas, frame: PixelRect)?
        for shape in CollageCanvas.shapes {
            let canvas = CollageCanvas(shapeWidth: shape.width, shapeHeight: shape.height, longEdge: longEdge)
            let frame = canvas.photoArea.insetBy(frameWidth)
            let score = CollageScore.of(frames: [frame], photos: [photo], canvas: canvas) + shape.penalty
            if best.map({ score < $0.score }) ?? true { best = (score, canvas, frame) }
        }
        guard let best else { return empty(longEdge: longEdge) }
        let side = Int((0.32 * Double(best.canvas.shortSide)).rounded())
        let sticker = PixelRect(
            x: best.frame.maxX + frameWidth - side, y: best.frame.maxY + frameWidth - side, width: side, height: side)
        return CollageLayout(
            style: .sticker, canvas: best.canvas.size, photoArea: best.canvas.photoArea, caption: best.canvas.caption,
            gutter: best.canvas.gutter, tiles: tiles(photos: [photo], frames: [best.frame]), sticker: sticker,
            frameWidth: frameWidth, arrangement: "sticker")
    }
}
