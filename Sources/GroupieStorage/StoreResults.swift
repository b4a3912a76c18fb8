import Foundation
import GroupieCore

// What the contract's reads and changes answer, named: a new field is added in one place, and
// every caller reads a field by its name.

/// A member's token looked up with one group: the player and, when they are a member of that
/// group, their membership.
public struct MemberLookup: Sendable {
    public var player: Player
    public var membership: Membership?

    public init(player: Player, membership: Membership?) {
        self.player = player
        self.membership = membership
    }
}

/// One of a player's memberships, past or present.
public struct MembershipSpan: Sendable, Equatable {
    public var groupId: String
    public var joinedAt: Date
    public var leftAt: Date?

    public init(groupId: String, joinedAt: Date, leftAt: Date?) {
        self.groupId = groupId
        self.joinedAt = joinedAt
        self.leftAt = leftAt
    }
}

/// What a retention sweep removed: how many groups, and the blobs no photo uses any more.
public struct RetentionSweep: Sendable {
    public var groups: Int
    public var unusedBlobs: [String]

    public init(groups: Int, unusedBlobs: [String]) {
        self.groups = groups
        self.unusedBlobs = unusedBlobs
    }
}

/// A photo as an upload stored it: `created` is false when its idempotency key had made it
/// before, `held` when it waits for staff's review; `events` were committed with it.
public struct AddedPhoto: Sendable {
    public var photo: Photo
    public var created: Bool
    public var held: Bool
    public var events: [GroupEvent]

    public init(photo: Photo, created: Bool, held: Bool, events: [GroupEvent]) {
        self.photo = photo
        self.created = created
        self.held = held
        self.events = events
    }
}

/// The photo an idempotency key made before, and whether it waits for review.
public struct UploadedPhoto: Sendable {
    public var photo: Photo
    public var held: Bool

    public init(photo: Photo, held: Bool) {
        self.photo = photo
        self.held = held
    }
}

/// A photo deleted for good: whether its file is used by no other photo (and may go), and the
/// events committed with the deletion.
public struct DeletedPhoto: Sendable {
    public var photo: Photo
    public var blobUnused: Bool
    public var events: [GroupEvent]

    public init(photo: Photo, blobUnused: Bool, events: [GroupEvent]) {
        self.photo = photo
        self.blobUnused = blobUnused
        self.events = events
    }
}

/// A member of staff with the hash their password is checked against.
public struct StaffCredentials: Sendable {
    public var member: StaffMember
    public var passwordHash: String

    public init(member: StaffMember, passwordHash: String) {
        self.member = member
        self.passwordHash = passwordHash
    }
}

/// A live staff session: who, and the token their forms carry.
public struct StaffSessionRecord: Sendable {
    public var member: StaffMember
    public var csrfToken: String

    public init(member: StaffMember, csrfToken: String) {
        self.member = member
        self.csrfToken = csrfToken
    }
}

/// A photo as staff moderate it: its venue, and whether it is hidden or held for review.
public struct ModeratedPhoto: Sendable {
    public var photo: Photo
    public var venueId: String
    public var hidden: Bool
    public var held: Bool

    public init(photo: Photo, venueId: String, hidden: Bool, held: Bool) {
        self.photo = photo
        self.venueId = venueId
        self.hidden = hidden
        self.held = held
    }
}

/// A page of a venue's photos held for review, and how many wait in all.
public struct HeldPhotos: Sendable {
    public var photos: [Photo]
    public var total: Int

    public init(photos: [Photo], total: Int) {
        self.photos = photos
        self.total = total
    }
}

/// A group as a staff action left it (closed, reopened), with the events committed with it.
public struct GroupChange: Sendable {
    public var group: Group
    public var events: [GroupEvent]

    public init(group: Group, events: [GroupEvent]) {
        self.group = group
        self.events = events
    }
}
