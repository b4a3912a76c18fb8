import Foundation
import GroupieCore
import Yams

/// The kinds of value that venue, missions and tasks share: texts, ids, whole numbers and asset files.
extension VenueParser {
    /// A text: a plain string, or a map from language code to string covering every venue language.
    func text(_ node: Node, key: String) throws -> LocalizedText? {
        try count()
        switch node {
        case .scalar:
            // Block scalars (`|`, `>`) end in a line break that nobody means to show.
            guard let trimmed = node.scalarText?.trimmingWhitespace(), !trimmed.isEmpty else {
                error(node.mark, MissionMessages.emptyText(key))
                return nil
            }
            guard isShortEnough(trimmed, at: node.mark, key: key) else { return nil }
            return .plain(trimmed)
        case .sequence:
            error(node.mark, MissionMessages.textIsList(key))
            return nil
        case .mapping(let mapping):
            var texts: [String: String] = [:]
            var firstSeen: [String: Mark?] = [:]
            var valid = true
            for (languageNode, valueNode) in mapping {
                try count()
                guard let language = languageNode.scalar?.string, LanguageCode.isValid(language) else {
                    reportInvalidLanguage(languageNode.scalar?.string ?? "", at: languageNode.mark)
                    valid = false
                    continue
                }
                if let first = firstSeen[language] {
                    error(languageNode.mark, MissionMessages.duplicateTranslation(language, in: key, firstAt: first))
                    valid = false
                    continue
                }
                firstSeen[language] = languageNode.mark
                guard let value = valueNode.scalarText, !value.trimmingWhitespace().isEmpty else {
                    error(valueNode.mark, MissionMessages.emptyTranslation(key, language: language))
                    valid = false
                    continue
                }
                guard isShortEnough(value, at: valueNode.mark, key: key) else {
                    valid = false
                    continue
                }
                if !languages.isEmpty, !languages.contains(language) {
                    warning(languageNode.mark, MissionMessages.translationNeverShown(language, venueLanguages: languages))
                }
                texts[language] = value.trimmingWhitespace()
            }
            if texts.isEmpty, valid {
                error(node.mark, MissionMessages.emptyText(key))
                return nil
            }
            for language in languages where firstSeen[language] == nil {
                error(node.mark, MissionMessages.missingTranslation(key, language: language, venueLanguages: languages))
                valid = false
            }
            return valid ? .translated(texts) : nil
        }
    }

    /// The longest text a phone is asked to show: far more than a prompt, a hint or a fact needs.
    static let maxTextLength = 2_000
    /// The same in bytes: 2,000 characters of any script (a syllable of Devanagari or Bengali may
    /// take nine bytes) fit in it, but not characters with marks piled on them.
    static let maxTextBytes = 16 * 1024

    /// Whether `text` is within `maxTextLength` characters and `maxTextBytes` bytes, with no
    /// character carrying more marks than a script needs (as names); reports it where it is when not.
    func isShortEnough(_ text: String, at mark: Mark?, key: String) -> Bool {
        // Counted in bytes first, so that a text of megabytes is not walked character by character.
        if text.utf8.count > Self.maxTextBytes {
            error(mark, MissionMessages.textTooManyBytes(key, bytes: text.utf8.count, limit: Self.maxTextBytes))
            return false
        }
        if text.utf8.count > Self.maxTextLength, text.count > Self.maxTextLength {
            error(mark, MissionMessages.textTooLong(key, length: text.count, limit: Self.maxTextLength))
            return false
        }
        let overloaded = text.contains { character in
            character.unicodeScalars.count > DisplayName.maximumScalarsPerCharacter
                || character.unicodeScalars.filter { $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .enclosingMark }.count
                    > DisplayName.maximumMarksPerCharacter
        }
        if overloaded {
            error(mark, MissionMessages.textOverloaded(key, limit: DisplayName.maximumMarksPerCharacter))
            return false
        }
        return true
    }

    func identifier(_ node: Node, describedAs name: String) -> String? {
        guard let value = node.scalarText else {
            error(node.mark, MissionMessages.identifierNotWord(name, found: node))
            return nil
        }
        guard Identifier.isValid(value) else {
            if value.count > Identifier.maxLength {
                error(node.mark, MissionMessages.identifierTooLong(name, value))
            } else {
                let suggestion = Self.suggestedIdentifier(value)
                error(node.mark, MissionMessages.identifierCharacters(name, value, suggestion: Identifier.isValid(suggestion) ? suggestion : nil))
            }
            return nil
        }
        return value
    }

    /// The id a staff member most likely meant: accents dropped, lowercased, other characters as '-'.
    static func suggestedIdentifier(_ value: String) -> String {
        let folded = value.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var result = ""
        for scalar in folded.unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, result.last != "-" {
                result.append("-")
            }
        }
        while result.last == "-" { result.removeLast() }
        return result
    }

    /// One of a fixed set of words, e.g. `camera: front`; `what` names the setting in messages.
    func choice<Choice: CaseIterable & RawRepresentable>(_ node: Node, key: String, describedAs what: String) -> Choice?
    where Choice.RawValue == String {
        let choices = Choice.allCases.map(\.rawValue)
        guard let value = node.scalarText else {
            error(node.mark, MissionMessages.choiceNotScalar(key, node, choices: choices))
            return nil
        }
        if let choice = Choice(rawValue: value) { return choice }
        error(node.mark, MissionMessages.unknownChoice(what, value, choices: choices, suggestion: Suggestion.closest(to: value, among: choices)))
        return nil
    }

    func integer(_ node: Node, key: String, range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            error(node.mark, MissionMessages.notWholeNumber(key, range: range, found: node))
            return nil
        }
        guard range.contains(value) else {
            error(node.mark, MissionMessages.outOfRange(key, range: range, value: value))
            return nil
        }
        return value
    }

    /// A file under the assets folder: relative, without `..`, and present.
    func asset(_ node: Node, key: String) -> String? {
        guard let value = node.scalarText, !value.isEmpty else {
            error(node.mark, MissionMessages.assetNotPath(key, found: node))
            return nil
        }
        let components = value.split(separator: "/", omittingEmptySubsequences: false)
        if value.hasPrefix("/") || value.contains("\\") || components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) {
            error(node.mark, MissionMessages.assetOutsideFolder(key, path: value))
            return nil
        }
        if let assetsDirectory {
            let exists: Bool
            if let known = checkedAssets[value] {
                exists = known
            } else {
                // A regular file (or a link to one): a FIFO named as a sticker would block the
                // collage that reads it.
                var info = stat()
                exists = stat(assetsDirectory + "/" + value, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
                checkedAssets[value] = exists
            }
            if !exists {
                let folder = URL(fileURLWithPath: assetsDirectory).standardizedFileURL.path
                error(node.mark, MissionMessages.assetMissing(key, path: value, folder: folder))
                return nil
            }
        }
        return value
    }
}
