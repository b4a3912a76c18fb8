import Foundation
import GroupieCore

// What the contract passes in and out.

/// What a shared store tells every instance about stored events.
public enum EventAnnouncement: Sendable, Equatable {
    /// The group's events up to `seq` are committed.
    case committed(groupId: String, seq: Int)
    /// The announcements were cut off for a while and may have missed some: every stream
    /// should look at what was stored meanwhile.
    case resumed
    /// Another instance told its staff pages something that is stored as no event of a group.
    case staff(StaffNotice)
}

/// What the staff's live pages hear that no group's event tells: each instance tells its own
/// pages, and a shared store carries it to the other instances' (`announce(_:)`).
public enum StaffNotice: Sendable, Equatable {
    /// The group's photos held for review changed: one held, shared, kept hidden or withdrawn.
    case reviewChanged(groupId: String)
    /// The group was made (its creator's joining is no event of the new group).
    case groupCreated(groupId: String)

    public var groupId: String {
        switch self {
        case .reviewChanged(let groupId), .groupCreated(let groupId): groupId
        }
    }
}

/// What a group's collages are made from: the group, its chosen photos, the language its
/// creator plays in, and the collages made so far.
public struct CollageSubject: Sendable {
    public var group: Group
    public var taskPhotos: TaskPhotos
    public var creatorLanguage: String?
    public var collages: [CollageRecord]

    public init(group: Group, taskPhotos: TaskPhotos, creatorLanguage: String?, collages: [CollageRecord]) {
        self.group = group
        self.taskPhotos = taskPhotos
        self.creatorLanguage = creatorLanguage
        self.collages = collages
    }
}

/// A join (or a group's creation) as stored: the group, and the events committed with it: `left`
/// in the group the player was in before (none if they were in none), `joined` in this one (none
/// for a creator). Both are empty when the player was in the group already, which changes nothing.
public struct Join: Sendable {
    public var group: Group
    public var left: [GroupEvent]
    public var joined: [GroupEvent]
    /// The group's contents at `membership`'s version, when the store read them with the join
    /// (PostgreSQL does, in the statement that locks the group); nil otherwise.
    public var contents: GroupContents?

    /// The membership the join gave, at the version of its own event; nil when the player was
    /// a member already and nothing was written.
    public var membership: Membership? {
        joined.last.map { Membership(group: group, version: $0.seq) }
    }

    public init(group: Group, left: [GroupEvent], joined: [GroupEvent]) {
        self.group = group
        self.left = left
        self.joined = joined
    }

    /// A group's creation, with its contents as the transaction left them: the creator alone,
    /// under the name read with their locked row, at version 0 (a new group has no event).
    public static func created(_ group: Group, left: [GroupEvent], creator: Player?, at now: Date) -> Join {
        var join = Join(group: group, left: left, joined: [])
        join.contents = creator.map { GroupContents.created(by: $0, at: now) }
        return join
    }
}

/// A player's membership of a group, with the sequence number of the group's latest event:
/// every change of what a member sees of the group is announced by an event, so it names
/// the version of the group.
public struct Membership: Sendable {
    public var group: Group
    public var version: Int

    public init(group: Group, version: Int) {
        self.group = group
        self.version = version
    }
}

/// What a member sees of a group beyond the group itself.
public struct GroupContents: Sendable {
    public var members: [Member]
    public var taskPhotos: TaskPhotos
    public var collages: [CollageRecord]
    /// The claims of tasks by members still in the group, expired ones too (the reader compares
    /// `expiresAt` with its clock).
    public var claims: [TaskClaim]

    public init(members: [Member], taskPhotos: TaskPhotos, collages: [CollageRecord], claims: [TaskClaim] = []) {
        self.members = members
        self.taskPhotos = taskPhotos
        self.collages = collages
        self.claims = claims
    }

    /// A new group's: its creator, who joined it at `now`, and nothing else.
    public static func created(by creator: Player, at now: Date) -> GroupContents {
        GroupContents(members: [Member(playerId: creator.id, name: creator.name, joinedAt: now, isCreator: true)], taskPhotos: TaskPhotos(photos: [], picks: [:]), collages: [])
    }
}

/// A group as staff see it: members, every photo (hidden ones too) and progress.
public struct StaffGroupView: Sendable {
    public var group: Group
    public var members: [Member]
    public var taskPhotos: TaskPhotos
    /// Photos of the group, newest first.
    public var photos: [Photo]
    /// Photos staff hid, and photos held for review (`held`, with no reason yet), newest first.
    public var hidden: [(photo: Photo, reason: String, at: Date, held: Bool)]

    public init(group: Group, members: [Member], taskPhotos: TaskPhotos, photos: [Photo], hidden: [(photo: Photo, reason: String, at: Date, held: Bool)]) {
        self.group = group
        self.members = members
        self.taskPhotos = taskPhotos
        self.photos = photos
        self.hidden = hidden
    }
}

/// A photo hidden by staff: the row moves out of `photo`, so that no visitor route can serve it.
public enum ModerationError: Error, Sendable, Equatable {
    case photoNotFound
    case groupNotFound
}

/// Where a page of `venueHistories` ends: the start and id of its last group.
public struct HistoryCursor: Sendable, Equatable {
    public var startedAt: Double
    public var groupId: String

    public init(after history: VisitNumbers.History) {
        startedAt = history.startedAt.timeIntervalSince1970
        groupId = history.groupId
    }

    /// After every group started before `date` (and those at `date` itself).
    public init(startedAfter date: Date) {
        startedAt = date.timeIntervalSince1970
        groupId = ""
    }
}

/// A member's pick of a task's photo, committed: the events stored with it, and whether a
/// collage may show it (`PhotoRules.Change.touchesCollage`), so that no collage is looked at
/// for a pick in a mission that is not complete.
public struct PhotoChoice: Sendable {
    public var events: [GroupEvent]
    public var touchesCollage: Bool

    public init(events: [GroupEvent], touchesCollage: Bool) {
        self.events = events
        self.touchesCollage = touchesCollage
    }
}

public struct NewPhoto: Sendable {
    public var groupId: String
    public var photographerId: String
    public var missionId: String?
    public var taskId: String?
    public var blob: String
    public var format: String
    public var width: Int
    public var height: Int
    public var idempotencyKey: String?
    public var focus: Focus?
    /// Whether the photographer makes it the task's chosen photo in place of the one before.
    public var choose: Bool

    public init(groupId: String, photographerId: String, missionId: String?, taskId: String?, blob: String, format: String, width: Int, height: Int, idempotencyKey: String?, focus: Focus? = nil, choose: Bool = false) {
        self.groupId = groupId
        self.photographerId = photographerId
        self.missionId = missionId
        self.taskId = taskId
        self.blob = blob
        self.format = format
        self.width = width
        self.height = height
        self.idempotencyKey = idempotencyKey
        self.focus = focus
        self.choose = choose
    }
}

/// What an erasure leaves for the caller to do outside the database.
public struct Erasure: Sendable, Equatable {
    /// Blobs no photo uses any more, whose files the caller removes.
    public var unusedBlobs: [String]
    /// Groups that lost photos, whose collages must be made again or withdrawn.
    public var groupsWithPhotos: [String]
    /// What the erasure told the groups, committed with it, in order.
    public var events: [GroupEvent]

    public init(unusedBlobs: [String], groupsWithPhotos: [String], events: [GroupEvent]) {
        self.unusedBlobs = unusedBlobs
        self.groupsWithPhotos = groupsWithPhotos
        self.events = events
    }
}

/// A player as an update left them, and the events it stored (a new name told to their group).
public struct PlayerUpdate: Sendable, Equatable {
    public var player: Player
    public var events: [GroupEvent]

    public init(player: Player, events: [GroupEvent]) {
        self.player = player
        self.events = events
    }
}

public enum StaffError: Error, Sendable, Equatable {
    case emailTaken
    case unknownStaff
}

/// What a member of staff did, as the audit log names it. Groupie writes every line with one
/// of these; a line is read back as the text it was written with.
public enum AuditAction: String, CaseIterable, Sendable {
    case signedIn = "signed in"
    case photoHidden = "photo hidden"
    case photoNotShared = "photo not shared after review"
    case photoRestored = "photo restored"
    case photoShared = "photo shared after review"
    case photoDeleted = "photo deleted"
    case groupClosed = "group closed"
    case groupReopened = "group reopened"
    case messageToGroup = "message sent to a group"
    case messageToEveryGroup = "message sent to every group"
    case numbersExported = "numbers exported"
    case tableCardsMade = "table cards made"
    case posterMade = "poster made"
    case photosDownloaded = "photos downloaded"
    case pictureUploaded = "picture uploaded"
    case missionsSaved = "missions saved"
    case missionsSaveFailed = "missions save failed"
    case missionsSaveRefused = "missions save refused"
    case staffAdded = "staff added"
    case staffRemoved = "staff removed"
    case passwordReset = "password reset"
    case staffRoleChanged = "staff role changed"
    case signInLockLifted = "sign-in lock lifted"
}

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var at: Date
    public var staffEmail: String
    public var venueId: String?
    public var action: String
    public var subject: String?
    public var reason: String?

    public init(at: Date, staffEmail: String, venueId: String?, action: String, subject: String?, reason: String?) {
        self.at = at
        self.staffEmail = staffEmail
        self.venueId = venueId
        self.action = action
        self.subject = subject
        self.reason = reason
    }

    /// A line Groupie writes: its action is one of `AuditAction`.
    public init(at: Date, staffEmail: String, venueId: String?, action: AuditAction, subject: String?, reason: String?) {
        self.init(at: at, staffEmail: staffEmail, venueId: venueId, action: action.rawValue, subject: subject, reason: reason)
    }
}

/// How many rows of each kind there are.
public struct RowCounts: Sendable, Equatable {
    public var players: Int
    public var groups: Int
    public var memberships: Int
    public var photos: Int

    public init(players: Int, groups: Int, memberships: Int, photos: Int = 0) {
        self.players = players
        self.groups = groups
        self.memberships = memberships
        self.photos = photos
    }
}
