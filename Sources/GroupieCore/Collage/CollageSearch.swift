import Foundation

/// The `auto` style: tries guillotine layouts of the photos in their given order on a few canvas shapes,
/// sizes each so that every photo keeps its own aspect as far as possible (justified), and keeps the best.
///
/// A layout is written as one code per pair of neighbouring photos: 0 = same stack, 1 = next part of the
/// same line, 2 = next line. Lines are rows stacked top to bottom (or, transposed, columns left to right);
/// parts are single photos or stacks of photos at right angles to the line. That covers every row split,
/// every column split and every slicing tree up to three levels deep.
enum CollageSearch {
    /// Up to this many photos every code is tried (3^(n-1)); beyond it only row and column splits (2^(n-1)).
    static let deepSearchLimit = 9
    /// Candidates picked by the quick estimate that are then laid out in pixels and scored exactly.
    static let shortlistLength = 16
    /// Cost per photo stacked inside a line: among equally good layouts, the plainer one wins.
    static let stackCost = 0.005
    /// Scores closer than this count as equal, so that rounding cannot break a tie against the earlier layout.
    static let tolerance = 1e-9

    struct Candidate: Hashable {
        var code: Int
        var transposed: Bool
        var shape: Int
        var estimate: Double
    }

    static func layout(photos: [PixelSize], longEdge: Int) -> CollageLayout {
        let canvases = CollageCanvas.shapes.map { CollageCanvas(shapeWidth: $0.width, shapeHeight: $0.height, longEdge: longEdge) }
        let aspects = photos.map(\.aspect)
        var best: (score: Double, canvas: CollageCanvas, frames: [PixelRect], arrangement: String)?
        if photos.count == 1 {
            for (shape, canvas) in canvases.enumerated() {
                let frames = [canvas.photoArea]
                let score = CollageScore.of(frames: frames, photos: photos, canvas: canvas) + CollageCanvas.shapes[shape].penalty
                if best.map({ score < $0.score }) ?? true { best = (score, canvas, frames, "single") }
            }
        } else {
            for candidate in shortlist(aspects: aspects, canvases: canvases) {
                let canvas = canvases[candidate.shape]
                let slice = slice(code: candidate.code, transposed: candidate.transposed, count: photos.count)
                var frames = [PixelRect](repeating: PixelRect(x: 0, y: 0, width: 0, height: 0), count: photos.count)
                slice.place(in: canvas.photoArea, aspects: aspects, gutter: canvas.gutter, frames: &frames)
                let stacked = stackCost * Double(codes(candidate.code, count: photos.count).count { $0 == 0 })
                let score =
                    CollageScore.of(frames: frames, photos: photos, canvas: canvas) + CollageCanvas.shapes[candidate.shape].penalty
                    + stacked
                if best.map({ score < $0.score - tolerance }) ?? true {
                    let arrangement =
                        arrangement(code: candidate.code, transposed: candidate.transposed, count: photos.count) ?? slice.description
                    best = (score, canvas, frames, arrangement)
                }
            }
        }
        guard let best else { return CollageLayoutEngine.empty(longEdge: longEdge) }
        return CollageLayout(
            style: .grid, canvas: best.canvas.size, photoArea: best.canvas.photoArea, caption: best.canvas.caption,
            gutter: best.canvas.gutter,
            tiles: zip(photos, best.frames).enumerated().map { index, pair in
                CollageTile(photoIndex: index, frame: pair.1, crop: .centred(source: pair.0, frame: pair.1.size))
            },
            arrangement: best.arrangement)
    }

    /// The codes' digits: three choices each for few photos, else only 1 and 2.
    static func base(count: Int) -> Int { count <= deepSearchLimit ? 3 : 2 }

    static func codes(_ code: Int, count: Int) -> [UInt8] {
        let base = base(count: count)
        var rest = code
        return (0..<max(0, count - 1)).map { _ in
            let digit = rest % base
            rest /= base
            return UInt8(base == 3 ? digit : digit + 1)
        }
    }

    /// Every code scored by a quick estimate (no gutters, every tile distorted alike), best first.
    static func shortlist(aspects: [Double], canvases: [CollageCanvas]) -> [Candidate] {
        let n = aspects.count
        let base = base(count: n)
        var total = 1
        for _ in 1..<n { total *= base }
        let inverse = aspects.map { 1 / $0 }
        // Per canvas: the photo area's aspect and its width, and the same for the transposed layout.
        let plain = canvases.map { (aspect: Double($0.photoArea.width) / Double($0.photoArea.height), length: Double($0.photoArea.width)) }
        let turned = canvases.map { (aspect: Double($0.photoArea.height) / Double($0.photoArea.width), length: Double($0.photoArea.height)) }
        let readable = canvases.map(\.readableSide)
        let penalties = CollageCanvas.shapes.map(\.penalty)

        var list: [Candidate] = []
        list.reserveCapacity(shortlistLength + 1)
        var codes = [UInt8](repeating: base == 3 ? 0 : 1, count: n - 1)
        for code in 0..<total {
            if code > 0 {
                // Next code, lowest digit first.
                var i = 0
                while i < n - 1 {
                    let top: UInt8 = 2
                    if codes[i] < top {
                        codes[i] += 1
                        break
                    }
                    codes[i] = base == 3 ? 0 : 1
                    i += 1
                }
            }
            let stacked = stackCost * Double(codes.count { $0 == 0 })
            for transposed in [false, true] {
                guard let shape = measure(codes: codes, inverse: transposed ? aspects : inverse) else { break }
                let balance = CollageScore.balanceWeight * log(shape.biggest / shape.smallest) + stacked
                // Every estimate is at least this: skip the canvases if the shortlist is already better.
                if list.count == shortlistLength && balance >= list[list.count - 1].estimate { continue }
                let sides = transposed ? turned : plain
                for c in canvases.indices {
                    let ratio = shape.aspect / sides[c].aspect
                    let lost = 1 - min(ratio, 1 / ratio)
                    let short = shape.shortest * sides[c].length * min(1, ratio)
                    var estimate = (CollageScore.meanCropWeight + CollageScore.worstCropWeight) * lost + balance + penalties[c]
                    if short < readable[c] {
                        estimate += CollageScore.unreadableCost + CollageScore.unreadableWeight * (1 - short / readable[c])
                    }
                    if list.count < shortlistLength || estimate < list[list.count - 1].estimate - tolerance {
                        let candidate = Candidate(code: code, transposed: transposed, shape: c, estimate: estimate)
                        // After any equal estimate: the first found stays first.
                        var at = list.count
                        while at > 0 && list[at - 1].estimate > estimate + tolerance { at -= 1 }
                        list.insert(candidate, at: at)
                        if list.count > shortlistLength { list.removeLast() }
                    }
                }
            }
        }
        return list
    }

    /// The layout's aspect and its tiles' smallest area, biggest area and shortest side at width 1, with
    /// no gutters; `nil` for a code that repeats another (a single line, or a line of one stack).
    /// `inverse` holds 1 / aspect of each photo (for the transposed layout: the aspects).
    static func measure(codes: [UInt8], inverse: [Double]) -> (aspect: Double, smallest: Double, biggest: Double, shortest: Double)? {
        let n = inverse.count
        var height = 0.0, smallest = Double.infinity, biggest = 0.0, shortest = Double.infinity
        var lines = 0
        var start = 0
        while start < n {
            // First pass over the line: its aspect, the sum of its parts' aspects.
            var lineAspect = 0.0, parts = 0, stack = 0.0
            var end = start
            while true {
                stack += inverse[end]
                let last = end == n - 1
                if last || codes[end] != 0 {
                    lineAspect += 1 / stack
                    parts += 1
                    stack = 0
                    if last || codes[end] == 2 { break }
                }
                end += 1
            }
            if parts == 1 && end > start { return nil }
            // Second pass: tile sizes at line width 1.
            let lineHeight = 1 / lineAspect
            var stackStart = start
            stack = 0
            for k in start...end {
                stack += inverse[k]
                if k == end || codes[k] != 0 {
                    let width = lineHeight / stack
                    for p in stackStart...k {
                        let tileHeight = width * inverse[p]
                        let area = width * tileHeight
                        smallest = min(smallest, area)
                        biggest = max(biggest, area)
                        shortest = min(shortest, width, tileHeight)
                    }
                    stackStart = k + 1
                    stack = 0
                }
            }
            height += lineHeight
            lines += 1
            start = end + 1
        }
        if lines == 1 && n > 1 { return nil }
        return (1 / height, smallest, biggest, shortest)
    }

    static func slice(code: Int, transposed: Bool, count: Int) -> CollageSlice {
        var lines: [[[Int]]] = [[[0]]]
        for (i, digit) in codes(code, count: count).enumerated() {
            switch digit {
            case 0: lines[lines.count - 1][lines[lines.count - 1].count - 1].append(i + 1)
            case 1: lines[lines.count - 1].append([i + 1])
            default: lines.append([[i + 1]])
            }
        }
        func across(_ parts: [CollageSlice]) -> CollageSlice { transposed ? .column(parts) : .row(parts) }
        func along(_ parts: [CollageSlice]) -> CollageSlice { transposed ? .row(parts) : .column(parts) }
        func stack(_ photos: [Int]) -> CollageSlice { photos.count == 1 ? .photo(photos[0]) : along(photos.map { .photo($0) }) }
        func line(_ parts: [[Int]]) -> CollageSlice { parts.count == 1 ? stack(parts[0]) : across(parts.map(stack)) }
        return lines.count == 1 ? line(lines[0]) : along(lines.map(line))
    }

    /// "rows 2+3" or "columns 3+2" for a code without stacks; `nil` for a deeper tree.
    static func arrangement(code: Int, transposed: Bool, count: Int) -> String? {
        let digits = codes(code, count: count)
        guard !digits.contains(0) else { return nil }
        var lines = [1]
        for digit in digits {
            if digit == 2 { lines.append(1) } else { lines[lines.count - 1] += 1 }
        }
        return (transposed ? "columns " : "rows ") + lines.map(String.init).joined(separator: "+")
    }
}
