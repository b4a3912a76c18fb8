import Foundation
import GroupieCore
import Yams

/// Every text a mission file check shows. Museum staff read these, and the tests and
/// missions/README.md quote them word for word, so wording is changed here and only here.
enum MissionMessages {
    // MARK: - Names of the parts of a file, as messages call them

    static let venueName = "the venue"
    static let venueId = "venue id"
    static let themeName = "theme"
    static let rulesName = "rules"
    static let pointsName = "points"
    static let missionId = "mission id"
    static let afterEntry = "'after' entry"
    static let taskId = "task id"

    // MARK: - The file

    static func fileTooLarge(size: Int, limit: Int) -> String {
        "the file is \(megabytes(size)); a mission file may be at most \(megabytes(limit))"
    }

    static func unreadable(_ error: any Error) -> String {
        "the file cannot be read: \((error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription)"
    }

    static func notRegularFile(kind: String) -> String {
        "this is \(kind), not a regular file: it is not read; put the venue's mission file here instead"
    }

    static let notUTF8 = "the file is not UTF-8 text; save it as UTF-8 in your editor"
    static let emptyFile = "the file is empty; a mission file starts with the venue's id, name, languages, timezone, theme and missions"
    static let tooDeep = "lists and mappings nest too deep here (more than \(YAMLNesting.limit) levels, counting every '-' list, '[' and '{'); a mission file needs a few levels"
    static let tooComplex = "the file is too complex to check (YAML aliases repeat too much of it); write it out without '*' aliases"

    static func expandsTooMuch(alias: String, repeated: Int, uses: Int, expanded: Int, limit: Int) -> String {
        "the alias '*\(alias)' repeats \(megabytes(repeated)) of text each of the \(uses) times it is used, which makes the file \(megabytes(expanded)) once read, more than the \(megabytes(limit)) allowed; write the text out once, or shorten the anchored part"
    }

    static func textTooManyBytes(_ key: String, bytes: Int, limit: Int) -> String {
        "'\(key)' takes \(bytes) bytes; a text may take at most \(limit) (2,000 characters of any script fit)"
    }

    static func textOverloaded(_ key: String, limit: Int) -> String {
        "'\(key)' has a character carrying more than \(limit) accents or other marks; no language needs more, and phones slow down drawing them"
    }

    static func textTooLong(_ key: String, length: Int, limit: Int) -> String {
        "'\(key)' is \(length) characters long; a text may be at most \(limit), which is far more than a phone shows at once"
    }

    static func yamlSyntax(_ problem: String, context: YamlError.Context? = nil) -> String {
        guard let context else { return "YAML syntax error: \(problem)" }
        return "YAML syntax error: \(problem) (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
    }

    // MARK: - The venue

    static func venueIdMismatch(_ id: String, fileName: String) -> String {
        "venue id '\(id)' must equal the file name '\(fileName)'; rename the file to '\(id).yaml' or change the id"
    }

    static let languagesSingleText = "'languages' must be a list, e.g. [sv, en], not a single text"
    static let noLanguages = "'languages' must name at least one language"

    static func languagesNotList(_ found: Node) -> String {
        "'languages' must be a list of language codes such as [sv, en], not \(kind(of: found))"
    }

    static func languageNotCode(_ found: Node) -> String {
        "each language must be a code such as 'en', not \(kind(of: found))"
    }

    static func invalidLanguage(_ code: String, suggestion: String?) -> String {
        "'\(code)' is not a valid language code; use ISO 639-1 codes such as 'en', 'sv', 'fr' (optionally with a region: 'en-GB')"
            + didYouMean(suggestion)
    }

    static func languageTwice(_ code: String, firstAt first: Mark?) -> String {
        "language '\(code)' is listed twice" + firstAt(first)
    }

    static func timeZoneNotName(_ found: Node) -> String {
        "'timezone' must be a time zone name such as 'Europe/Stockholm', not \(kind(of: found))"
    }

    static func unknownTimeZone(_ name: String, suggestion: String?) -> String {
        guard let suggestion else {
            return "'\(name)' is not a known time zone; use a name from the tz database such as 'Europe/Stockholm'"
        }
        return "'\(name)' is not a known time zone; did you mean '\(suggestion)'?"
    }

    static let colorNotHex = "'color' must be a colour written as '#' and six hex digits, e.g. \"#1a7f5a\" (in quotes)"

    // MARK: - Missions

    /// How a mission is named in messages: by its id when it has one, else by its place in the list.
    static func mission(id: String?, position: Int) -> String {
        id.map { "mission '\($0)'" } ?? "mission \(position)"
    }

    static func missionsNotList(_ found: Node) -> String {
        "'missions' must be a list of missions (each starting with '- id:'), not \(kind(of: found))"
    }

    static let noMissions = "'missions' must hold at least one mission"

    static func duplicateMissionId(_ id: String, firstAt first: Mark?) -> String {
        "duplicate mission id '\(id)'" + firstAt(first)
    }

    static let afterIsMapping = "'after' must be a mission id or a list of mission ids, not a mapping"

    static func unknownAfter(_ reference: String, of mission: String, suggestion: String?) -> String {
        "mission '\(mission)' comes after unknown mission '\(reference)'" + didYouMean(suggestion)
    }

    static func afterCycle(_ cycle: [String]) -> String {
        cycle.count == 2
            ? "mission '\(cycle[0])' comes after itself"
            : "missions wait for each other in a circle: \(cycle.joined(separator: " → ")); no group could ever start them"
    }

    // MARK: - Where a mission is

    static let whereName = "'where'"
    static let whereEmpty = "'where' needs a 'hint', a 'pin' on the venue's map, or both"

    static func pinNotPair(_ found: Node) -> String {
        "'pin' must be two numbers, [x, y]: percent of the map's width from the left and of its height from the top, not \(kind(of: found))"
    }

    static func pinNotNumber(_ found: Node) -> String {
        "each number of 'pin' is a percent from 0 to 100, such as 35 or 42.5, not \(kind(of: found))"
    }

    static func pinOutside(_ value: Double) -> String {
        let shown = value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
        return "the pin's \(shown) is off the map: each number is a percent from 0 to 100"
    }

    static let pinWithoutMap = "a 'pin' needs the venue's floor plan: add 'map: maps/your-plan.svg' at the top of the file"

    // MARK: - Rewards

    static func badgesNotList(_ found: Node, badges: [String]) -> String {
        "'badges' must be a list of badges such as [\(badges.joined(separator: ", "))], not \(kind(of: found))"
    }

    static func badgeTwice(_ badge: String) -> String {
        "badge '\(badge)' is listed twice"
    }

    static func choiceNotScalar(_ key: String, _ found: Node, choices: [String]) -> String {
        "'\(key)' must be one of \(choices.joined(separator: ", ")), not \(kind(of: found))"
    }

    static func unknownChoice(_ what: String, _ value: String, choices: [String], suggestion: String?) -> String {
        "unknown \(what) '\(value)'; use one of \(choices.joined(separator: ", "))" + didYouMean(suggestion)
    }

    static func unknownStyle(_ value: String, styles: [String], suggestion: String?) -> String {
        "unknown style '\(value)'; use one of \(styles.joined(separator: ", "))" + didYouMean(suggestion)
    }

    static func stickerNotUsed(style: String) -> String {
        stickerKeyNotUsed("sticker", style: style)
    }

    static func stickerKeyNotUsed(_ key: String, style: String) -> String {
        "'\(key)' is only used with 'style: sticker'; this mission's style is '\(style)'"
    }

    static func stickerMissing(_ mission: String) -> String {
        "\(mission) has 'style: sticker' but no 'sticker' file"
    }

    static func stickerWithTasks(_ mission: String, count: Int) -> String {
        "\(mission) has style 'sticker', which shows one photo, but \(count) tasks; use one task or another style"
    }

    // MARK: - Tasks

    /// How a task is named in messages, with the mission it belongs to.
    static func task(id: String?, position: Int, of mission: String) -> String {
        (id.map { "task '\($0)'" } ?? "task \(position)") + " of \(mission)"
    }

    static func tasksNotList(_ found: Node) -> String {
        "'tasks' must be a list of tasks (each starting with '- id:'), not \(kind(of: found))"
    }

    static func taskCount(_ mission: String, count: Int) -> String {
        "\(mission) has \(count == 1 ? "1 task" : "\(count) tasks"); a mission needs 1 to 9"
    }

    static func duplicateTaskId(_ id: String, in mission: String, firstAt first: Mark?) -> String {
        "duplicate task id '\(id)' in \(mission)" + firstAt(first)
    }

    // MARK: - Keys

    static func notMapping(_ name: String, allowed: [String], found: Node) -> String {
        "\(name) must be a mapping of keys (\(allowed.joined(separator: ", "))), not \(kind(of: found))"
    }

    static func keyNotWord(in name: String, example: String) -> String {
        "keys in \(name) must be plain words such as '\(example)'"
    }

    static func duplicateKey(_ key: String, in name: String, firstAt first: Mark?) -> String {
        "duplicate key '\(key)' in \(name)" + firstAt(first)
    }

    static func unknownKey(_ key: String, in name: String, suggestion: String?, allowed: [String]) -> String {
        "unknown key '\(key)' in \(name)"
            + (suggestion == nil ? "; allowed keys are \(allowed.joined(separator: ", "))" : didYouMean(suggestion))
    }

    static func missingKey(_ key: String, in name: String) -> String {
        "\(name) is missing the required key '\(key)'"
    }

    // MARK: - Texts

    static func emptyText(_ key: String) -> String {
        "'\(key)' must not be empty"
    }

    static func textIsList(_ key: String) -> String {
        "'\(key)' must be a text or a map of language to text, not a list"
    }

    static func duplicateTranslation(_ language: String, in key: String, firstAt first: Mark?) -> String {
        duplicateKey(language, in: "'\(key)'", firstAt: first)
    }

    static func emptyTranslation(_ key: String, language: String) -> String {
        "'\(key)' in '\(language)' must not be empty"
    }

    static func translationNeverShown(_ language: String, venueLanguages: [String]) -> String {
        "'\(language)' is not one of the venue's languages (\(venueLanguages.joined(separator: ", "))); this text is never shown"
    }

    static func missingTranslation(_ key: String, language: String, venueLanguages: [String]) -> String {
        "'\(key)' has no '\(language)' text; every text needs one for each of the venue's languages (\(venueLanguages.joined(separator: ", ")))"
    }

    // MARK: - Ids, numbers and files

    static func identifierNotWord(_ name: String, found: Node) -> String {
        "\(name) must be a word such as 'shark-tunnel', not \(kind(of: found))"
    }

    static func identifierCharacters(_ name: String, _ value: String, suggestion: String?) -> String {
        "\(name) '\(value)' may only use lowercase letters a-z, digits and '-'" + didYouMean(suggestion)
    }

    static func identifierTooLong(_ name: String, _ value: String) -> String {
        "\(name) '\(value.prefix(20))…' is longer than \(Identifier.maxLength) characters"
    }

    static func notWholeNumber(_ key: String, range: ClosedRange<Int>, found: Node) -> String {
        let written = found.scalar.map { "'\($0.string)'" } ?? kind(of: found)
        return "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound) (without quotes), not \(written)"
    }

    static func outOfRange(_ key: String, range: ClosedRange<Int>, value: Int) -> String {
        "'\(key)' must be from \(range.lowerBound) to \(range.upperBound), not \(value)"
    }

    static func assetNotPath(_ key: String, found: Node) -> String {
        "'\(key)' must be a file path under the assets folder, such as 'icons/shark.svg', not \(kind(of: found))"
    }

    static func assetOutsideFolder(_ key: String, path: String) -> String {
        "\(key) file '\(path)' must be a path inside the assets folder, such as 'icons/shark.svg'"
    }

    static func misnamed(file name: String) -> String {
        "mission files end in '.yaml'; this file is not read until it is renamed to '\(name.dropLast(4)).yaml'"
    }

    /// Names the folder searched, so that staff who keep the files elsewhere see where to put them.
    static func assetMissing(_ key: String, path: String, folder: String) -> String {
        "\(key) file '\(path)' does not exist in the assets folder '\(folder)'"
    }

    // MARK: - Pieces of messages

    /// What a value is, for the "…, not a list" that ends many messages.
    private static func kind(of node: Node) -> String {
        switch node {
        case .scalar: node.isNull ? "empty" : "a text"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }

    private static func firstAt(_ first: Mark?) -> String {
        " (first at line \(first?.line ?? 1))"
    }

    private static func megabytes(_ count: Int) -> String {
        let value = Double(count) / 1_048_576
        return value >= 10 || value == value.rounded() ? "\(Int(value.rounded())) MB" : String(format: "%.1f MB", value)
    }
}

// MARK: - Questions and codes

extension MissionMessages {
    static func keyOfOtherKind(_ key: String, kind: String, of task: String, belongsTo other: String) -> String {
        "'\(key)' is for a task of kind \(other), and \(task) is of kind \(kind)"
            + (kind == "question" && key == "prompt" ? "; a question's text goes in 'question'" : "")
    }

    static func questionWithoutAnswer(_ task: String) -> String {
        "\(task) needs either 'choices' with the number of the right one in 'answer', or 'answers' with the accepted answers"
    }

    static func choicesAndAnswers(_ task: String) -> String {
        "\(task) has both 'choices' and 'answers'; a question is either multiple choice ('choices' and 'answer') or answered in words ('answers')"
    }

    static func answerWithoutChoices(_ task: String) -> String {
        "'answer' names the right one of 'choices', and \(task) has none; list the accepted answers in 'answers'"
    }

    static func choicesNotList(_ found: Node, range: ClosedRange<Int>) -> String {
        if case .sequence(let sequence) = found {
            return "'choices' must be a list of \(range.lowerBound) to \(range.upperBound) texts, not of \(sequence.count)"
        }
        return "'choices' must be a list of \(range.lowerBound) to \(range.upperBound) texts, not \(kind(of: found))"
    }

    static func answerNotChoiceNumber(_ found: Node, count: Int) -> String {
        "'answer' must be the number of the right choice from 1 to \(count), or a list of them such as [1, 3], not \(kind(of: found))"
    }

    static func answersNotList(_ found: Node, range: ClosedRange<Int>) -> String {
        "'answers' must be an answer or a list of \(range.lowerBound) to \(range.upperBound) accepted answers, not \(kind(of: found))"
    }

    static let emptyAnswer = "an accepted answer must have a letter or a digit in it"

    static func guessableCode(_ code: String) -> String {
        "code '\(code)' is short enough to guess: there are fewer than a million codes like it; use more characters, or letters and digits together, such as 'WHALE-42'"
    }

    static func badCode(_ code: String) -> String {
        "code '\(code)' must be \(FoundCode.lengthRange.lowerBound) to \(FoundCode.lengthRange.upperBound) letters A to Z and digits, with single dashes between groups, such as 'WHALE-42'"
    }
}
