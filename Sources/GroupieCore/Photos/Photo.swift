import Foundation

/// A photo a member took, for a task of a mission or free for the album.
public struct Photo: Sendable, Hashable, Identifiable {
    public var id: String
    public var groupId: String
    public var photographerId: String
    public var photographerName: String
    public var missionId: String?
    public var taskId: String?
    /// SHA-256 of the original's bytes, hex: the name of its files.
    public var blob: String
    /// `jpeg`, `png`, `webp` or `heif`.
    public var format: String
    /// As seen, after EXIF orientation.
    public var width: Int
    public var height: Int
    public var createdAt: Date
    /// Where the photo's subject is, found when it was uploaded; collages crop around it.
    public var focus: Focus?

    public init(
        id: String, groupId: String, photographerId: String, photographerName: String, missionId: String?, taskId: String?,
        blob: String, format: String, width: Int, height: Int, createdAt: Date, focus: Focus? = nil
    ) {
        self.id = id
        self.groupId = groupId
        self.photographerId = photographerId
        self.photographerName = photographerName
        self.missionId = missionId
        self.taskId = taskId
        self.blob = blob
        self.format = format
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.focus = focus
    }

    public var task: GroupProgress.TaskKey? {
        guard let missionId, let taskId else { return nil }
        return GroupProgress.TaskKey(missionId: missionId, taskId: taskId)
    }
}

/// A point of a photo as fractions of its oriented width and height, 0 to 1 (0.5, 0.5 is the middle).
public struct Focus: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = min(1, max(0, x.isFinite ? x : 0.5))
        self.y = min(1, max(0, y.isFinite ? y : 0.5))
    }
}
