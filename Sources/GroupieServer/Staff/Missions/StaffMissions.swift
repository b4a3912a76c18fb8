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
    let pages: StaffPages

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/missions", use: page)
        staff.get("venues/{venueId}/missions/{missionId}/reward.jpg", use: reward)
    }

    /// The mission's reward as a group would get it, drawn by the collage renderer from stand-in
    /// photos (one per task, each showing its prompt, in the shapes phones take) and sample
    /// names, in `lang` (a language of the venue; its first by default).
    func reward(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
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
        guard !mission.photoTaskIds.isEmpty else {
            throw Problem.notFound("no-reward", "The mission has no photo task, so no collage.")
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
        for (index, task) in mission.tasks.filter({ $0.kind == .photo }).enumerated() {
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

    func page(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let entry = catalog.venue(id: venueId) else { throw StaffController.venueNotFound }
        guard session.member.may(.editMissions, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        let problems = reloader.fileProblems.first { $0.path == entry.path }?.problems ?? []
        return pages.missions(entry, problems: problems, session: session)
    }
}

extension StaffPages {
    struct MissionsView: Sendable {
        struct FileProblem: Sendable {
            let severity: String
            let place: String
            let message: String
        }
        struct Language: Sendable {
            let language: String
            let phone: String
            let missions: [Card]
        }
        struct Card: Sendable, Encodable {
            let language: String
            let title: String
            let after: String?
            let tasks: [CardTask]
            let fact: String?
            let reward: String
            /// Nil for a mission without photo tasks, which has no reward picture.
            let picture: String?
            /// "30 minutes from the group's start", for a time-limited mission.
            let timeLimit: String?
        }
        struct CardTask: Sendable, Encodable {
            let prompt: String
            let hint: String?
            let frontCamera: Bool
            /// "question" or "found-it code"; nil for a photo task.
            let kind: String?
            /// A question's choices, the right ones marked; staff see what phones never get.
            let choices: [CardChoice]
            let hasChoices: Bool
            /// The accepted answers of a question answered in words, or the sticker's code.
            let accepted: String?
            let taskFact: String?
        }
        struct CardChoice: Sendable, Encodable {
            let text: String
            let right: Bool
        }
        let venueURL: String
        let editURL: String
        let versionsURL: String
        let file: String
        let version: String
        let hasErrors: Bool
        let problems: [FileProblem]
        let languages: [Language]
    }

    /// A mission as a phone shows it in `language`, with its reward drawn at `picture`.
    static func card(_ mission: Mission, venue: Venue, language: String, picture: String) -> MissionsView.Card {
        let text = { (value: LocalizedText) in value.resolved(language: language, fallback: venue.defaultLanguage) }
        return MissionsView.Card(
            language: language, title: text(mission.title),
            after: mission.after.isEmpty ? nil : mission.after.joined(separator: ", "),
            tasks: mission.tasks.map { cardTask($0, text: text) },
            fact: mission.fact.map(text),
            reward: mission.photoTaskIds.isEmpty ? "none (no photo task)" : mission.style == .sticker ? "a photo with a sticker" : "a collage (\(mission.style.rawValue))",
            picture: mission.photoTaskIds.isEmpty ? nil : picture,
            timeLimit: mission.timeLimit.map { "\($0) minutes from the group's first photo or answer" }
        )
    }

    static func cardTask(_ task: MissionTask, text: (LocalizedText) -> String) -> MissionsView.CardTask {
        var kind: String?, choices: [MissionsView.CardChoice] = [], accepted: String?
        switch task.kind {
        case .photo: break
        case .question(let question):
            kind = "question"
            choices = question.choices.enumerated().map { .init(text: text($1), right: question.right.contains($0)) }
            accepted = question.isMultipleChoice ? nil : "Accepted: " + question.accepted.joined(separator: ", ")
        case .code(let code):
            kind = "found-it code"
            accepted = "Code: " + code.code
        }
        return .init(
            prompt: text(task.prompt), hint: task.hint.map(text), frontCamera: task.camera == .front && task.kind == .photo, kind: kind,
            choices: choices, hasChoices: !choices.isEmpty, accepted: accepted, taskFact: task.fact.map(text)
        )
    }

    func missions(_ entry: VenueCatalog.Entry, problems: [MissionProblem], session: StaffSession) -> Response {
        let venue = entry.venue
        let file = (entry.path as NSString).lastPathComponent
        let version = String(entry.contentHash.prefix(12))
        let languages = venue.languages.map { language in
            let missions = venue.missions.map { mission in
                Self.card(mission, venue: venue, language: language,
                          picture: StaffURL.reward(venueId: venue.id, missionId: mission.id, language: language, version: version).path)
            }
            return MissionsView.Language(
                language: language, phone: StaffURL.phonePreview(venueId: venue.id, language: language).path, missions: missions
            )
        }
        let view = MissionsView(
            venueURL: StaffURL.venue(venue.id).path, editURL: StaffURL.editor(venueId: venue.id).path,
            versionsURL: StaffURL.versions(venueId: venue.id).path, file: file, version: version,
            hasErrors: problems.contains { $0.severity == .error },
            problems: problems.map { .init(severity: $0.severity.rawValue, place: "\(file):\($0.line):\($0.column)", message: $0.message) },
            languages: languages
        )
        return page("staff-missions", title: "Missions: \(Self.name(venue))", session: session, view)
    }
}
