/// A venue as its staff described it in `missions/<id>.yaml`.
public struct Venue: Sendable, Hashable, Identifiable {
    public var id: String
    public var name: LocalizedText
    /// Languages the venue offers, the first one being the default.
    public var languages: [String]
    public var description: LocalizedText?
    /// IANA time zone identifier, e.g. `Europe/Stockholm`.
    public var timeZone: String
    public var theme: Theme
    public var rules: VenueRules
    /// Missions in the order visitors should walk them.
    public var missions: [Mission]
    /// Path of the venue's floor plan under the assets folder, on which missions put their pins.
    public var map: String?
    /// Whether staff see a new photo before the photographer's group does.
    public var review: PhotoReview
    /// Points and badges for the venue's groups (`points:`); nil, the default, for none.
    public var points: PointsRules?
    /// The paper the venue prints on: the pages of a group's printed recap.
    public var paper: PaperSize

    public init(
        id: String, name: LocalizedText, languages: [String], description: LocalizedText?,
        timeZone: String, theme: Theme, rules: VenueRules, missions: [Mission], map: String? = nil, review: PhotoReview = .none,
        points: PointsRules? = nil, paper: PaperSize = .a4
    ) {
        self.id = id
        self.name = name
        self.languages = languages
        self.description = description
        self.timeZone = timeZone
        self.theme = theme
        self.rules = rules
        self.missions = missions
        self.map = map
        self.review = review
        self.points = points
        self.paper = paper
    }

    public var defaultLanguage: String { languages.first ?? "en" }

    public func mission(id: String) -> Mission? {
        missions.first { $0.id == id }
    }
}

public struct Theme: Sendable, Hashable {
    /// `#rrggbb`.
    public var color: String
    /// Path of the logo under the assets folder.
    public var logo: String?

    public init(color: String, logo: String?) {
        self.color = color
        self.logo = logo
    }
}

public struct VenueRules: Sendable, Hashable {
    public static let defaultMaxGroupSize = 6
    public static let defaultJoinableHours = 8

    public var maxGroupSize: Int
    /// How long after its creation a group can still be joined.
    public var joinableHours: Int

    public init(maxGroupSize: Int = VenueRules.defaultMaxGroupSize, joinableHours: Int = VenueRules.defaultJoinableHours) {
        self.maxGroupSize = maxGroupSize
        self.joinableHours = joinableHours
    }
}

/// The paper a venue prints on.
public enum PaperSize: String, Sendable, Hashable, CaseIterable {
    case a4
    case letter

    /// Width and height in points (1/72 inch).
    public var points: (width: Double, height: Double) {
        switch self {
        case .a4: (595.276, 841.890)
        case .letter: (612, 792)
        }
    }
}

/// When a venue's staff see visitors' photos.
public enum PhotoReview: String, Sendable, Hashable, CaseIterable {
    /// Photos reach the group at once; staff may hide one afterwards.
    case none
    /// A new photo is held until a member of staff shares it; until then only its photographer
    /// knows of it, and it counts for nothing.
    case beforeSharing = "before_sharing"
}
