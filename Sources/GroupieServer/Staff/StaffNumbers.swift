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
    let clock: @Sendable () -> Date

    /// The CSV files a venue's numbers come as.
    enum Table: String, CaseIterable {
        case days, missions, tasks, research
    }

    func addRoutes(to staff: RouterGroup<GroupieRequestContext>) {
        staff.get("venues/{venueId}/numbers", use: page)
        staff.get("venues/{venueId}/numbers/{table}", use: csv)
    }

    private func venue(_ context: GroupieRequestContext) throws -> (StaffSession, Venue) {
        let session = try context.staff
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        return (session, venue)
    }

    func page(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let (session, venue) = try venue(context)
        let numbers = VisitNumbers(venue: venue, tally: try await database.visitTally(venueId: venue.id))
        return StaffPages.numbers(numbers, venue: venue, session: session)
    }

    func csv(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let (session, venue) = try venue(context)
        let name = try context.parameters.require("table")
        guard name.hasSuffix(".csv"), let table = Table(rawValue: String(name.dropLast(4))) else {
            throw Problem.notFound("not-found", "The numbers come as days.csv, missions.csv, tasks.csv and research.csv.")
        }
        let headers: HTTPFields = [
            .contentType: "text/csv; charset=utf-8; header=present",
            .contentDisposition: "attachment; filename=\"\(venue.id)-\(table.rawValue).csv\"",
        ]
        try await database.audit(.init(at: clock(), staffEmail: session.member.email, venueId: venue.id, action: "numbers exported", subject: name, reason: nil))
        guard table == .research else {
            let rows = Self.rows(table, VisitNumbers(venue: venue, tally: try await database.visitTally(venueId: venue.id)))
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

    static let researchHeader = ["group", "event", "mission", "task", "at"]
    static let researchPageGroups = 2_000

    static func rows(_ table: Table, _ numbers: VisitNumbers) -> [[String]] {
        func minutes(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f", $0 / 60) } ?? "" }
        switch table {
        case .days:
            return [["date", "groups_started", "missions_completed"]]
                + numbers.days.map { [$0.date, String($0.groupsStarted), String($0.missionsCompleted)] }
        case .missions:
            return [["mission", "started", "completed", "drop_off", "median_minutes"]]
                + numbers.missions.map { [$0.missionId, String($0.started), String($0.completed), String($0.dropOff), minutes($0.medianSeconds)] }
        case .tasks:
            return [["mission", "task", "done", "skipped", "median_minutes_from_mission_start"]]
                + numbers.tasks.map { [$0.missionId, $0.taskId, String($0.done), String($0.skipped), minutes($0.medianSeconds)] }
        case .research:
            return []
        }
    }

    /// One line per group start, photo, task done and mission completed: group id, event,
    /// mission, task and time. No names, no photos, no player ids.
    static func research(_ histories: [VisitNumbers.History]) -> [[String]] {
        var rows: [[String]] = []
        for history in histories {
            rows.append([history.groupId, "group-started", "", "", Timestamp.string(history.startedAt)])
            for event in history.events {
                rows.append([history.groupId, event.kind.rawValue, event.missionId ?? "", event.taskId ?? "", Timestamp.string(event.at)])
            }
        }
        return rows
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
    static func numbers(_ numbers: VisitNumbers, venue: Venue, session: StaffSession) -> Response {
        let titles = Dictionary(
            venue.missions.map { ($0.id, $0.title.resolved(language: "en", fallback: venue.defaultLanguage)) }, uniquingKeysWith: { first, _ in first }
        )
        func minutes(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f min", $0 / 60) } ?? "–" }
        let days = numbers.days.map { day -> String in
            "<tr><td>\(day.date)</td><td>\(day.groupsStarted)</td><td>\(day.missionsCompleted)</td></tr>"
        }.joined()
        let missions = numbers.missions.map { row -> String in
            """
            <tr><th scope="row">\(escape(titles[row.missionId] ?? row.missionId))</th><td>\(row.started)</td><td>\(row.completed)</td>\
            <td>\(row.dropOff)</td><td>\(minutes(row.medianSeconds))</td></tr>
            """
        }.joined()
        let skipped = numbers.mostSkipped.prefix(10).map { row -> String in
            "<tr><td>\(escape(titles[row.missionId] ?? row.missionId))</td><td>\(escape(row.taskId))</td><td>\(row.skipped)</td><td>\(row.done)</td></tr>"
        }.joined()
        let tasks = numbers.tasks.map { row -> String in
            "<tr><td>\(escape(titles[row.missionId] ?? row.missionId))</td><td>\(escape(row.taskId))</td><td>\(row.done)</td><td>\(row.skipped)</td><td>\(minutes(row.medianSeconds))</td></tr>"
        }.joined()
        let links = StaffNumbersController.Table.allCases.map { table -> String in
            "<a href=\"/staff/venues/\(escape(venue.id))/numbers/\(table.rawValue).csv\">\(table.rawValue).csv</a>"
        }.joined(separator: " · ")
        let photos = numbers.medianPhotosPerGroup.map { String(format: "%.1f", $0) } ?? "–"
        return page(title: "Numbers: \(name(venue))", session: session, """
            <p><a href="/staff/venues/\(escape(venue.id))">Groups playing now</a> · Download: \(links)</p>
            <p>\(numbers.groups) group\(numbers.groups == 1 ? "" : "s") stored; photos per group (median) \(photos). \
            A group starts a mission with its first photo for it; a task is skipped by a group that started its mission and never did it.</p>
            <h2>Missions: started and completed</h2>
            \(barChart(numbers.missions.map { (titles[$0.missionId] ?? $0.missionId, [$0.completed, $0.dropOff]) }, legend: ["completed", "dropped off"]))
            <table><thead><tr><th scope="col">Mission</th><th scope="col">Started</th><th scope="col">Completed</th><th scope="col">Drop-off</th>\
            <th scope="col">Median time</th></tr></thead><tbody>\(missions)</tbody></table>
            <h2>Tasks most skipped</h2>
            \(skipped.isEmpty ? "<p>No task was skipped.</p>" : "<table><thead><tr><th scope=\"col\">Mission</th><th scope=\"col\">Task</th><th scope=\"col\">Skipped</th><th scope=\"col\">Done</th></tr></thead><tbody>\(skipped)</tbody></table>")
            <h2>Per day</h2>
            \(barChart(numbers.days.map { ($0.date, [$0.groupsStarted]) }, legend: ["groups started"]))
            <table><thead><tr><th scope="col">Day</th><th scope="col">Groups started</th><th scope="col">Missions completed</th></tr></thead><tbody>\(days)</tbody></table>
            <h2>Every task</h2>
            <table><thead><tr><th scope="col">Mission</th><th scope="col">Task</th><th scope="col">Done</th><th scope="col">Skipped</th>\
            <th scope="col">Median time from the mission's start</th></tr></thead><tbody>\(tasks)</tbody></table>
            """)
    }

    /// A horizontal stacked bar chart as inline SVG (no script, no style attribute): one bar per
    /// label, segments in the legend's order, with the figures written beside them.
    static func barChart(_ bars: [(label: String, values: [Int])], legend: [String]) -> String {
        guard !bars.isEmpty else { return "" }
        let colours = ["#1f5d8c", "#c9c9c9"]
        let rowHeight = 28, labelWidth = 220, barWidth = 420
        let maximum = max(1, bars.map { $0.values.reduce(0, +) }.max() ?? 1)
        var svg = "<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(legend.joined(separator: ", ")))\" viewBox=\"0 0 \(labelWidth + barWidth + 80) \(rowHeight * bars.count + 30)\" width=\"100%\">"
        for (index, bar) in bars.enumerated() {
            let y = index * rowHeight
            svg += "<text x=\"0\" y=\"\(y + 18)\" font-size=\"13\">\(escape(String(bar.label.prefix(30))))</text>"
            var x = labelWidth
            for (segment, value) in bar.values.enumerated() where value > 0 {
                let width = max(1, value * barWidth / maximum)
                svg += "<rect x=\"\(x)\" y=\"\(y + 4)\" width=\"\(width)\" height=\"18\" fill=\"\(colours[segment % colours.count])\"><title>\(escape(legend[segment % legend.count])): \(value)</title></rect>"
                x += width
            }
            svg += "<text x=\"\(x + 6)\" y=\"\(y + 18)\" font-size=\"13\">\(bar.values.map(String.init).joined(separator: " / "))</text>"
        }
        let legendY = rowHeight * bars.count + 20
        var legendX = 0
        for (index, name) in legend.enumerated() {
            svg += "<rect x=\"\(legendX)\" y=\"\(legendY - 11)\" width=\"12\" height=\"12\" fill=\"\(colours[index % colours.count])\"/><text x=\"\(legendX + 16)\" y=\"\(legendY)\" font-size=\"13\">\(escape(name))</text>"
            legendX += 140
        }
        return svg + "</svg>"
    }
}
