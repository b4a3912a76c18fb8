import Foundation

/// The `Content-Range` of one part of a resumable upload: `bytes first-last/total` carries the
/// bytes `first…last` (inclusive) of a photo of `total` bytes; `bytes */total` carries none and
/// asks where the upload stands (and completes it when every byte is there).
struct ContentRange: Equatable, Sendable {
    /// The part's bytes, nil for `bytes */total`.
    var bytes: ClosedRange<Int>?
    var total: Int

    var length: Int { bytes.map { $0.count } ?? 0 }

    /// Nil for anything that is not exactly one of the two forms, with decimal numbers of at
    /// most 15 digits, `first ≤ last < total` and `total ≥ 1`.
    init?(_ header: String) {
        guard header.hasPrefix("bytes ") else { return nil }
        let value = header.dropFirst(6)
        let halves = value.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2, let total = Self.number(halves[1]), total >= 1 else { return nil }
        self.total = total
        if halves[0] == "*" {
            bytes = nil
            return
        }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Self.number(ends[0]), let last = Self.number(ends[1]), first <= last else { return nil }
        bytes = first...last
    }

    init(bytes: ClosedRange<Int>?, total: Int) {
        self.bytes = bytes
        self.total = total
    }

    /// The range lies inside the photo.
    var isWithinTotal: Bool { (bytes?.upperBound ?? 0) < total }

    private static func number(_ text: Substring) -> Int? {
        guard (1...15).contains(text.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
