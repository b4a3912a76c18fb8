import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// The mission files as staff who edit them see them: which version is loaded, the problems of
/// the file as it stands now (read again as it is saved), and each mission in each of the venue's
/// languages, as its texts reach the phones.
struct StaffMissionsController {
    let catalog: VenueCatalog
    let reloader: MissionReloader

    func addRoutes(to staff: RouterGroup<GroupieRequestContext>) {
        staff.get("venues/{venueId}/missions", use: page)
    }

    func page(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let session = try context.staff
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let entry = catalog.venue(id: venueId) else { throw StaffController.venueNotFound }
        guard session.member.may(.editMissions, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        let problems = reloader.fileProblems.first { $0.path == entry.path }?.problems ?? []
        return StaffPages.missions(entry, problems: problems, session: session)
    }
}

extension StaffPages {
    static func missions(_ entry: VenueCatalog.Entry, problems: [MissionProblem], session: StaffSession) -> Response {
        let venue = entry.venue
        let file = (entry.path as NSString).lastPathComponent
        let problemList = problems.isEmpty
            ? "<p>No problems: every mission of the file is served.</p>"
            : "<ul class=\"problems\">" + problems.map { problem -> String in
                "<li class=\"\(problem.severity.rawValue)\"><code>\(escape(file)):\(problem.line):\(problem.column)</code> \(problem.severity.rawValue): \(escape(problem.message))</li>"
            }.joined() + "</ul>"
        let hasErrors = problems.contains { $0.severity == .error }
        let previews = venue.languages.map { language -> String in
            let cards = venue.missions.map { mission -> String in
                let text = { (value: LocalizedText) in escape(value.resolved(language: language, fallback: venue.defaultLanguage)) }
                let tasks = mission.tasks.map { task -> String in
                    "<li>\(text(task.prompt))\(task.hint.map { "<br><span class=\"muted\">\(text($0))</span>" } ?? "")\(task.camera == .front ? " <span class=\"tag\">front camera</span>" : "")</li>"
                }.joined()
                let after = mission.after.isEmpty ? "" : "<p class=\"muted\">Opens after: \(mission.after.map { escape($0) }.joined(separator: ", "))</p>"
                let reward = mission.style == .sticker ? "a photo with a sticker" : "a collage (\(mission.style.rawValue))"
                return """
                    <li class="card" lang="\(escape(language))"><h4>\(text(mission.title))</h4>\(after)<ol>\(tasks)</ol>
                    \(mission.fact.map { "<p>\(text($0))</p>" } ?? "")<p class="muted">Reward: \(reward)</p></li>
                    """
            }.joined()
            return "<h3 lang=\"en\">\(escape(language))</h3><ul class=\"previews\">\(cards)</ul>"
        }.joined()
        return page(title: "Missions: \(name(venue))", session: session, """
            <p><a href="/staff/venues/\(escape(venue.id))">Groups playing now</a></p>
            <h2>The file</h2>
            <p><code>\(escape(file))</code>: the version loaded is <code>\(escape(String(entry.contentHash.prefix(12))))</code>\
            \(hasErrors ? ", the last good one; the file as saved now has errors and is not served until they are fixed." : ".")</p>
            <h2>Problems</h2>\(problemList)
            <h2>Missions as visitors read them</h2>\(previews)
            <script src="/assets/staff/live.js" data-poll="3000" defer></script>
            """)
    }
}
