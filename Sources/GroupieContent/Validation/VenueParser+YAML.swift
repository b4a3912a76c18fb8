import GroupieCore
import Yams

/// Walking the YAML tree: a mapping's keys, sibling ids, and the bound on how much is walked.
extension VenueParser {
    /// The known keys of one mapping, each with its key node so that a problem can point at the key.
    struct Fields {
        var values: [String: (key: Node, value: Node)]
        subscript(key: String) -> Node? { values[key]?.value }
        func keyMark(_ key: String) -> Mark? { values[key]?.key.mark }
    }

    /// A mapping's known keys; reports duplicates, unknown keys (with a suggestion) and missing ones.
    func mapping(_ node: Node, describedAs name: String, allowed: [String], required: [String]) throws -> Fields? {
        try count()
        guard case .mapping(let mapping) = node else {
            error(node.mark, MissionMessages.notMapping(name, allowed: allowed, found: node))
            return nil
        }
        var values: [String: (key: Node, value: Node)] = [:]
        var suggested = Set<String>()
        for (key, value) in mapping {
            guard let keyText = key.scalar?.string else {
                error(key.mark, MissionMessages.keyNotWord(in: name, example: allowed[0]))
                continue
            }
            if let first = values[keyText] {
                error(key.mark, MissionMessages.duplicateKey(keyText, in: name, firstAt: first.key.mark))
                continue
            }
            guard allowed.contains(keyText) else {
                let suggestion = Suggestion.closest(to: keyText, among: allowed.filter { values[$0] == nil })
                if let suggestion { suggested.insert(suggestion) }
                error(key.mark, MissionMessages.unknownKey(keyText, in: name, suggestion: suggestion, allowed: allowed))
                continue
            }
            values[keyText] = (key, value)
        }
        // A misspelt key has already been named with its correction; it is not also "missing".
        for key in required where values[key] == nil && !suggested.contains(key) {
            error(node.mark, MissionMessages.missingKey(key, in: name))
        }
        return Fields(values: values)
    }

    /// Reports an id already seen among its siblings. Duplicates are looked for among every
    /// readable id, also of entries with other problems, so that one error does not hide another.
    func isDuplicateId(of node: Node, seen: inout [String: Mark?], _ message: (_ id: String, _ firstAt: Mark?) -> String) -> Bool {
        guard let (id, mark) = node.rawId, Identifier.isValid(id) else { return false }
        if let first = seen[id] {
            error(mark, message(id, first))
            return true
        }
        seen[id] = mark
        return false
    }

    /// Counts one more node walked; aliases can make a small file a huge tree.
    func count() throws {
        visits += 1
        if visits > Self.maxVisits { throw TooComplex() }
    }
}

extension Node {
    /// An empty value (`key:` with nothing after it, `~`, `null`), which the rules treat as absent.
    var isNull: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The scalar's text, nil for a mapping, a list or an empty value.
    var scalarText: String? {
        guard case .scalar(let scalar) = self, !isNull else { return nil }
        return scalar.string
    }

    /// The scalar value of a mapping's `key` as written, before any rule is checked.
    func rawValue(of key: String) -> String? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping.first { $0.key.scalar?.string == key }?.value.scalarText
    }

    /// The `id:` of a mapping as written, before any rule is checked; for naming it in messages.
    var rawId: (id: String, mark: Mark?)? {
        guard case .mapping(let mapping) = self else { return nil }
        for (key, value) in mapping where key.scalar?.string == "id" {
            return value.scalarText.map { ($0, value.mark) }
        }
        return nil
    }
}
