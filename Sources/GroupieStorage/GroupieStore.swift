import Foundation
import GroupieCore
import Synchronization

/// Everything the server asks of storage: one contract, kept by `GroupieDatabase` (SQLite, the
/// embedded default) and `PostgresStore` (several instances on one PostgreSQL). The contract
/// tests in `GroupieStorageTests` run every behaviour against both.
///
/// Every method that changes a group and returns events commits them with the change, numbered
/// in the group's gapless sequence; a backend shared by several instances announces them to the
/// others (`StoreEvents`).
public protocol GroupieStore: PlayerStore, GroupStore, EventStore, PhotoStore, CollageStore, StaffStore, ModerationStore, RateLimitStore, NumbersStore {
    /// Which backend this is, for logs and `/readyz`: "sqlite" or "postgresql".
    var backend: String { get }
    /// Whether the database answers now; what `/healthz` and `/readyz` ask.
    func isReachable() async -> Bool
    /// How many rows of each kind there are: for metrics, and for tests that check that a
    /// refused request changed nothing.
    func counts() async throws -> RowCounts
    /// Runs `body` when no other instance runs the job `name` now, and returns its result;
    /// nil, without running it, when another does (retention sweeps run on one instance at a time).
    func exclusively<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws -> T?
    /// Events committed by any instance, as each group's newest sequence number, for as long
    /// as the stream is read; nil when this process is the only writer (SQLite), whose events
    /// the server hands to its streams itself.
    func eventAnnouncements() -> AsyncStream<EventAnnouncement>?
}

/// The visitors: made with a token, renamed, erased with every trace.
public protocol PlayerStore: Sendable {
    func createPlayer(name: String, language: String?, tokenHash: Data, now: Date) async throws -> Player
    func player(id: String) async throws -> Player?
    func player(tokenHash: Data) async throws -> Player?
    /// Changes what is given; a new name is told to the player's group (`member-renamed`) in
    /// the same transaction. Nil when the player is gone.
    func updatePlayer(id: String, name: String?, language: String??, now: Date) async throws -> PlayerUpdate?
    /// Erases the player, and in the same transaction tells each group what it lost: their
    /// photos leave it (as staff withdrawing them would tell it, with `venue` giving the rules of
    /// a venue id) and they leave their group.
    @discardableResult
    func erasePlayer(id: String, now: Date, venue: @escaping @Sendable (String) -> Venue?) async throws -> Erasure
}

/// Groups and who is in them: made, joined, left, read by members, swept by retention.
public protocol GroupStore: Sendable {
    /// A new group with a fresh join code; its creator leaves any group they are in (that
    /// group's `member-left` is stored in the same transaction, in `left`) and is its first member.
    func createGroup(venueId: String, name: String?, creatorId: String, joinableFor: TimeInterval, now: Date) async throws -> Join
    func createGroupsInAdvance(venueId: String, names: [String], joinableFor: TimeInterval, now: Date) async throws -> [Group]
    /// Joins the group with `code`, leaving the player's current group, and stores the events of
    /// both in the same transaction. `maximumSize` gives the venue's limit for a venue id.
    func joinGroup(code: JoinCode, playerId: String, now: Date, maximumSize: @escaping @Sendable (String) -> Int) async throws -> Join
    /// Ends a membership and stores its `member-left` in the same transaction; returns it.
    @discardableResult
    func removeMember(groupId: String, playerId: String, by actorId: String, now: Date) async throws -> [GroupEvent]
    func membership(playerId: String, groupId: String) async throws -> Membership?
    /// The player of a token and, when they are a member of `groupId`, that membership: one
    /// read (one statement on PostgreSQL) for what every request of a member to its group asks
    /// first. Nil for an unknown token.
    func member(tokenHash: Data, groupId: String) async throws -> (player: Player, membership: Membership?)?
    func groupContents(_ group: Group) async throws -> GroupContents
    func currentGroup(of playerId: String) async throws -> Group?
    func group(code: JoinCode) async throws -> Group?
    func group(id: String) async throws -> Group?
    func groupExists(id: String) async throws -> Bool
    func membershipHistory(of playerId: String) async throws -> [(groupId: String, joinedAt: Date, leftAt: Date?)]
    /// Deletes the groups made before `cutoff`, and the players made before it who then
    /// belong to no group; returns the groups' count and the blobs no photo uses any more.
    func deleteGroups(createdBefore cutoff: Date) async throws -> (groups: Int, unusedBlobs: [String])
}

/// Each group's gapless sequence of events, read back by streams that resume.
public protocol EventStore: Sendable {
    func appendEvents(groupId: String, _ events: [GroupEventPayload], now: Date) async throws -> [GroupEvent]
    func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent]
    func activeGroupIds(venueId: String) async throws -> [String]
}

/// Photos of a group: added with their idempotency keys, deleted, chosen, read.
public protocol PhotoStore: Sendable {
    func addPhoto(_ new: NewPhoto, venue: Venue?, now: Date) async throws -> (photo: Photo, created: Bool, held: Bool, events: [GroupEvent])
    func uploadedPhoto(playerId: String, groupId: String, key: String, now: Date) async throws -> (photo: Photo, held: Bool)?
    @discardableResult
    func forgetExpiredUploadKeys(now: Date) async throws -> Int
    func photos(groupId: String, missionId: String?, before: String?, limit: Int) async throws -> [Photo]
    func photo(id: String, seenBy playerId: String) async throws -> Photo?
    func photo(id: String) async throws -> Photo?
    func heldPhoto(id: String) async throws -> Photo?
    func deletePhoto(id: String, by actorId: String, venue: Venue?, now: Date) async throws -> (photo: Photo, blobUnused: Bool, events: [GroupEvent])
    func setFocus(photoId: String, _ focus: Focus) async throws
    func choosePhoto(groupId: String, task: GroupProgress.TaskKey, photoId: String, by member: Player, venue: Venue?, now: Date) async throws -> [GroupEvent]
    func taskPhotos(groupId: String) async throws -> TaskPhotos
    func isBlobUsed(_ blob: String) async throws -> Bool
}

/// The collage last made of each mission of a group.
public protocol CollageStore: Sendable {
    /// Records a finished collage in place of the mission's previous one and stores its
    /// `collage-ready` in the same transaction; nil when the group is gone.
    func saveCollage(_ record: CollageRecord, now: Date) async throws -> SavedCollage?
    func collages(groupId: String) async throws -> [CollageRecord]
    func collageSubject(groupId: String) async throws -> CollageSubject?
    /// Withdraws a mission's collage and stores its `collage-removed` in the same transaction;
    /// no event when it had none.
    @discardableResult
    func deleteCollage(groupId: String, missionId: String, now: Date) async throws -> [GroupEvent]
}

/// Staff accounts, their sessions and the audit log.
public protocol StaffStore: Sendable {
    func addStaff(email: String, passwordHash: String, role: StaffRole, venueIds: Set<String>, now: Date) async throws -> StaffMember
    func allStaff() async throws -> [StaffMember]
    func staffCredentials(email: String) async throws -> (member: StaffMember, passwordHash: String)?
    func removeStaff(email: String) async throws
    func setStaffPassword(email: String, passwordHash: String) async throws
    func startStaffSession(staffId: String, tokenHash: Data, csrfToken: String, now: Date, lifetime: TimeInterval) async throws
    func staffSession(tokenHash: Data, now: Date) async throws -> (member: StaffMember, csrfToken: String)?
    func endStaffSession(tokenHash: Data) async throws
    func audit(_ entry: AuditEntry) async throws
    func auditLog(venueIds: Set<String>?, staffEmail: String, limit: Int) async throws -> [AuditEntry]
}

/// What staff see of a venue and do to its photos and groups; each action writes its audit line in its own transaction.
public protocol ModerationStore: Sendable {
    func playingGroups(venueId: String, limit: Int) async throws -> [Group]
    /// The same groups with their members and task photos, for the venue's page: read at once,
    /// however many groups there are.
    func playingGroupContents(venueId: String, limit: Int) async throws -> [PlayingGroup]
    func latestPhotos(venueId: String, limit: Int) async throws -> [Photo]
    func staffView(groupId: String) async throws -> StaffGroupView?
    func moderatedPhoto(id: String) async throws -> (photo: Photo, venueId: String, hidden: Bool, held: Bool)?
    func heldPhotos(venueId: String, limit: Int) async throws -> (photos: [Photo], total: Int)
    func heldPhotos(groupId: String, photographerId: String) async throws -> [Photo]
    // Each action of staff writes its line of the audit log, `audit`, in its own transaction.
    func hidePhoto(id: String, reason: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent]
    func restorePhoto(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent]
    func deletePhotoByStaff(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> (photo: Photo, blobUnused: Bool, events: [GroupEvent])
    func closeGroup(id: String, reason: String, now: Date, audit: AuditEntry?) async throws -> (group: Group, events: [GroupEvent])
}

/// Failed attempts per key, for the rate limits that must hold across instances.
public protocol RateLimitStore: Sendable {
    /// When `key` failed within the `window` seconds before `now`, oldest first.
    func failures(of key: String, within window: TimeInterval, now: Date) async throws -> [Date]
    /// Counts a failure of `key` at `now`; failures older than `window` may be forgotten.
    func recordFailure(of key: String, now: Date, window: TimeInterval) async throws
    /// Forgets every failure of `key` (a member of staff who signed in).
    func forgetFailures(of key: String) async throws
}

/// What the venue numbers and the research export read.
public protocol NumbersStore: Sendable {
    func visitTally(venueId: String) async throws -> VisitNumbers.Tally
    func venueHistories(venueId: String, after: HistoryCursor?, limit: Int) async throws -> [VisitNumbers.History]
}

extension GroupieStore {
    /// `saveCollage`, for tests: the key of the collage it replaced, whose files go.
    public func saveCollage(_ record: CollageRecord) async throws -> String? {
        try await saveCollage(record, now: record.createdAt)?.previousKey
    }

    public func deleteCollage(groupId: String, missionId: String) async throws {
        try await deleteCollage(groupId: groupId, missionId: missionId, now: Date())
    }

    // The actions of staff without a line in the audit log: for tests and tools.
    public func hidePhoto(id: String, reason: String, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await hidePhoto(id: id, reason: reason, venue: venue, now: now, audit: nil)
    }

    public func restorePhoto(id: String, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await restorePhoto(id: id, venue: venue, now: now, audit: nil)
    }

    public func deletePhotoByStaff(id: String, venue: Venue?, now: Date) async throws -> (photo: Photo, blobUnused: Bool, events: [GroupEvent]) {
        try await deletePhotoByStaff(id: id, venue: venue, now: now, audit: nil)
    }

    public func closeGroup(id: String, reason: String, now: Date) async throws -> (group: Group, events: [GroupEvent]) {
        try await closeGroup(id: id, reason: reason, now: now, audit: nil)
    }

    /// How long an idempotency key answers for the photo it first made.
    public static var idempotencyKeyLifetime: TimeInterval { 24 * 3600 }

    /// Every stored group of the venue, in the order they started.
    public func venueHistories(venueId: String) async throws -> [VisitNumbers.History] {
        try await venueHistories(venueId: venueId, after: nil, limit: Int.max)
    }
}

// MARK: - What the contract passes in and out

/// What a shared store tells every instance about stored events.
public enum EventAnnouncement: Sendable, Equatable {
    /// The group's events up to `seq` are committed.
    case committed(groupId: String, seq: Int)
    /// The announcements were cut off for a while and may have missed some: every stream
    /// should look at what was stored meanwhile.
    case resumed
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

    public init(members: [Member], taskPhotos: TaskPhotos, collages: [CollageRecord]) {
        self.members = members
        self.taskPhotos = taskPhotos
        self.collages = collages
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

/// Failed attempts per key in memory: the rate-limit state of a store that one process uses
/// alone, which a restart may forget.
public final class FailureLog: Sendable {
    public init() {}

    private let failures = Mutex<[String: [Date]]>([:])

    public func failures(of key: String, within window: TimeInterval, now: Date) -> [Date] {
        failures.withLock { failures in
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[key] = recent.isEmpty ? nil : recent
            return recent
        }
    }

    public func forget(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    public func record(_ key: String, now: Date, window: TimeInterval) {
        failures.withLock { failures in
            var recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            // Oldest first, as `failures(of:)` promises, though concurrent requests may record
            // their failures out of order.
            recent.insert(now, at: recent.firstIndex { $0 > now } ?? recent.endIndex)
            failures[key] = recent
            // Forget keys that went quiet, so that the table does not grow without bound.
            if failures.count > 10_000 {
                failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            }
        }
    }
}
