import GroupieCore
import Yams

/// How large a file's tree grows once its aliases are expanded. A `*name` alias repeats the
/// whole node anchored as `&name`, so a file of 200 KB can stand for hundreds of megabytes of
/// texts that every venue request would then send; such a file is refused where the alias is.
extension VenueParser {
    /// The most a file may stand for once expanded: as much as the largest file allowed.
    static let maxExpandedBytes = MissionFileReader.maxFileSize

    private struct NodeKey: Hashable {
        var line: Int
        var column: Int
        var kind: Int
    }

    /// The problem of a tree that expands past `maxExpandedBytes`, placed at the alias that
    /// repeats the most; nil when the tree is within the bound.
    func expansionProblem(_ root: Node, text: String) -> MissionProblem? {
        var sizes: [NodeKey: Int] = [:]
        let total = Self.expandedSize(root, sizes: &sizes)
        guard total > Self.maxExpandedBytes else { return nil }
        // The anchors, and every use of one, as written; an anchored node's size is the size of
        // the node that starts where its `&` is.
        let tokens = Self.anchorTokens(in: text)
        var anchorSizes: [String: Int] = [:]
        for token in tokens where token.isAnchor {
            anchorSizes[token.name] = (0..<3).compactMap { sizes[NodeKey(line: token.line, column: token.column, kind: $0)] }.max()
        }
        let uses = tokens.filter { !$0.isAnchor && anchorSizes[$0.name] != nil }
        guard let worst = uses.max(by: { anchorSizes[$0.name] ?? 0 < anchorSizes[$1.name] ?? 0 }) else {
            return MissionProblem(path: path, line: root.mark?.line ?? 1, column: root.mark?.column ?? 1, severity: .error, message: MissionMessages.tooComplex)
        }
        let message = MissionMessages.expandsTooMuch(
            alias: worst.name, repeated: anchorSizes[worst.name] ?? 0, uses: uses.filter { $0.name == worst.name }.count,
            expanded: total, limit: Self.maxExpandedBytes
        )
        return MissionProblem(path: path, line: worst.line, column: worst.column, severity: .error, message: message)
    }

    /// Bytes of text in `node` with every alias expanded (one more for each node), each
    /// distinct node measured once: an alias shares its anchor's place in the file.
    private static func expandedSize(_ node: Node, sizes: inout [NodeKey: Int]) -> Int {
        let kind: Int
        switch node {
        case .scalar: kind = 0
        case .sequence: kind = 1
        case .mapping: kind = 2
        }
        let key = node.mark.map { NodeKey(line: $0.line, column: $0.column, kind: kind) }
        if let key, let known = sizes[key] { return known }
        var size = 1
        switch node {
        case .scalar(let scalar): size += scalar.string.utf8.count
        case .sequence(let sequence): for item in sequence { size += expandedSize(item, sizes: &sizes) }
        case .mapping(let mapping):
            for (key, value) in mapping { size += expandedSize(key, sizes: &sizes) + expandedSize(value, sizes: &sizes) }
        }
        if let key { sizes[key] = size }
        return size
    }

    struct AnchorToken {
        var isAnchor: Bool
        var name: String
        var line: Int
        var column: Int
    }

    /// Every `&name` and `*name` that starts a node, with its line and column (counted in
    /// characters from 1, as the YAML parser counts them). Comments and quoted texts are
    /// skipped; a `*` inside a plain text may be taken for an alias, which only matters when it
    /// names a real anchor.
    static func anchorTokens(in text: String) -> [AnchorToken] {
        var tokens: [AnchorToken] = []
        var line = 1
        for content in text.split(separator: "\n", omittingEmptySubsequences: false) {
            defer { line += 1 }
            let scalars = Array(content.unicodeScalars)
            var index = 0
            var quote: Unicode.Scalar?
            while index < scalars.count {
                let scalar = scalars[index]
                if let open = quote {
                    if scalar == open { quote = nil }
                    index += 1
                    continue
                }
                let startsNode = index == 0 || [" ", "\t", "[", "{", ","].contains(scalars[index - 1])
                if scalar == "#", startsNode { break }
                if (scalar == "\"" || scalar == "'"), startsNode {
                    quote = scalar
                    index += 1
                    continue
                }
                if (scalar == "&" || scalar == "*"), startsNode {
                    var end = index + 1
                    while end < scalars.count, ![" ", "\t", ",", "[", "]", "{", "}"].contains(scalars[end]) { end += 1 }
                    if end > index + 1 {
                        let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                        tokens.append(AnchorToken(isAnchor: scalar == "&", name: name, line: line, column: index + 1))
                    }
                    index = end
                    continue
                }
                index += 1
            }
        }
        return tokens
    }
}
