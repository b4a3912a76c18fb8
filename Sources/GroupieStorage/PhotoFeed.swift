import Foundation
import GroupieCore

/// Which of a venue's photos the staff feed shows: newest first, those of every group still
/// kept (playing, closed or left by all), narrowed by mission, group and time.
public struct PhotoFeedFilter: Sendable, Hashable {
    public var venueId: String
    public var missionId: String?
    /// Part of a group's join code or name, in any case.
    public var group: String?
    /// Taken at or after `from`, and before `to`.
    public var from: Date?
    public var to: Date?
    /// The page after this photo (a photo of the venue's feed).
    public var before: String?
    public var limit: Int

    public init(
        venueId: String, missionId: String? = nil, group: String? = nil, from: Date? = nil, to: Date? = nil, before: String? = nil, limit: Int
    ) {
        self.venueId = venueId
        self.missionId = missionId
        self.group = group
        self.from = from
        self.to = to
        self.before = before
        self.limit = limit
    }

    /// What `group` is compared with: lowercased, or nil when it asks for nothing.
    public var groupNeedle: String? {
        guard let group = group?.trimmingCharacters(in: .whitespaces).lowercased(), !group.isEmpty else { return nil }
        return group
    }
}

/// A photo of the feed with the group it was taken in.
public struct FeedPhoto: Sendable, Hashable {
    public var photo: Photo
    public var group: Group

    public init(photo: Photo, group: Group) {
        self.photo = photo
        self.group = group
    }
}
