/// The differences between two texts, line by line: the longest common subsequence of their
/// lines, after the lines both start and end with.
///
/// What is shown is bounded, whatever the texts: the changed lines up to `limit` (then how many
/// more), each with `context` unchanged lines around it, and every longer run of unchanged lines
/// as one count. Memory follows that bound and the table of the changed middle (itself bounded
/// by `maximumCells`), not the texts' length: two versions of a million lines each give a page
/// of a few thousand rows.
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

    /// What a diff shows: a line, a run of unchanged lines left out, or the changed lines past
    /// the limit, counted.
    public enum Row: Sendable, Equatable {
        case line(Line)
        case unchanged(Int)
        case moreChanges(Int)
    }

    /// Past this many cells of the table, the middle is shown as removed then added.
    static let maximumCells = 4_000_000

    /// One step of the edit script: a line of both texts, or of one of them, by its 0-based index.
    private enum Step {
        case same(Int, Int)
        case removed(Int)
        case added(Int)
    }

    /// Every line, unchanged ones included: for texts of a size a person edits.
    public static func lines(from old: String, to new: String) -> [Line] {
        if old == new {
            return old.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { Line(kind: .same, text: String($1), old: $0 + 1, new: $0 + 1) }
        }
        return rows(from: old, to: new, context: Int.max / 4, limit: Int.max).compactMap { row in
            if case .line(let line) = row { return line }
            return nil
        }
    }

    /// The rows to show: changed lines (at most `limit`) with `context` unchanged lines on each side.
    public static func rows(from old: String, to new: String, context: Int = 3, limit: Int = 2_000) -> [Row] {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let middleOld = prefix..<(a.count - suffix), middleNew = prefix..<(b.count - suffix)

        var emitter = Emitter(a: a, b: b, context: context, limit: limit)
        emitter.unchanged(oldFrom: 0, newFrom: 0, count: prefix)
        if middleOld.count * middleNew.count > maximumCells {
            for i in middleOld where !emitter.full { emitter.changed(.removed(i)) }
            emitter.skipChanges(middleOld.count - emitter.emittedChanges)
            let removed = emitter.emittedChanges
            for j in middleNew where !emitter.full { emitter.changed(.added(j)) }
            emitter.skipChanges(middleNew.count - (emitter.emittedChanges - removed))
        } else {
            for step in script(a[middleOld], b[middleNew]) {
                switch step {
                case .same(let i, let j): emitter.unchanged(oldFrom: i, newFrom: j, count: 1)
                default: if emitter.full { emitter.skipChanges(1) } else { emitter.changed(step) }
                }
            }
        }
        emitter.unchanged(oldFrom: a.count - suffix, newFrom: b.count - suffix, count: suffix)
        return emitter.finish()
    }

    /// The edit script of two short runs of lines, by the longest common subsequence; removed
    /// lines before added ones, as diffs show a change.
    private static func script(_ x: ArraySlice<Substring>, _ y: ArraySlice<Substring>) -> [Step] {
        let (x0, y0) = (x.startIndex, y.startIndex)
        let width = y.count + 1
        // lengths[i][j]: the longest common subsequence of x[i...] and y[j...].
        var lengths = [Int32](repeating: 0, count: (x.count + 1) * width)
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            for j in stride(from: y.count - 1, through: 0, by: -1) {
                lengths[i * width + j] = x[x0 + i] == y[y0 + j] ? lengths[(i + 1) * width + j + 1] + 1 : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var steps: [Step] = []
        var i = 0, j = 0
        while i < x.count || j < y.count {
            if i < x.count, j < y.count, x[x0 + i] == y[y0 + j] {
                steps.append(.same(x0 + i, y0 + j)); i += 1; j += 1
            } else if i < x.count, j == y.count || lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                steps.append(.removed(x0 + i)); i += 1
            } else {
                steps.append(.added(y0 + j)); j += 1
            }
        }
        return steps
    }

    /// Turns the script into rows as it goes: unchanged lines are held back until it is known
    /// whether a change comes within `context` of them.
    private struct Emitter {
        let a: [Substring], b: [Substring]
        let context: Int
        let limit: Int
        var rows: [Row] = []
        var emittedChanges = 0
        var more = 0
        /// Unchanged lines since the last change: the first `context` are shown after it; the
        /// last `context` before the next change; those between are counted.
        var pending: [(old: Int, new: Int)] = []
        var pendingCount = 0
        var afterChange = false

        init(a: [Substring], b: [Substring], context: Int, limit: Int) {
            (self.a, self.b, self.context, self.limit) = (a, b, context, limit)
        }

        var full: Bool { emittedChanges >= limit }

        mutating func unchanged(oldFrom: Int, newFrom: Int, count: Int) {
            guard !full else { return }
            for k in 0..<count {
                // Lines shown after the last change go out at once.
                if afterChange, pendingCount < context {
                    rows.append(.line(Line(kind: .same, text: String(a[oldFrom + k]), old: oldFrom + k + 1, new: newFrom + k + 1)))
                    pendingCount += 1
                    continue
                }
                pendingCount += 1
                pending.append((oldFrom + k, newFrom + k))
                // Only the last `context` may still be shown before the next change.
                if pending.count > context { pending.removeFirst(pending.count - context) }
                if count - k > 2 * context + 1 {
                    // A long run: jump to its last lines without holding each one.
                    let jump = count - k - context - 1
                    pendingCount += jump
                    pending = []
                    unchanged(oldFrom: oldFrom + k + 1 + jump, newFrom: newFrom + k + 1 + jump, count: count - k - 1 - jump)
                    return
                }
            }
        }

        mutating func changed(_ step: Step) {
            let shownBefore = afterChange ? min(pendingCount, context) : 0
            let skipped = pendingCount - shownBefore - pending.count
            if skipped > 0 { rows.append(.unchanged(skipped)) }
            for (old, new) in pending {
                rows.append(.line(Line(kind: .same, text: String(a[old]), old: old + 1, new: new + 1)))
            }
            (pending, pendingCount, afterChange) = ([], 0, true)
            switch step {
            case .removed(let i): rows.append(.line(Line(kind: .removed, text: String(a[i]), old: i + 1, new: nil)))
            case .added(let j): rows.append(.line(Line(kind: .added, text: String(b[j]), old: nil, new: j + 1)))
            case .same: break
            }
            emittedChanges += 1
        }

        mutating func skipChanges(_ count: Int) {
            more += max(0, count)
        }

        mutating func finish() -> [Row] {
            if more > 0 { return rows + [.moreChanges(more)] }
            // Unchanged lines after the last change, beyond those shown, are counted; a text
            // with no change at all shows none of its lines.
            let shown = afterChange ? min(pendingCount, context) : 0
            if afterChange, pendingCount > shown { rows.append(.unchanged(pendingCount - shown)) }
            if !afterChange, pendingCount > 0 { rows.append(.unchanged(pendingCount)) }
            return rows
        }
    }
}
