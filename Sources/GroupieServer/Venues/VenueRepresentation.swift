import GroupieCore

/// A venue as the API shows it: every text in one language.
struct VenueDocument: Encodable, Sendable {
    struct ThemeDocument: Encodable, Sendable {
        var color: String
        var logoUrl: String?
    }

    struct RulesDocument: Encodable, Sendable {
        var maxGroupSize: Int
        var joinableHours: Int
    }

    struct MissionDocument: Encodable, Sendable {
        var id: String
        var title: String
        var iconUrl: String
        var area: String?
        var after: [String]
        var fact: String?
        var style: String
        var stickerUrl: String?
        var tasks: [TaskDocument]
        /// Minutes a group has for the mission from its first photo or answer; nil for no limit.
        var timeLimit: Int?
        /// How to find the mission: a hint, and a pin on the venue's map.
        var `where`: WhereDocument?
    }

    struct WhereDocument: Encodable, Sendable {
        var hint: String?
        var pin: PinDocument?
    }

    /// Percent of the map's width from the left and of its height from the top.
    struct PinDocument: Encodable, Sendable {
        var x: Double
        var y: Double
    }

    struct TaskDocument: Encodable, Sendable {
        var id: String
        var prompt: String
        var hint: String?
        /// `back` or `front`: the camera the phone opens.
        var camera: String
        /// `whole` or `focus`: whether the task's photos may be cropped.
        var framing: String
        /// `photo`, `question` or `code`. For a question, `prompt` is the question.
        var kind: String
        /// The choices of a multiple-choice question, in order; nil for a question answered in
        /// words and for other tasks. Never the right answers, nor a code: those stay on the server.
        var choices: [String]?

        init(_ task: MissionTask, text: (LocalizedText) -> String) {
            id = task.id
            prompt = text(task.prompt)
            hint = task.hint.map(text)
            camera = task.camera.rawValue
            framing = task.framing.rawValue
            kind = task.kind.name
            if case .question(let question) = task.kind, question.isMultipleChoice { choices = question.choices.map(text) }
        }
    }

    var id: String
    /// The language the texts are in.
    var language: String
    var languages: [String]
    var name: String
    var description: String?
    var timezone: String
    var theme: ThemeDocument
    var rules: RulesDocument
    var missions: [MissionDocument]
    /// The venue's floor plan, where missions have pins.
    var mapUrl: String?
    /// What tasks and missions are worth and the badges on offer; absent when the venue has no points.
    var points: PointsDocument?

    struct PointsDocument: Encodable, Sendable {
        var task: Int
        var mission: Int
        var badges: [String]
    }

    init(_ venue: Venue, language: String) {
        let fallback = venue.defaultLanguage
        func text(_ value: LocalizedText) -> String { value.resolved(language: language, fallback: fallback) }
        self.id = venue.id
        self.language = language
        self.languages = venue.languages
        self.name = text(venue.name)
        self.description = venue.description.map(text)
        self.timezone = venue.timeZone
        self.theme = ThemeDocument(color: venue.theme.color, logoUrl: venue.theme.logo.map(Self.assetURL))
        self.rules = RulesDocument(maxGroupSize: venue.rules.maxGroupSize, joinableHours: venue.rules.joinableHours)
        self.missions = venue.missions.map { mission in
            MissionDocument(
                id: mission.id, title: text(mission.title), iconUrl: Self.assetURL(mission.icon),
                area: mission.area.map(text), after: mission.after, fact: mission.fact.map(text),
                style: mission.style.rawValue, stickerUrl: mission.sticker.map(Self.assetURL),
                tasks: mission.tasks.map { TaskDocument($0, text: text) }, timeLimit: mission.timeLimit,
                where: mission.location.map { WhereDocument(hint: $0.hint.map(text), pin: $0.pin.map { PinDocument(x: $0.x, y: $0.y) }) }
            )
        }
        self.mapUrl = venue.map.map(Self.assetURL)
        self.points = venue.points.map { PointsDocument(task: $0.task, mission: $0.mission, badges: $0.badges.map(\.rawValue)) }
    }

    /// Asset paths were checked by the mission file reader: relative, no `..`.
    static func assetURL(_ path: String) -> String { "/assets/" + path }
}

/// One entry of the venue list: enough to pick a venue, without its missions.
struct VenueSummary: Encodable, Sendable {
    var id: String
    var language: String
    var languages: [String]
    var name: String
    var description: String?
    var theme: VenueDocument.ThemeDocument
    var missionCount: Int

    init(_ venue: Venue, language: String) {
        let fallback = venue.defaultLanguage
        self.id = venue.id
        self.language = language
        self.languages = venue.languages
        self.name = venue.name.resolved(language: language, fallback: fallback)
        self.description = venue.description?.resolved(language: language, fallback: fallback)
        self.theme = .init(color: venue.theme.color, logoUrl: venue.theme.logo.map(VenueDocument.assetURL))
        self.missionCount = venue.missions.count
    }
}

struct VenueList: Encodable, Sendable {
    var venues: [VenueSummary]
}
