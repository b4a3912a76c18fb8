import Foundation
import GroupieCore
import Yams

/// Walks the YAML tree of one mission file along the format's rules, collecting every
/// problem with its position instead of stopping at the first.
final class VenueParser {
    static let venueKeys = ["id", "name", "languages", "description", "timezone", "theme", "rules", "missions"]
    static let venueRequired = ["id", "name", "languages", "timezone", "theme", "missions"]
    static let themeKeys = ["color", "logo"]
    static let rulesKeys = ["max_group_size", "joinable_hours"]
    static let missionKeys = ["id", "title", "icon", "area", "after", "fact", "style", "sticker", "tasks"]
    static let missionRequired = ["id", "title", "icon", "tasks"]
    static let taskKeys = ["id", "prompt", "hint"]
    static let taskRequired = ["id", "prompt"]
    static let maxGroupSizeRange = 2...50
    static let joinableHoursRange = 1...168
    /// Bounds the work a file of YAML aliases pointing at aliases could ask for.
    static let maxVisits = 2_000_000

    private let path: String
    private let expectedId: String
    private let assetsDirectory: String?
    private(set) var problems: [MissionProblem] = []
    private var languages: [String] = []
    private var visits = 0
    private var checkedAssets: [String: Bool] = [:]

    private struct TooComplex: Error {}

    init(path: String, expectedId: String, assetsDirectory: String?) {
        self.path = path
        self.expectedId = expectedId
        self.assetsDirectory = assetsDirectory
    }

    // MARK: - Problems

    private func error(_ mark: Mark?, _ message: String) {
        problems.append(MissionProblem(path: path, line: mark?.line ?? 1, column: mark?.column ?? 1, severity: .error, message: message))
    }

    private func warning(_ mark: Mark?, _ message: String) {
        problems.append(MissionProblem(path: path, line: mark?.line ?? 1, column: mark?.column ?? 1, severity: .warning, message: message))
    }

    // MARK: - Document

    func parse(_ text: String) -> Venue? {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let yamlError as YamlError {
            report(yamlError, in: text)
            return nil
        } catch {
            self.error(nil, "YAML syntax error: \(error)")
            return nil
        }
        guard let root, !isNull(root) else {
            error(nil, "the file is empty; a mission file starts with the venue's id, name, languages, timezone, theme and missions")
            return nil
        }
        do {
            return try venue(root)
        } catch {
            self.error(root.mark, "the file is too complex to check (YAML aliases repeat too much of it); write it out without '*' aliases")
            return nil
        }
    }

    private func report(_ yamlError: YamlError, in text: String) {
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            var message = "YAML syntax error: \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            error(mark, message)
        case .reader(let problem, let offset, _, _):
            let prefix = text.utf8.prefix(offset ?? 0)
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = (String(decoding: prefix.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).last ?? [], as: UTF8.self)).unicodeScalars.count + 1
            problems.append(MissionProblem(path: path, line: line, column: column, severity: .error, message: "YAML syntax error: \(problem)"))
        default:
            error(nil, "YAML syntax error: \(yamlError)")
        }
    }

    // MARK: - Venue

    private func venue(_ root: Node) throws -> Venue? {
        guard let fields = try mapping(root, describedAs: "the venue", allowed: Self.venueKeys, required: Self.venueRequired) else {
            return nil
        }
        let id = fields["id"].flatMap { identifier($0, describedAs: "venue id") }
        if let id, let idNode = fields["id"], id != expectedId {
            error(idNode.mark, "venue id '\(id)' must equal the file name '\(expectedId)'; rename the file to '\(id).yaml' or change the id")
        }
        languages = fields["languages"].map(languageList) ?? []
        let name = try fields["name"].flatMap { try text($0, key: "name") }
        let description = try fields["description"].flatMap { try text($0, key: "description") }
        let timeZone = fields["timezone"].flatMap(timeZone)
        let theme = try fields["theme"].flatMap(theme)
        let rules = try fields["rules"].map(rules) ?? VenueRules()
        let missions = try fields["missions"].flatMap(missions)

        guard let id, let name, !languages.isEmpty, let timeZone, let theme, let rules, let missions else { return nil }
        return Venue(
            id: id, name: name, languages: languages, description: description,
            timeZone: timeZone, theme: theme, rules: rules, missions: missions
        )
    }

    private func languageList(_ node: Node) -> [String] {
        guard case .sequence(let sequence) = node else {
            if case .scalar = node, !isNull(node) {
                error(node.mark, "'languages' must be a list, e.g. [sv, en], not a single text")
            } else {
                error(node.mark, "'languages' must be a list of language codes such as [sv, en], not \(kind(node))")
            }
            return []
        }
        if sequence.isEmpty {
            error(node.mark, "'languages' must name at least one language")
            return []
        }
        var codes: [String] = []
        var seen: [String: Mark?] = [:]
        for item in sequence {
            guard let code = scalarText(item) else {
                error(item.mark, "each language must be a code such as 'en', not \(kind(item))")
                continue
            }
            guard LanguageCode.isValid(code) else {
                error(item.mark, invalidLanguageMessage(code))
                continue
            }
            if let first = seen[code] {
                error(item.mark, "language '\(code)' is listed twice (first at line \(first?.line ?? 1))")
                continue
            }
            seen[code] = item.mark
            codes.append(code)
        }
        // The valid codes are kept so that translations are still checked; the errors above
        // already keep the venue from being served.
        return codes
    }

    private func invalidLanguageMessage(_ code: String) -> String {
        var message = "'\(code)' is not a valid language code; use ISO 639-1 codes such as 'en', 'sv', 'fr' (optionally with a region: 'en-GB')"
        if let lowered = LanguageCode.isValid(code.lowercased()) ? code.lowercased() : nil {
            message += "; did you mean '\(lowered)'?"
        }
        return message
    }

    private func timeZone(_ node: Node) -> String? {
        guard let name = scalarText(node), !name.isEmpty else {
            error(node.mark, "'timezone' must be a time zone name such as 'Europe/Stockholm', not \(kind(node))")
            return nil
        }
        if TimeZone(identifier: name) != nil, name.contains("/") || name == "UTC" {
            return name
        }
        if let suggestion = Suggestion.closest(to: name, among: TimeZone.knownTimeZoneIdentifiers) {
            error(node.mark, "'\(name)' is not a known time zone; did you mean '\(suggestion)'?")
        } else {
            error(node.mark, "'\(name)' is not a known time zone; use a name from the tz database such as 'Europe/Stockholm'")
        }
        return nil
    }

    private func theme(_ node: Node) throws -> Theme? {
        guard let fields = try mapping(node, describedAs: "theme", allowed: Self.themeKeys, required: ["color"]) else { return nil }
        var color: String?
        if let colorNode = fields["color"] {
            let value = scalarText(colorNode) ?? ""
            if Self.isHexColor(value) {
                color = value.lowercased()
            } else {
                error(colorNode.mark, "'color' must be a colour written as '#' and six hex digits, e.g. \"#1a7f5a\" (in quotes)")
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
        guard let fields = try mapping(node, describedAs: "rules", allowed: Self.rulesKeys, required: []) else { return nil }
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

    // MARK: - Missions

    private func missions(_ node: Node) throws -> [Mission]? {
        guard case .sequence(let sequence) = node else {
            error(node.mark, "'missions' must be a list of missions (each starting with '- id:'), not \(kind(node))")
            return nil
        }
        if sequence.isEmpty {
            error(node.mark, "'missions' must hold at least one mission")
            return nil
        }
        var missions: [Mission] = []
        var afterMarks: [String: Mark?] = [:]
        var firstSeen: [String: Mark?] = [:]
        var allValid = true
        for (position, item) in sequence.enumerated() {
            let isDuplicate = isDuplicateId(of: item, seen: &firstSeen) { "duplicate mission id '\($0)'" }
            guard let parsed = try mission(item, position: position + 1), !isDuplicate else {
                allValid = false
                continue
            }
            afterMarks[parsed.mission.id] = parsed.afterMark
            missions.append(parsed.mission)
        }
        // References are checked against every mission that has a readable id, so that one
        // broken mission does not hide problems in the others.
        let known = Set(firstSeen.keys)
        for mission in missions {
            for reference in mission.after where !known.contains(reference) {
                var message = "mission '\(mission.id)' comes after unknown mission '\(reference)'"
                if let suggestion = Suggestion.closest(to: reference, among: known) {
                    message += "; did you mean '\(suggestion)'?"
                }
                error(afterMarks[mission.id] ?? nil, message)
                allValid = false
            }
        }
        for cycle in MissionOrder.cycles(in: missions) {
            let message = cycle.count == 2
                ? "mission '\(cycle[0])' comes after itself"
                : "missions wait for each other in a circle: \(cycle.joined(separator: " → ")); no group could ever start them"
            error(afterMarks[cycle[0]] ?? nil, message)
            allValid = false
        }
        return allValid ? missions : nil
    }

    private func mission(_ node: Node, position: Int) throws -> (mission: Mission, afterMark: Mark?)? {
        let label = rawId(of: node).map { "mission '\($0.id)'" } ?? "mission \(position)"
        guard let fields = try mapping(node, describedAs: label, allowed: Self.missionKeys, required: Self.missionRequired) else {
            return nil
        }
        let id = fields["id"].flatMap { identifier($0, describedAs: "mission id") }
        let title = try fields["title"].flatMap { try text($0, key: "title") }
        let icon = fields["icon"].flatMap { asset($0, key: "icon") }
        let area = try fields["area"].flatMap { try text($0, key: "area") }
        let fact = try fields["fact"].flatMap { try text($0, key: "fact") }
        let after = fields["after"].flatMap(afterList)
        var style = VisualStyle.auto
        var styleValid = true
        if let styleNode = fields["style"] {
            if let value = scalarText(styleNode), let parsed = VisualStyle(rawValue: value) {
                style = parsed
            } else {
                let value = scalarText(styleNode) ?? ""
                var message = "unknown style '\(value)'; use one of \(VisualStyle.allCases.map(\.rawValue).joined(separator: ", "))"
                if let suggestion = Suggestion.closest(to: value, among: VisualStyle.allCases.map(\.rawValue)) {
                    message += "; did you mean '\(suggestion)'?"
                }
                error(styleNode.mark, message)
                styleValid = false
            }
        }
        var sticker: String?
        var stickerValid = true
        if let stickerNode = fields["sticker"] {
            sticker = asset(stickerNode, key: "sticker")
            stickerValid = sticker != nil
            if styleValid, style != .sticker {
                warning(fields.keyMark("sticker"), "'sticker' is only used with 'style: sticker'; this mission's style is '\(style.rawValue)'")
            }
        } else if style == .sticker {
            error(fields["style"]?.mark, "\(label) has 'style: sticker' but no 'sticker' file")
            stickerValid = false
        }
        let tasks = try fields["tasks"].flatMap { try self.tasks($0, missionLabel: label) }

        if styleValid, style == .sticker, let tasks, tasks.count > 1, let tasksNode = fields["tasks"] {
            error(tasksNode.mark, "\(label) has style 'sticker', which shows one photo, but \(tasks.count) tasks; use one task or another style")
            return nil
        }
        guard let id, let title, let icon, let tasks, styleValid, stickerValid else { return nil }
        if fields["area"] != nil, area == nil { return nil }
        if fields["fact"] != nil, fact == nil { return nil }
        if fields["after"] != nil, after == nil { return nil }
        let mission = Mission(
            id: id, title: title, icon: icon, area: area, after: after ?? [], fact: fact,
            style: style, sticker: style == .sticker ? sticker : nil, tasks: tasks
        )
        return (mission, fields["after"]?.mark)
    }

    private func afterList(_ node: Node) -> [String]? {
        let items: [Node]
        switch node {
        case .scalar:
            items = [node]
        case .sequence(let sequence):
            items = Array(sequence)
        case .mapping:
            error(node.mark, "'after' must be a mission id or a list of mission ids, not a mapping")
            return nil
        }
        var ids: [String] = []
        var valid = true
        for item in items {
            guard let id = identifier(item, describedAs: "'after' entry") else {
                valid = false
                continue
            }
            if !ids.contains(id) { ids.append(id) }
        }
        return valid ? ids : nil
    }

    private func tasks(_ node: Node, missionLabel: String) throws -> [MissionTask]? {
        guard case .sequence(let sequence) = node else {
            error(node.mark, "'tasks' must be a list of tasks (each starting with '- id:'), not \(kind(node))")
            return nil
        }
        var valid = true
        if !Mission.taskRange.contains(sequence.count) {
            let count = sequence.count == 1 ? "1 task" : "\(sequence.count) tasks"
            error(node.mark, "\(missionLabel) has \(count); a mission needs 1 to 9")
            valid = false
        }
        var tasks: [MissionTask] = []
        var firstSeen: [String: Mark?] = [:]
        for (position, item) in sequence.enumerated() {
            let label = rawId(of: item).map { "task '\($0.id)'" } ?? "task \(position + 1)"
            if isDuplicateId(of: item, seen: &firstSeen, { "duplicate task id '\($0)' in \(missionLabel)" }) {
                valid = false
            }
            guard let fields = try mapping(item, describedAs: "\(label) of \(missionLabel)", allowed: Self.taskKeys, required: Self.taskRequired) else {
                valid = false
                continue
            }
            let id = fields["id"].flatMap { identifier($0, describedAs: "task id") }
            let prompt = try fields["prompt"].flatMap { try text($0, key: "prompt") }
            let hint = try fields["hint"].flatMap { try text($0, key: "hint") }
            guard let id, let prompt, fields["hint"] == nil || hint != nil else {
                valid = false
                continue
            }
            tasks.append(MissionTask(id: id, prompt: prompt, hint: hint))
        }
        return valid ? tasks : nil
    }

    // MARK: - Values

    struct Fields {
        var values: [String: (key: Node, value: Node)]
        subscript(key: String) -> Node? { values[key]?.value }
        func keyMark(_ key: String) -> Mark? { values[key]?.key.mark }
    }

    /// A mapping's known keys; reports duplicates, unknown keys (with a suggestion) and missing ones.
    private func mapping(_ node: Node, describedAs name: String, allowed: [String], required: [String]) throws -> Fields? {
        try count()
        guard case .mapping(let mapping) = node else {
            error(node.mark, "\(name) must be a mapping of keys (\(allowed.joined(separator: ", "))), not \(kind(node))")
            return nil
        }
        var values: [String: (key: Node, value: Node)] = [:]
        var suggested = Set<String>()
        for (key, value) in mapping {
            guard let keyText = key.scalar?.string else {
                error(key.mark, "keys in \(name) must be plain words such as '\(allowed[0])'")
                continue
            }
            if let first = values[keyText] {
                error(key.mark, "duplicate key '\(keyText)' in \(name) (first at line \(first.key.mark?.line ?? 1))")
                continue
            }
            guard allowed.contains(keyText) else {
                var message = "unknown key '\(keyText)' in \(name)"
                if let suggestion = Suggestion.closest(to: keyText, among: allowed.filter { values[$0] == nil }) {
                    message += "; did you mean '\(suggestion)'?"
                    suggested.insert(suggestion)
                } else {
                    message += "; allowed keys are \(allowed.joined(separator: ", "))"
                }
                error(key.mark, message)
                continue
            }
            values[keyText] = (key, value)
        }
        // A misspelt key has already been named with its correction; it is not also "missing".
        for key in required where values[key] == nil && !suggested.contains(key) {
            error(node.mark, "\(name) is missing the required key '\(key)'")
        }
        return Fields(values: values)
    }

    /// A text: a plain string, or a map from language code to string covering every venue language.
    private func text(_ node: Node, key: String) throws -> LocalizedText? {
        try count()
        switch node {
        case .scalar:
            guard let value = scalarText(node) else {
                error(node.mark, "'\(key)' must not be empty")
                return nil
            }
            // Block scalars (`|`, `>`) end in a line break that nobody means to show.
            let trimmed = value.trimmingWhitespace()
            guard !trimmed.isEmpty else {
                error(node.mark, "'\(key)' must not be empty")
                return nil
            }
            return .plain(trimmed)
        case .sequence:
            error(node.mark, "'\(key)' must be a text or a map of language to text, not a list")
            return nil
        case .mapping(let mapping):
            var texts: [String: String] = [:]
            var firstSeen: [String: Mark?] = [:]
            var valid = true
            for (languageNode, valueNode) in mapping {
                try count()
                guard let language = languageNode.scalar?.string, LanguageCode.isValid(language) else {
                    error(languageNode.mark, invalidLanguageMessage(languageNode.scalar?.string ?? ""))
                    valid = false
                    continue
                }
                if let first = firstSeen[language] {
                    error(languageNode.mark, "duplicate key '\(language)' in '\(key)' (first at line \(first?.line ?? 1))")
                    valid = false
                    continue
                }
                firstSeen[language] = languageNode.mark
                guard let value = scalarText(valueNode), !value.trimmingWhitespace().isEmpty else {
                    error(valueNode.mark, "'\(key)' in '\(language)' must not be empty")
                    valid = false
                    continue
                }
                if !languages.isEmpty, !languages.contains(language) {
                    warning(languageNode.mark, "'\(language)' is not one of the venue's languages (\(languages.joined(separator: ", "))); this text is never shown")
                }
                texts[language] = value.trimmingWhitespace()
            }
            if texts.isEmpty, valid {
                error(node.mark, "'\(key)' must not be empty")
                return nil
            }
            for language in languages where firstSeen[language] == nil {
                error(node.mark, "'\(key)' has no '\(language)' text; every text needs one for each of the venue's languages (\(languages.joined(separator: ", ")))")
                valid = false
            }
            return valid ? .translated(texts) : nil
        }
    }

    private func identifier(_ node: Node, describedAs name: String) -> String? {
        guard let value = scalarText(node) else {
            error(node.mark, "\(name) must be a word such as 'shark-tunnel', not \(kind(node))")
            return nil
        }
        guard Identifier.isValid(value) else {
            let suggestion = Self.suggestedIdentifier(value)
            var message = "\(name) '\(value)' may only use lowercase letters a-z, digits and '-'"
            if value.count > Identifier.maxLength {
                message = "\(name) '\(value.prefix(20))…' is longer than \(Identifier.maxLength) characters"
            } else if Identifier.isValid(suggestion) {
                message += "; did you mean '\(suggestion)'?"
            }
            error(node.mark, message)
            return nil
        }
        return value
    }

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

    private func integer(_ node: Node, key: String, range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            let found = node.scalar.map { "'\($0.string)'" } ?? kind(node)
            error(node.mark, "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound) (without quotes), not \(found)")
            return nil
        }
        guard range.contains(value) else {
            error(node.mark, "'\(key)' must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            return nil
        }
        return value
    }

    /// A file under the assets folder: relative, without `..`, and present.
    private func asset(_ node: Node, key: String) -> String? {
        guard let value = scalarText(node), !value.isEmpty else {
            error(node.mark, "'\(key)' must be a file path under the assets folder, such as 'icons/shark.svg', not \(kind(node))")
            return nil
        }
        let components = value.split(separator: "/", omittingEmptySubsequences: false)
        if value.hasPrefix("/") || value.contains("\\") || components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) {
            error(node.mark, "\(key) file '\(value)' must be a path inside the assets folder, such as 'icons/shark.svg'")
            return nil
        }
        if let assetsDirectory {
            let exists: Bool
            if let known = checkedAssets[value] {
                exists = known
            } else {
                var isDirectory: ObjCBool = false
                exists = FileManager.default.fileExists(atPath: assetsDirectory + "/" + value, isDirectory: &isDirectory) && !isDirectory.boolValue
                checkedAssets[value] = exists
            }
            if !exists {
                error(node.mark, "\(key) file '\(value)' does not exist in the assets folder")
                return nil
            }
        }
        return value
    }

    // MARK: - Node helpers

    /// Reports an id already seen among its siblings. Duplicates are looked for among every
    /// readable id, also of entries with other problems, so that one error does not hide another.
    private func isDuplicateId(of node: Node, seen: inout [String: Mark?], _ message: (String) -> String) -> Bool {
        guard let (id, mark) = rawId(of: node), Identifier.isValid(id) else { return false }
        if let first = seen[id] {
            error(mark, "\(message(id)) (first at line \(first?.line ?? 1))")
            return true
        }
        seen[id] = mark
        return false
    }

    /// The `id:` of a mapping as written, before any rule is checked; for naming it in messages.
    private func rawId(of node: Node) -> (id: String, mark: Mark?)? {
        guard case .mapping(let mapping) = node else { return nil }
        for (key, value) in mapping where key.scalar?.string == "id" {
            return scalarText(value).map { ($0, value.mark) }
        }
        return nil
    }

    private func count() throws {
        visits += 1
        if visits > Self.maxVisits { throw TooComplex() }
    }

    private func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The scalar's text, nil for a mapping, a list or an empty value.
    private func scalarText(_ node: Node) -> String? {
        guard case .scalar(let scalar) = node, !isNull(node) else { return nil }
        return scalar.string
    }

    private func kind(_ node: Node) -> String {
        switch node {
        case .scalar: return isNull(node) ? "empty" : "a text"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }
}
