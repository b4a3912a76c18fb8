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
    public var tasks: [MissionTask]

    public init(
        id: String, title: LocalizedText, icon: String, area: LocalizedText? = nil, after: [String] = [],
        fact: LocalizedText? = nil, style: VisualStyle = .auto, sticker: String? = nil, tasks: [MissionTask]
    ) {
        self.id = id
        self.title = title
        self.icon = icon
        self.area = area
        self.after = after
        self.fact = fact
        self.style = style
        self.sticker = sticker
        self.tasks = tasks
    }

    public func task(id: String) -> MissionTask? {
        tasks.first { $0.id == id }
    }
}

/// One photo prompt of a mission. (Named so as not to shadow Swift's `Task`.)
public struct MissionTask: Sendable, Hashable, Identifiable {
    public var id: String
    public var prompt: LocalizedText
    public var hint: LocalizedText?
    /// The camera a phone opens for the task: the front one for photos of oneself.
    public var camera: CameraFacing

    public init(id: String, prompt: LocalizedText, hint: LocalizedText? = nil, camera: CameraFacing = .back) {
        self.id = id
        self.prompt = prompt
        self.hint = hint
        self.camera = camera
    }
}

/// Which of a phone's cameras a task opens.
public enum CameraFacing: String, Sendable, Hashable, CaseIterable {
    case back, front
}

/// How a completed mission is turned into a picture for the group.
public enum VisualStyle: String, Sendable, Hashable, CaseIterable {
    case auto, grid, strip, polaroid, sticker
}
