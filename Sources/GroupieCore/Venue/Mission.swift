public struct Mission: Sendable, Hashable, Identifiable {
    public static let taskRange = 1...9

    public var id: String
    public var title: LocalizedText
    /// Path of the icon under the assets folder.
    public var icon: String
    /// Where in the venue to look, e.g. "Aquarium, level 1".
    public var area: LocalizedText?
    /// Missions that must be complete before this one unlocks.
    public var after: [String]
    /// Something to learn, shown with the visualisation.
    public var fact: LocalizedText?
    public var style: VisualStyle
    /// Path of the sticker under the assets folder; only for `.sticker`.
    public var sticker: String?
    /// Where the sticker goes on the photo's people (`sticker_place:`); nil for the default:
    /// its corner, moved beside the faces when the corner would cover one.
    public var stickerPlace: StickerPlace?
    /// Where the sticker goes when the photo shows no face (`sticker_corner:`).
    public var stickerCorner: StickerCorner
    public var tasks: [MissionTask]
    /// How to find the mission: a hint and a pin on the venue's map.
    public var location: MissionLocation?
    /// Minutes a group has for the mission from its start (`time_limit:`); nil for no limit.
    public var timeLimit: Int?

    /// The bounds of `time_limit:`, in minutes.
    public static let timeLimitRange = 1...240

    public init(
        id: String, title: LocalizedText, icon: String, area: LocalizedText? = nil, after: [String] = [],
        fact: LocalizedText? = nil, style: VisualStyle = .auto, sticker: String? = nil, tasks: [MissionTask],
        location: MissionLocation? = nil, stickerPlace: StickerPlace? = nil, stickerCorner: StickerCorner = .bottomRight,
        timeLimit: Int? = nil
    ) {
        self.id = id
        self.title = title
        self.icon = icon
        self.area = area
        self.after = after
        self.fact = fact
        self.style = style
        self.sticker = sticker
        self.stickerPlace = stickerPlace
        self.stickerCorner = stickerCorner
        self.tasks = tasks
        self.location = location
        self.timeLimit = timeLimit
    }

    /// The tasks done with a photo, which the mission's collage shows.
    public var photoTaskIds: [String] {
        tasks.filter { $0.kind == .photo }.map(\.id)
    }

    public func task(id: String) -> MissionTask? {
        tasks.first { $0.id == id }
    }
}

/// One task of a mission: a photo prompt, a question or a code to find (`kind`). (Named so
/// as not to shadow Swift's `Task`.)
public struct MissionTask: Sendable, Hashable, Identifiable {
    public var id: String
    /// What to photograph, the question asked, or where to look for a code.
    public var prompt: LocalizedText
    public var hint: LocalizedText?
    /// The camera a phone opens for the task: the front one for photos of oneself.
    public var camera: CameraFacing
    /// What collages and thumbnails may cut from the task's photos.
    public var framing: Framing
    public var kind: TaskKind
    /// Something to learn, shown once a question is answered or a code found.
    public var fact: LocalizedText?

    public init(
        id: String, prompt: LocalizedText, hint: LocalizedText? = nil, camera: CameraFacing = .back, framing: Framing = .focus,
        kind: TaskKind = .photo, fact: LocalizedText? = nil
    ) {
        self.id = id
        self.prompt = prompt
        self.hint = hint
        self.camera = camera
        self.framing = framing
        self.kind = kind
        self.fact = fact
    }
}

/// Where a mission is: a text hint, and a pin on the venue's floor plan (`where:` in the file).
public struct MissionLocation: Sendable, Hashable {
    public var hint: LocalizedText?
    public var pin: MapPin?

    public init(hint: LocalizedText?, pin: MapPin?) {
        self.hint = hint
        self.pin = pin
    }
}

/// A point on the venue's map, in percent of its width from the left and of its height from
/// the top: the same point whatever the size of the picture, and a new drawing of the same plan
/// keeps its pins.
public struct MapPin: Sendable, Hashable {
    public static let range = 0.0...100.0

    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Which of a phone's cameras a task opens.
public enum CameraFacing: String, Sendable, Hashable, CaseIterable {
    case back, front
}

/// How much of a task's photo collages and thumbnails show (`framing:`).
public enum Framing: String, Sendable, Hashable, CaseIterable {
    /// The photo uncut, fitted into its place: "the whole rocket, down to the engines".
    case whole
    /// Cropped to fill its place, around its subject (the attention crop).
    case focus
}

/// Where a sticker goes on a photo's people (`sticker_place:`).
public enum StickerPlace: String, Sendable, Hashable, CaseIterable {
    /// On top of the largest face, as wide as it: a hat.
    case head
    /// Next to a face, never over one.
    case beside
    /// Over the largest face.
    case over
}

/// The corner of the photo a sticker goes to when no face is found (`sticker_corner:`).
public enum StickerCorner: String, Sendable, Hashable, CaseIterable {
    case topLeft = "top-left"
    case topRight = "top-right"
    case bottomLeft = "bottom-left"
    case bottomRight = "bottom-right"
}

/// How a completed mission is turned into a picture for the group.
public enum VisualStyle: String, Sendable, Hashable, CaseIterable {
    case auto, grid, strip, polaroid, sticker
}
