import Foundation
import GroupieCore
import Yams

/// The venue: the top of the file, its languages, time zone, theme and rules.
extension VenueParser {
    static let venueKeys = ["id", "name", "languages", "description", "timezone", "theme", "rules", "review", "paper", "map", "points", "missions"]
    static let venueRequired = ["id", "name", "languages", "timezone", "theme", "missions"]
    static let themeKeys = ["color", "logo"]
    static let rulesKeys = ["max_group_size", "joinable_hours"]
    static let maxGroupSizeRange = 2...50
    static let joinableHoursRange = 1...168

    func venue(_ root: Node) throws -> Venue? {
        guard let fields = try mapping(root, describedAs: MissionMessages.venueName, allowed: Self.venueKeys, required: Self.venueRequired) else {
            return nil
        }
        let id = fields["id"].flatMap { identifier($0, describedAs: MissionMessages.venueId) }
        if let id, let idNode = fields["id"], id != expectedId {
            error(idNode.mark, MissionMessages.venueIdMismatch(id, fileName: expectedId))
        }
        languages = fields["languages"].map(languageList) ?? []
        let name = try fields["name"].flatMap { try text($0, key: "name") }
        let description = try fields["description"].flatMap { try text($0, key: "description") }
        let timeZone = fields["timezone"].flatMap(timeZone)
        let theme = try fields["theme"].flatMap(theme)
        let rules = try fields["rules"].map(rules) ?? VenueRules()
        let review: PhotoReview? = fields["review"].map { choice($0, key: "review", describedAs: "review setting") } ?? PhotoReview.none
        let paper: PaperSize? = fields["paper"].map { choice($0, key: "paper", describedAs: "paper size") } ?? PaperSize.a4
        hasMap = fields["map"] != nil
        let map = fields["map"].flatMap { asset($0, key: "map") }
        let scoring = try fields["points"].map(points)
        let missions = try fields["missions"].flatMap(missions)

        guard let id, let name, !languages.isEmpty, let timeZone, let theme, let rules, let review, let paper, let missions else { return nil }
        if fields["map"] != nil, map == nil { return nil }
        if let scoring, scoring == nil { return nil }
        return Venue(
            id: id, name: name, languages: languages, description: description,
            timeZone: timeZone, theme: theme, rules: rules, missions: missions, map: map, review: review, points: scoring ?? nil,
            paper: paper
        )
    }

    private func languageList(_ node: Node) -> [String] {
        guard case .sequence(let sequence) = node else {
            if case .scalar = node, !node.isNull {
                error(node.mark, MissionMessages.languagesSingleText)
            } else {
                error(node.mark, MissionMessages.languagesNotList(node))
            }
            return []
        }
        if sequence.isEmpty {
            error(node.mark, MissionMessages.noLanguages)
            return []
        }
        var codes: [String] = []
        var seen: [String: Mark?] = [:]
        for item in sequence {
            guard let code = item.scalarText else {
                error(item.mark, MissionMessages.languageNotCode(item))
                continue
            }
            guard LanguageCode.isValid(code) else {
                reportInvalidLanguage(code, at: item.mark)
                continue
            }
            if let first = seen[code] {
                error(item.mark, MissionMessages.languageTwice(code, firstAt: first))
                continue
            }
            seen[code] = item.mark
            codes.append(code)
        }
        // The valid codes are kept so that translations are still checked; the errors above
        // already keep the venue from being served.
        return codes
    }

    /// Also used for the language keys of translated texts; a code in the wrong case is corrected.
    func reportInvalidLanguage(_ code: String, at mark: Mark?) {
        let lowered = code.lowercased()
        error(mark, MissionMessages.invalidLanguage(code, suggestion: LanguageCode.isValid(lowered) ? lowered : nil))
    }

    private func timeZone(_ node: Node) -> String? {
        guard let name = node.scalarText, !name.isEmpty else {
            error(node.mark, MissionMessages.timeZoneNotName(node))
            return nil
        }
        if TimeZone(identifier: name) != nil, name.contains("/") || name == "UTC" {
            return name
        }
        let suggestion = Suggestion.closest(to: name, among: TimeZone.knownTimeZoneIdentifiers)
        error(node.mark, MissionMessages.unknownTimeZone(name, suggestion: suggestion))
        return nil
    }

    private func theme(_ node: Node) throws -> Theme? {
        guard let fields = try mapping(node, describedAs: MissionMessages.themeName, allowed: Self.themeKeys, required: ["color"]) else { return nil }
        var color: String?
        if let colorNode = fields["color"] {
            let value = colorNode.scalarText ?? ""
            if Self.isHexColor(value) {
                color = value.lowercased()
            } else {
                error(colorNode.mark, MissionMessages.colorNotHex)
            }
        }
        let logo = fields["logo"].flatMap { asset($0, key: "logo") }
        if fields["logo"] != nil, logo == nil { return nil }
        guard let color else { return nil }
        return Theme(color: color, logo: logo)
    }

    static func isHexColor(_ value: String) -> Bool {
        value.count == 7 && value.first == "#" && value.utf8.dropFirst().allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }

    private func rules(_ node: Node) throws -> VenueRules? {
        guard let fields = try mapping(node, describedAs: MissionMessages.rulesName, allowed: Self.rulesKeys, required: []) else { return nil }
        var rules = VenueRules()
        var valid = true
        if let sizeNode = fields["max_group_size"] {
            if let size = integer(sizeNode, key: "max_group_size", range: Self.maxGroupSizeRange) {
                rules.maxGroupSize = size
            } else {
                valid = false
            }
        }
        if let hoursNode = fields["joinable_hours"] {
            if let hours = integer(hoursNode, key: "joinable_hours", range: Self.joinableHoursRange) {
                rules.joinableHours = hours
            } else {
                valid = false
            }
        }
        return valid ? rules : nil
    }
}
