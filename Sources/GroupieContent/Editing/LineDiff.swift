/// The differences between two texts, line by line: the longest common subsequence of their
/// lines, after the lines both start and end with.
public enum LineDiff {
    public enum Kind: String, Sendable {
        case same, removed, added
    }

    public struct Line: Sendable, Equatable {
        public var kind: Kind
        public var text: String
        /// 1-based, in the old text (nil for an added line) and in the new one (nil for a removed one).
        public var old: Int?
        public var new: Int?

        public init(kind: Kind, text: String, old: Int?, new: Int?) {
            self.kind = kind
            self.text = text
            self.old = old
            self.new = new
        }
    }

    /// Past this many cells of the table, the middle is shown as removed then added.
    static let maximumCells = 4_000_000

    public static func lines(from old: String, to new: String) -> [Line] {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let x = Array(a[prefix..<(a.count - suffix)]), y = Array(b[prefix..<(b.count - suffix)])
        var result = (0..<prefix).map { Line(kind: .same, text: a[$0], old: $0 + 1, new: $0 + 1) }
        if x.count * y.count > maximumCells {
            result += x.indices.map { Line(kind: .removed, text: x[$0], old: prefix + $0 + 1, new: nil) }
            result += y.indices.map { Line(kind: .added, text: y[$0], old: nil, new: prefix + $0 + 1) }
        } else {
            // lengths[i][j]: the longest common subsequence of x[i...] and y[j...].
            let width = y.count + 1
            var lengths = [Int32](repeating: 0, count: (x.count + 1) * width)
            for i in stride(from: x.count - 1, through: 0, by: -1) {
                for j in stride(from: y.count - 1, through: 0, by: -1) {
                    lengths[i * width + j] = x[i] == y[j] ? lengths[(i + 1) * width + j + 1] + 1 : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
                }
            }
            var i = 0, j = 0
            while i < x.count || j < y.count {
                if i < x.count, j < y.count, x[i] == y[j] {
                    result.append(Line(kind: .same, text: x[i], old: prefix + i + 1, new: prefix + j + 1)); i += 1; j += 1
                } else if i < x.count, j == y.count || lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                    // Removed lines before added ones, as diffs show a change.
                    result.append(Line(kind: .removed, text: x[i], old: prefix + i + 1, new: nil)); i += 1
                } else {
                    result.append(Line(kind: .added, text: y[j], old: nil, new: prefix + j + 1)); j += 1
                }
            }
        }
        result += (0..<suffix).map { k in
            Line(kind: .same, text: a[a.count - suffix + k], old: a.count - suffix + k + 1, new: b.count - suffix + k + 1)
        }
        return result
    }
}
