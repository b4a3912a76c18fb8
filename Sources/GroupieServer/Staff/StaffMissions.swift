import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird

/// The mission files as staff who edit them see them: which version is loaded, the problems of
/// the file as it stands now (read again as it is saved), and each mission in each of the venue's
/// languages, as its texts reach the phones.
struct StaffMissionsController {
    let catalog: VenueCatalog
    let reloader: MissionReloader
    let work: ImageWorkQueue
    let assetsDirectory: String

    func addRoutes(to staff: RouterGroup<GroupieRequestContext>) {
        staff.get("venues/{venueId}/missions", use: page)
        staff.get("venues/{venueId}/missions/{missionId}/reward.jpg", use: reward)
    }

    /// The mission's reward as a group would get it, drawn by the collage renderer from stand-in
    /// photos (one per task, each showing its prompt, in the shapes phones take) and sample
    /// names, in `lang` (a language of the venue; its first by default).
    func reward(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let session = try context.staff
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        guard session.member.may(.editMissions, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        guard let mission = venue.mission(id: try context.parameters.require("missionId")) else {
            throw Problem.notFound("mission-not-found", "The venue has no such mission.")
        }
        let language = request.uri.queryParameters["lang"].map(String.init) ?? venue.defaultLanguage
        guard venue.languages.contains(language) else {
            throw Problem(.badRequest, code: "invalid-language", detail: "'lang' is one of the venue's languages: \(venue.languages.joined(separator: ", ")).")
        }
        let assetsDirectory = self.assetsDirectory
        let bytes = try await work.run { try Self.preview(venue: venue, mission: mission, language: language, assetsDirectory: assetsDirectory) }
        // The URL names the file's version, so a browser may keep the picture until the file changes.
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static let sampleNames = ["Ada", "Bo", "Chen", "Dara"]
    /// Portrait, landscape and square, as phones take them.
    static let sampleShapes = [(1200, 1600), (1600, 1200), (1400, 1400)]

    static func preview(venue: Venue, mission: Mission, language: String, assetsDirectory: String) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-reward-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var photos: [String] = []
        for (index, task) in mission.tasks.enumerated() {
            let (width, height) = sampleShapes[index % sampleShapes.count]
            let path = "\(folder)/\(index).png"
            try SamplePhoto.render(
                width: width, height: height, colour: venue.theme.color,
                label: task.prompt.resolved(language: language, fallback: venue.defaultLanguage), language: language, to: path
            )
            photos.append(path)
        }
        let output = folder + "/reward.jpg"
        _ = try CollageTool.render(
            venue: venue, mission: mission, photos: photos, focus: photos.map { _ in nil },
            names: Array(sampleNames.prefix(min(photos.count, sampleNames.count))), groupName: nil, day: Date(), language: language,
            longEdge: 1024, format: .jpeg, assetsDirectory: assetsDirectory, output: output
        )
        return try Data(contentsOf: URL(fileURLWithPath: output))
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
                let picture = "/staff/venues/\(escape(venue.id))/missions/\(escape(mission.id))/reward.jpg?lang=\(escape(language))&amp;v=\(escape(String(entry.contentHash.prefix(12))))"
                return """
                    <li class="card" lang="\(escape(language))"><h4>\(text(mission.title))</h4>\(after)<ol>\(tasks)</ol>
                    \(mission.fact.map { "<p>\(text($0))</p>" } ?? "")<p class="muted">Reward: \(reward), drawn from stand-in photos:</p>
                    <img class="reward" src="\(picture)" alt="The reward of \(text(mission.title)), drawn from stand-in photos" loading="lazy" width="320"></li>
                    """
            }.joined()
            let phone = "/?preview=\(escape(venue.id))&amp;lang=\(escape(language))#/missions"
            return """
                <h3 lang="en">\(escape(language))</h3>
                <div class="phone-preview"><iframe src="\(phone)" title="The missions on a phone, in \(escape(language))" width="360" height="640" loading="lazy"></iframe>
                <p class="muted">The phone's own screens, as a new group sees them: open a mission to see its tasks. Nothing is sent from here.</p></div>
                <ul class="previews">\(cards)</ul>
                """
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
