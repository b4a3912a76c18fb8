/// A guillotine layout over photos: one photo, or parts side by side (`row`) or stacked (`column`),
/// each part separated from the next by one gutter.
indirect enum CollageSlice: Sendable, Hashable {
    case photo(Int)
    case row([CollageSlice])
    case column([CollageSlice])

    /// "0", "H(0,1)", "V(H(0,1),2)": H for a row, V for a column.
    var description: String {
        switch self {
        case .photo(let index): "\(index)"
        case .row(let parts): "H(" + parts.map(\.description).joined(separator: ",") + ")"
        case .column(let parts): "V(" + parts.map(\.description).joined(separator: ",") + ")"
        }
    }

    /// The natural width as a function of height, `width = alpha * height + beta`, when every photo keeps
    /// its own aspect and parts are `gutter` apart.
    func fit(aspects: [Double], gutter: Double) -> (alpha: Double, beta: Double) {
        switch self {
        case .photo(let index):
            return (aspects[index], 0)
        case .row(let parts):
            var alpha = 0.0, beta = gutter * Double(parts.count - 1)
            for part in parts {
                let f = part.fit(aspects: aspects, gutter: gutter)
                alpha += f.alpha
                beta += f.beta
            }
            return (alpha, beta)
        case .column(let parts):
            // Each part's height is (width - beta) / alpha; the heights and gaps add up.
            var inverse = 0.0, offset = 0.0
            for part in parts {
                let f = part.fit(aspects: aspects, gutter: gutter)
                inverse += 1 / f.alpha
                offset += f.beta / f.alpha
            }
            let alpha = 1 / inverse
            return (alpha, alpha * (offset + gutter * Double(parts.count - 1)))
        }
    }

    /// Places every photo in `rect`. With `aspects`, each part gets room in proportion to its natural
    /// size (justified); without, parts share equally. Gaps are exactly `gutter`; rounding goes into the parts.
    func place(in rect: PixelRect, aspects: [Double]?, gutter: Int, frames: inout [PixelRect]) {
        switch self {
        case .photo(let index):
            if frames.indices.contains(index) { frames[index] = rect }
        case .row(let parts):
            let weights = parts.map { part -> Double in
                guard let aspects else { return 1 }
                let f = part.fit(aspects: aspects, gutter: Double(gutter))
                return f.alpha * Double(rect.height) + f.beta
            }
            let widths = CollageSlice.split(rect.width - gutter * (parts.count - 1), weights: weights)
            var x = rect.x
            for (part, width) in zip(parts, widths) {
                part.place(in: PixelRect(x: x, y: rect.y, width: width, height: rect.height), aspects: aspects, gutter: gutter, frames: &frames)
                x += width + gutter
            }
        case .column(let parts):
            let weights = parts.map { part -> Double in
                guard let aspects else { return 1 }
                let f = part.fit(aspects: aspects, gutter: Double(gutter))
                return (Double(rect.width) - f.beta) / f.alpha
            }
            let heights = CollageSlice.split(rect.height - gutter * (parts.count - 1), weights: weights)
            var y = rect.y
            for (part, height) in zip(parts, heights) {
                part.place(in: PixelRect(x: rect.x, y: y, width: rect.width, height: height), aspects: aspects, gutter: gutter, frames: &frames)
                y += height + gutter
            }
        }
    }

    /// Splits `total` pixels in proportion to `weights`: the parts add up to `total` exactly, each gets at
    /// least 1 pixel when there are enough, and leftover pixels go by largest remainder (lower index first).
    static func split(_ total: Int, weights: [Double]) -> [Int] {
        let count = weights.count
        guard count > 0 else { return [] }
        let total = max(0, total)
        // Weights below a small floor (a part squeezed by gutters) still get a fair share.
        let floor = 1e-3 * max(1e-9, weights.map { $0.isFinite ? $0 : 0 }.max() ?? 1)
        let cleaned = weights.map { $0.isFinite ? max($0, floor) : floor }
        let sum = cleaned.reduce(0, +)
        let exact = cleaned.map { Double(total) * $0 / sum }
        let minimum = total >= count ? 1 : 0
        var parts = exact.map { max(minimum, Int($0.rounded(.down))) }
        var rest = total - parts.reduce(0, +)
        while rest > 0 {
            var best = 0
            for i in 1..<count where exact[i] - Double(parts[i]) > exact[best] - Double(parts[best]) { best = i }
            parts[best] += 1
            rest -= 1
        }
        while rest < 0 {
            var best = -1
            for i in 0..<count where parts[i] > minimum {
                if best < 0 || exact[i] - Double(parts[i]) < exact[best] - Double(parts[best]) { best = i }
            }
            guard best >= 0 else { break }
            parts[best] -= 1
            rest += 1
        }
        return parts
    }
}
