import Foundation
import GroupieContent
import GroupieCore
import Hummingbird

extension StaffPages {
    /// What the editor's page shows: the text, the version of the file it was opened on, its
    /// problems, and why the last save did not happen when it did not.
    struct EditorState: Sendable {
        struct Conflict: Sendable {
            var text: String
            var hash: String
        }
        var venueId: String
        var path: String
        var venue: Venue?
        var text: String
        var base: String
        var problems: [MissionProblem]
        var saved: Int?
        var conflict: Conflict?
        var drops: [MissionEditing.GroupDrop] = []
    }

    struct EditorView: Sendable {
        struct Problem: Sendable {
            let severity: String
            let line: Int
            let column: Int
            let place: String
            let message: String
        }
        struct Conflict: Sendable {
            let disk: String
            let hash: String
            let diff: [DiffLine]
        }
        struct Drop: Sendable {
            let group: String
            let groupURL: String
            let tasks: String
        }
        struct Phone: Sendable {
            let language: String
            let phone: String
        }
        let missionsURL: String
        let editURL: String
        let versionsURL: String
        let picturesURL: String
        let save: String
        let check: String
        let file: String
        let text: String
        let base: String
        let lines: Int
        let saved: String?
        let problems: [Problem]
        let hasProblems: Bool
        let conflict: Conflict?
        let drops: [Drop]
        let hasDrops: Bool
        let phones: [Phone]
    }

    struct DiffLine: Sendable {
        let kind: String
        let sign: String
        let old: String
        let new: String
        let text: String
    }

    /// Lines this far from a change are shown; longer runs of unchanged lines are one row.
    static let diffContext = 3

    /// The changed lines a diff page shows at most; past them, how many more.
    static let diffLimit = 2_000

    static func diffLines(from old: String, to new: String) -> [DiffLine] {
        LineDiff.rows(from: old, to: new, context: diffContext, limit: diffLimit).map { row in
            switch row {
            case .line(let line):
                DiffLine(
                    kind: line.kind.rawValue, sign: line.kind == .added ? "+" : line.kind == .removed ? "−" : " ",
                    old: line.old.map(String.init) ?? "", new: line.new.map(String.init) ?? "", text: line.text
                )
            case .unchanged(let count):
                DiffLine(kind: "skip", sign: "", old: "", new: "", text: "… " + EnglishCount.of(count, "unchanged line"))
            case .moreChanges(let count):
                DiffLine(
                    kind: "skip", sign: "", old: "", new: "",
                    text: "… and " + EnglishCount.of(count, "more changed line") + ", not shown: the page shows the first \(diffLimit)"
                )
            }
        }
    }

    func editor(_ state: EditorState, session: StaffSession, status: HTTPResponse.Status = .ok) -> Response {
        let file = (state.path as NSString).lastPathComponent
        let view = EditorView(
            missionsURL: StaffURL.missions(venueId: state.venueId).path, editURL: StaffURL.editor(venueId: state.venueId).path,
            versionsURL: StaffURL.versions(venueId: state.venueId).path, picturesURL: StaffURL.pictures(venueId: state.venueId).path,
            save: StaffURL.editorSave(venueId: state.venueId).path, check: StaffURL.editorCheck(venueId: state.venueId).path,
            file: file, text: state.text, base: state.base, lines: max(1, state.text.split(separator: "\n", omittingEmptySubsequences: false).count),
            saved: state.saved.map { "Saved as version \($0). Phones playing at the venue have it now." },
            problems: state.problems.map {
                .init(severity: $0.severity.rawValue, line: $0.line, column: $0.column, place: "\($0.line):\($0.column)", message: $0.message)
            },
            hasProblems: !state.problems.isEmpty,
            conflict: state.conflict.map { .init(disk: $0.text, hash: $0.hash, diff: Self.diffLines(from: $0.text, to: state.text)) },
            drops: state.drops.map { drop in
                .init(group: drop.groupName, groupURL: StaffURL.group(drop.groupId).path, tasks: drop.tasks.map {
                    "\($0.task.missionId) / \($0.task.taskId): " + EnglishCount.of($0.photos, "photo")
                }.joined(separator: "; "))
            },
            hasDrops: !state.drops.isEmpty,
            phones: (state.venue?.languages ?? []).map { .init(language: $0, phone: StaffURL.phonePreview(venueId: state.venueId, language: $0).path) }
        )
        let name = state.venue.map(Self.name) ?? state.venueId
        return page("staff-editor", title: "Edit missions: \(name)", session: session, status: status, view)
    }

    // MARK: Versions

    struct VersionsView: Sendable {
        struct Row: Sendable {
            let number: Int
            let savedAt: String
            let by: String
            let note: String?
            let bytes: Int
            let previous: String?
            let restore: String
            let isCurrent: Bool
        }
        struct Choice: Sendable {
            let number: Int
            let selectedFrom: Bool
            let selectedTo: Bool
        }
        let editURL: String
        let diffURL: String
        let timeZone: String
        let base: String
        let rows: [Row]
        let hasVersions: Bool
        let choices: [Choice]
        /// How many of the oldest versions were removed, in words, when any were; and the bounds.
        let pruned: String?
        let keptVersions = MissionHistory.keptVersions
        let keptMiB = MissionHistory.keptBytes / 1_048_576
    }

    static func formatter(_ venue: Venue?) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = venue.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }

    func versions(venueId: String, venue: Venue?, versions: [MissionHistory.Version], pruned: Int, currentHash: String, session: StaffSession) -> Response {
        let formatter = Self.formatter(venue)
        let rows = versions.map { version in
            VersionsView.Row(
                number: version.number, savedAt: formatter.string(from: version.savedAt), by: version.staffEmail ?? "(on disk before)",
                note: version.note, bytes: version.bytes,
                previous: version.number > 1 ? StaffURL.versionsDiff(venueId: venueId, from: version.number - 1, to: version.number).path : nil,
                restore: StaffURL.versionRestore(venueId: venueId, number: version.number).path, isCurrent: version.hash == currentHash
            )
        }
        let newest = versions.first?.number ?? 0
        let view = VersionsView(
            editURL: StaffURL.editor(venueId: venueId).path, diffURL: StaffURL.versions(venueId: venueId).path + "/diff",
            timeZone: formatter.timeZone.identifier, base: currentHash, rows: rows, hasVersions: !rows.isEmpty,
            choices: versions.map { .init(number: $0.number, selectedFrom: $0.number == newest - 1, selectedTo: $0.number == newest) },
            pruned: pruned == 0 ? nil : pruned == 1 ? "1 older version was removed." : "\(pruned) older versions were removed."
        )
        return page("staff-versions", title: "Versions: \(venue.map(Self.name) ?? venueId)", session: session, view)
    }

    struct DiffView: Sendable {
        let versionsURL: String
        let from: Int
        let to: Int
        let lines: [DiffLine]
        let same: Bool
    }

    func diff(venueId: String, venue: Venue?, from: Int, to: Int, old: String, new: String, session: StaffSession) -> Response {
        let lines = Self.diffLines(from: old, to: new)
        let view = DiffView(
            versionsURL: StaffURL.versions(venueId: venueId).path, from: from, to: to, lines: lines, same: lines.allSatisfy { $0.kind == "same" || $0.kind == "skip" }
        )
        return page("staff-diff", title: "Version \(from) → \(to): \(venue.map(Self.name) ?? venueId)", session: session, view)
    }
}

extension StaffPages {
    struct PicturesView: Sendable {
        struct Picture: Sendable {
            let path: String
            let url: String
        }
        let editURL: String
        let action: String
        let message: String?
        let kinds: [String]
        let pictures: [Picture]
        let hasPictures: Bool
        let maximum: String
    }

    func pictures(_ view: PicturesView, title: String, status: HTTPResponse.Status, session: StaffSession) -> Response {
        page("staff-pictures", title: title, session: session, status: status, view)
    }
}
