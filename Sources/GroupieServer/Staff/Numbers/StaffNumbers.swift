import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// The numbers page of a venue, its tables as CSV, and the anonymised research export.
struct StaffNumbersController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let pages: StaffPages
    let clock: @Sendable () -> Date

    /// The CSV files a venue's numbers come as.
    enum Table: String, CaseIterable {
        case days, missions, tasks, research
    }

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/numbers", use: page)
        staff.get("venues/{venueId}/numbers/{table}", use: csv)
    }

    private func venue(_ context: StaffContext) throws -> (StaffSession, Venue) {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        return (session, venue)
    }

    func page(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try venue(context)
        let messages = try await database.staffMessageCount(venueId: venue.id)
        let answers = AnswerNumbers(venue: venue, attempts: try await database.venueAnswers(venueId: venue.id))
        return pages.numbers(try await numbers(of: venue), answers: answers, messages: messages, venue: venue, session: session)
    }

    func csv(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try venue(context)
        let name = try context.parameters.require("table")
        guard name.hasSuffix(".csv"), let table = Table(rawValue: String(name.dropLast(4))) else {
            throw Problem.notFound("not-found", "The numbers come as days.csv, missions.csv, tasks.csv and research.csv.")
        }
        let headers: HTTPFields = [
            .contentType: "text/csv; charset=utf-8; header=present",
            .contentDisposition: "attachment; filename=\"\(venue.id)-\(table.rawValue).csv\"",
        ]
        try await database.audit(.init(at: clock(), staffEmail: session.member.email, venueId: venue.id, action: .numbersExported, subject: name, reason: nil))
        guard table == .research else {
            let rows = Self.rows(table, try await numbers(of: venue))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: Self.csv(rows))))
        }
        // Every event of every stored group: written a page of groups at a time, so that the
        // export's memory does not grow with the venue's history.
        let database = self.database, venueId = venue.id
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: Self.csv([Self.researchHeader])))
            var after: HistoryCursor?
            while true {
                let page = try await database.venueHistories(venueId: venueId, after: after, limit: Self.researchPageGroups)
                guard let last = page.last else { break }
                try await writer.write(ByteBuffer(string: Self.csv(Self.research(page))))
                after = .init(after: last)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The venue's numbers now: the groups of the last `playingLookback` read to tell those
    /// still playing, whose open missions are not drop-off yet.
    func numbers(of venue: Venue) async throws -> VisitNumbers {
        let now = clock()
        let recent = try await database.venueHistories(
            venueId: venue.id, after: HistoryCursor(startedAfter: now.addingTimeInterval(-VisitNumbers.playingLookback)), limit: Self.researchPageGroups
        )
        return VisitNumbers(venue: venue, tally: try await database.visitTally(venueId: venue.id), recent: recent, now: now)
    }

    static let researchHeader = ["group", "event", "mission", "task", "at"]
    static let researchPageGroups = 2_000

    static func rows(_ table: Table, _ numbers: VisitNumbers) -> [[String]] {
        func minutes(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f", $0 / 60) } ?? "" }
        switch table {
        case .days:
            return [["date", "groups_started", "missions_completed"]]
                + numbers.days.map { [$0.date, String($0.groupsStarted), String($0.missionsCompleted)] }
        case .missions:
            return [["mission", "started", "completed", "still_playing", "drop_off", "median_minutes"]]
                + numbers.missions.map {
                    [$0.missionId, String($0.started), String($0.completed), String($0.playing), String($0.dropOff), minutes($0.medianSeconds)]
                }
        case .tasks:
            return [["mission", "task", "done", "skipped", "median_minutes_from_mission_start"]]
                + numbers.tasks.map { [$0.missionId, $0.taskId, String($0.done), String($0.skipped), minutes($0.medianSeconds)] }
        case .research:
            return []
        }
    }

    /// One line per group start, photo, task done or undone, mission completed or uncompleted,
    /// group closed or reopened (`VisitNumbers.researchEvents`): group id, event, mission, task
    /// and time. No names, no photos, no player ids; no groups that nobody joined.
    static func research(_ histories: [VisitNumbers.History]) -> [[String]] {
        histories.flatMap { history in
            VisitNumbers.researchEvents(history).map { [history.groupId, $0.event, $0.missionId ?? "", $0.taskId ?? "", Timestamp.string($0.at)] }
        }
    }

    /// RFC 4180, with CRLF line ends; a field that a spreadsheet would read as a formula is
    /// prefixed with an apostrophe.
    static func csv(_ rows: [[String]]) -> String {
        rows.map { row in
            row.map { field -> String in
                var field = field
                if let first = field.first, "=+-@\t\r".contains(first) { field = "'" + field }
                guard field.contains(where: { ",\"\r\n".contains($0) }) else { return field }
                return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }.joined(separator: ",")
        }.joined(separator: "\r\n") + "\r\n"
    }
}

extension StaffPages {
    struct NumbersView: Sendable {
        struct Download: Sendable {
            let url: String
            let name: String
        }
        struct MissionRow: Sendable {
            let title: String
            let started: Int
            let completed: Int
            let playing: Int
            let dropOff: Int
            let median: String
        }
        struct TaskRow: Sendable {
            let mission: String
            let task: String
            let done: Int
            let skipped: Int
            let median: String
        }
        struct AnswerRow: Sendable {
            let mission: String
            let task: String
            let kind: String
            let answered: Int
            let right: Int
            let attempts: Int
        }
        struct DayRow: Sendable {
            let date: String
            let started: Int
            let completed: Int
        }
        let venueURL: String
        let downloads: [Download]
        let stored: String
        let photos: String
        /// Messages from staff the stored groups received.
        let messages: String
        let missionChart: BarChart?
        /// How long without activity a group stops playing, in minutes.
        let quietMinutes: Int
        let missions: [MissionRow]
        let mostSkipped: [TaskRow]
        let dayChart: BarChart?
        let days: [DayRow]
        let tasks: [TaskRow]
        /// The questions and found-it codes: groups that tried each, groups right.
        let answers: [AnswerRow]
    }

    func numbers(_ numbers: VisitNumbers, answers: AnswerNumbers, messages: Int, venue: Venue, session: StaffSession) -> Response {
        let titles = Dictionary(
            venue.missions.map { ($0.id, $0.title.resolved(language: "en", fallback: venue.defaultLanguage)) }, uniquingKeysWith: { first, _ in first }
        )
        func minutes(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f min", $0 / 60) } ?? "–" }
        let view = NumbersView(
            venueURL: StaffURL.venue(venue.id).path,
            downloads: StaffNumbersController.Table.allCases.map { table in
                .init(url: StaffURL.numbersTable(venueId: venue.id, table: table.rawValue).path, name: table.rawValue + ".csv")
            },
            stored: EnglishCount.of(numbers.groups, "group"),
            photos: numbers.medianPhotosPerGroup.map { String(format: "%.1f", $0) } ?? "–",
            messages: EnglishCount.of(messages, "message") + " from staff",
            missionChart: BarChart(
                numbers.missions.map { (titles[$0.missionId] ?? $0.missionId, [$0.completed, $0.dropOff, $0.playing]) },
                legend: ["completed", "dropped off", "still playing"]
            ),
            quietMinutes: Int(VisitNumbers.quietAfter / 60),
            missions: numbers.missions.map { row in
                .init(
                    title: titles[row.missionId] ?? row.missionId, started: row.started, completed: row.completed, playing: row.playing,
                    dropOff: row.dropOff,
                    median: minutes(row.medianSeconds)
                )
            },
            mostSkipped: numbers.mostSkipped.prefix(10).map { row in
                .init(mission: titles[row.missionId] ?? row.missionId, task: row.taskId, done: row.done, skipped: row.skipped, median: "")
            },
            dayChart: BarChart(numbers.days.map { ($0.date, [$0.groupsStarted]) }, legend: ["groups started"]),
            days: numbers.days.map { .init(date: $0.date, started: $0.groupsStarted, completed: $0.missionsCompleted) },
            tasks: numbers.tasks.map { row in
                .init(
                    mission: titles[row.missionId] ?? row.missionId, task: row.taskId, done: row.done, skipped: row.skipped,
                    median: minutes(row.medianSeconds)
                )
            },
            answers: answers.rows.map { row in
                .init(
                    mission: titles[row.missionId] ?? row.missionId, task: row.taskId, kind: row.kind == "code" ? "found-it code" : row.kind,
                    answered: row.groupsAnswered, right: row.groupsRight, attempts: row.attempts
                )
            }
        )
        return page("staff-numbers", title: "Numbers: \(Self.name(venue))", session: session, view)
    }
}

/// A horizontal stacked bar chart for `staff-bar-chart.mustache`, drawn as inline SVG (no script,
/// no style attribute): one bar per label, segments in the legend's order, with the figures
/// written beside them.
struct BarChart: Sendable {
    struct Bar: Sendable {
        let label: String
        let textY: Int
        let segments: [Segment]
        let figuresX: Int
        let figures: String
    }
    struct Segment: Sendable {
        let x: Int
        let y: Int
        let width: Int
        let colour: String
        let title: String
    }
    struct Key: Sendable {
        let x: Int
        let y: Int
        let textX: Int
        let textY: Int
        let colour: String
        let name: String
    }
    let ariaLabel: String
    let width: Int
    let height: Int
    let bars: [Bar]
    let legend: [Key]

    static let colours = ["#1f5d8c", "#c9c9c9", "#7a4b00"]
    static let rowHeight = 28, labelWidth = 220, barWidth = 420

    /// Nil when there are no bars.
    init?(_ bars: [(label: String, values: [Int])], legend: [String]) {
        guard !bars.isEmpty else { return nil }
        let colours = Self.colours, rowHeight = Self.rowHeight, labelWidth = Self.labelWidth, barWidth = Self.barWidth
        let maximum = max(1, bars.map { $0.values.reduce(0, +) }.max() ?? 1)
        ariaLabel = legend.joined(separator: ", ")
        width = labelWidth + barWidth + 80
        height = rowHeight * bars.count + 30
        self.bars = bars.enumerated().map { index, bar in
            let y = index * rowHeight
            var x = labelWidth
            var segments: [Segment] = []
            for (segment, value) in bar.values.enumerated() where value > 0 {
                let width = max(1, value * barWidth / maximum)
                segments.append(.init(
                    x: x, y: y + 4, width: width, colour: colours[segment % colours.count], title: "\(legend[segment % legend.count]): \(value)"
                ))
                x += width
            }
            return Bar(
                label: String(bar.label.prefix(30)), textY: y + 18, segments: segments, figuresX: x + 6,
                figures: bar.values.map(String.init).joined(separator: " / ")
            )
        }
        let legendY = rowHeight * bars.count + 20
        self.legend = legend.enumerated().map { index, name in
            .init(x: index * 140, y: legendY - 11, textX: index * 140 + 16, textY: legendY, colour: colours[index % colours.count], name: name)
        }
    }
}
