import Foundation
import GroupieCore

/// Everything the server asks of storage: one contract, kept by `SQLiteStore` (SQLite, the
/// embedded default) and `PostgresStore` (several instances on one PostgreSQL). The contract
/// tests in `GroupieStorageTests` run every behaviour against both.
///
/// Every method that changes a group and returns events commits them with the change, numbered
/// in the group's gapless sequence; a backend shared by several instances announces them to the
/// others (`StoreEvents`).
public protocol GroupieStore: PlayerStore, GroupStore, EventStore, PhotoStore, ClaimStore, AnswerStore, ReactionStore, CollageStore, StaffStore, ModerationStore, RateLimitStore, NumbersStore,
    StaffMessageStore, VenueGroupStore, GroupBatchStore
{
    /// Which backend this is, for logs and `/readyz`: "sqlite" or "postgresql".
    var backend: String { get }
    /// Whether the database answers now.
    func isReachable() async -> Bool
    /// What `/healthz` and `/readyz` say of the database: it answers, and no request found it
    /// damaged (`noteFailure`).
    func health() async -> StoreHealth
    /// Learns from an error a request ended with whether the database is damaged (SQLite's
    /// "database disk image is malformed"); true the first time it finds it so.
    func noteFailure(_ error: any Error) -> Bool
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
    /// Tells the other instances' staff pages `notice`, after the commit of what it tells of;
    /// they hear it as `.staff` among their `eventAnnouncements()`, and this instance does not.
    /// Nothing when this process is the only one (SQLite).
    func announce(_ notice: StaffNotice)
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
    /// `gate`'s failures are read first (on PostgreSQL in the statement that reads the groups);
    /// its refusal, thrown, changes nothing, and no group is read.
    func joinGroup(
        code: JoinCode, playerId: String, now: Date, gate: FailureGate?, maximumSize: @escaping @Sendable (String) -> Int
    ) async throws -> Join
    /// Ends a membership and stores its `member-left` in the same transaction; returns it.
    @discardableResult
    func removeMember(groupId: String, playerId: String, by actorId: String, now: Date) async throws -> [GroupEvent]
    func membership(playerId: String, groupId: String) async throws -> Membership?
    /// The player of a token and, when they are a member of `groupId`, that membership: one
    /// read (one statement on PostgreSQL) for what every request of a member to its group asks
    /// first. Nil for an unknown token.
    func member(tokenHash: Data, groupId: String) async throws -> MemberLookup?
    func groupContents(_ group: Group) async throws -> GroupContents
    /// How many members the group has now: what the join page tells before a name is typed.
    func memberCount(groupId: String) async throws -> Int
    func currentGroup(of playerId: String) async throws -> Group?
    func group(code: JoinCode) async throws -> Group?
    func group(id: String) async throws -> Group?
    func groupExists(id: String) async throws -> Bool
    func membershipHistory(of playerId: String) async throws -> [MembershipSpan]
    /// Deletes the groups made before `cutoff`, and the players made before it who then
    /// belong to no group; returns the groups' count and the blobs no photo uses any more.
    func deleteGroups(createdBefore cutoff: Date) async throws -> RetentionSweep
}

/// Each group's gapless sequence of events, read back by streams that resume.
public protocol EventStore: Sendable {
    func appendEvents(groupId: String, _ events: [GroupEventPayload], now: Date) async throws -> [GroupEvent]
    func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent]
    /// Each group's events after its number, oldest first and at most `limit` of each, group
    /// after group: what an instance relays when it hears of several groups' events at once.
    func events(after seqs: [String: Int], limit: Int) async throws -> [GroupEvent]
    /// Each of the groups' newest event (a group without events, or gone, has none).
    func newestEvents(of groupIds: [String]) async throws -> [String: Int]
    func activeGroupIds(venueId: String) async throws -> [String]
}

/// Photos of a group: added with their idempotency keys, deleted, chosen, read.
public protocol PhotoStore: Sendable {
    func addPhoto(_ new: NewPhoto, venue: Venue?, now: Date) async throws -> AddedPhoto
    func uploadedPhoto(playerId: String, groupId: String, key: String, now: Date) async throws -> UploadedPhoto?
    @discardableResult
    func forgetExpiredUploadKeys(now: Date) async throws -> Int
    func photos(groupId: String, missionId: String?, before: String?, limit: Int) async throws -> [Photo]
    func photo(id: String, seenBy playerId: String) async throws -> Photo?
    func photo(id: String) async throws -> Photo?
    func heldPhoto(id: String) async throws -> Photo?
    func deletePhoto(id: String, by actorId: String, venue: Venue?, now: Date) async throws -> DeletedPhoto
    func setFocus(photoId: String, _ focus: Focus) async throws
    func choosePhoto(groupId: String, task: GroupProgress.TaskKey, photoId: String, by member: Player, venue: Venue?, now: Date) async throws -> PhotoChoice
    func taskPhotos(groupId: String) async throws -> TaskPhotos
    func isBlobUsed(_ blob: String) async throws -> Bool
}

/// Members' claims of tasks ("Ada is on it"): each change decided by `ClaimRules` and stored
/// with its `task-claimed` or `task-released` in one transaction. A claim of a member who left
/// holds no more; the claimer's photo for the task ends it (in `addPhoto`'s transaction).
public protocol ClaimStore: Sendable {
    /// Claims `task` for `player`, a member of `groupId`; throws `ClaimRules.Refusal` when the
    /// task is done, locked or claimed by another member whose claim holds.
    func claimTask(groupId: String, task: GroupProgress.TaskKey, by player: Player, venue: Venue?, now: Date) async throws -> [GroupEvent]
    /// Ends the player's claim of `task`; no event when they had none holding.
    func releaseTask(groupId: String, task: GroupProgress.TaskKey, playerId: String, now: Date) async throws -> [GroupEvent]
}

/// Members' reactions to the group feed's entries (`GroupFeed`): each decided by
/// `ReactionRules` from the entry's event and stored as a `reaction-changed` event, with the
/// member's check, in one transaction.
public protocol ReactionStore: Sendable {
    /// Puts `playerId`'s `reaction` on the entry `entry` (the sequence number of one of the
    /// group's events), or takes it off; throws `MembershipError.groupNotFound` when the player
    /// is not a member of `groupId`, `ReactionRules.Refusal` when the entry takes no reaction.
    func react(groupId: String, entry: Int, reaction: String, on: Bool, playerId: String, now: Date) async throws -> [GroupEvent]
}

/// Members' answers to questions and the codes they found: each attempt decided by
/// `AnswerRules` and stored with its `task-answered` (and, when right, `task-done` and
/// `mission-completed`) in one transaction. A task answered right counts as done in
/// `TaskPhotos.answered`, wherever the group's task photos are read.
public protocol AnswerStore: Sendable {
    /// Stores `player`'s attempt at `task`; throws `AnswerRules.Refusal` (unknown or photo task,
    /// locked mission, done already, time up, unusable answer) or a `MembershipError`.
    func answerTask(groupId: String, task: GroupProgress.TaskKey, given: AnswerRules.Given, by player: Player, venue: Venue?, now: Date) async throws
        -> [GroupEvent]
    /// The group's attempts, oldest first.
    func taskAnswers(groupId: String) async throws -> [TaskAnswer]
    /// Every attempt of the venue's groups, with its group: what its numbers count.
    func venueAnswers(venueId: String) async throws -> [(groupId: String, answer: TaskAnswer)]
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

/// Staff accounts, their sessions and the audit log. Each change of an account writes its line
/// of the audit log, `audit`, in the change's own transaction.
public protocol StaffStore: Sendable {
    func addStaff(email: String, passwordHash: String, role: StaffRole, venueIds: Set<String>, now: Date, audit: AuditEntry?) async throws -> StaffMember
    func allStaff() async throws -> [StaffMember]
    func staffCredentials(email: String) async throws -> StaffCredentials?
    func removeStaff(email: String, audit: AuditEntry?) async throws
    /// Sets a new password hash, ends every session of the member and lifts the sign-in lock
    /// that wrong passwords put on the account (as of `now`).
    func setStaffPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry?) async throws
    /// Gives the member a new role and venues (none for an admin, who has every venue).
    func setStaffRole(email: String, role: StaffRole, venueIds: Set<String>, audit: AuditEntry?) async throws -> StaffMember
    /// Lifts the account's sign-in lock: attempts before `now` no longer count against it.
    func unlockStaff(email: String, now: Date, audit: AuditEntry?) async throws
    /// When the account's sign-in lock was last lifted; nil when never (or no such account).
    func staffUnlockedAt(email: String) async throws -> Date?
    func startStaffSession(staffId: String, tokenHash: Data, csrfToken: String, now: Date, lifetime: TimeInterval) async throws
    func staffSession(tokenHash: Data, now: Date) async throws -> StaffSessionRecord?
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
    /// A page of the venue's photo feed (shown photos only), newest first, with their groups.
    func photoFeed(_ filter: PhotoFeedFilter) async throws -> [FeedPhoto]
    func staffView(groupId: String) async throws -> StaffGroupView?
    func moderatedPhoto(id: String) async throws -> ModeratedPhoto?
    func heldPhotos(venueId: String, limit: Int) async throws -> HeldPhotos
    func heldPhotos(groupId: String, photographerId: String) async throws -> [Photo]
    // Each action of staff writes its line of the audit log, `audit`, in its own transaction.
    func hidePhoto(id: String, reason: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent]
    /// The group's creator hides a teammate's photo from the group, when Core's rule lets them:
    /// decided in the hide's own transaction.
    func hidePhotoFromGroup(id: String, by playerId: String, reason: String, venue: Venue?, now: Date) async throws -> [GroupEvent]
    func restorePhoto(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent]
    func deletePhotoByStaff(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> DeletedPhoto
    func closeGroup(id: String, reason: String, now: Date, audit: AuditEntry?) async throws -> GroupChange
    /// Reopens a group staff closed, with its `group-reopened` event; an open group is left as it is.
    func reopenGroup(id: String, now: Date, audit: AuditEntry?) async throws -> GroupChange
}

/// Failed attempts per key, for the rate limits that must hold across instances.
public protocol RateLimitStore: Sendable {
    /// When each of `keys` failed within the `window` seconds before `now`, oldest first (a key
    /// that did not fail has none): the limits a request passes, read at once.
    func failures(of keys: [String], within window: TimeInterval, now: Date) async throws -> [String: [Date]]
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

    public func deletePhotoByStaff(id: String, venue: Venue?, now: Date) async throws -> DeletedPhoto {
        try await deletePhotoByStaff(id: id, venue: venue, now: now, audit: nil)
    }

    public func closeGroup(id: String, reason: String, now: Date) async throws -> GroupChange {
        try await closeGroup(id: id, reason: reason, now: now, audit: nil)
    }

    // Changes of staff accounts without a line in the audit log: for tests and tools.
    public func addStaff(email: String, passwordHash: String, role: StaffRole, venueIds: Set<String>, now: Date) async throws -> StaffMember {
        try await addStaff(email: email, passwordHash: passwordHash, role: role, venueIds: venueIds, now: now, audit: nil)
    }

    public func removeStaff(email: String) async throws {
        try await removeStaff(email: email, audit: nil)
    }

    public func setStaffPassword(email: String, passwordHash: String, now: Date = Date()) async throws {
        try await setStaffPassword(email: email, passwordHash: passwordHash, now: now, audit: nil)
    }

    public func setStaffRole(email: String, role: StaffRole, venueIds: Set<String>) async throws -> StaffMember {
        try await setStaffRole(email: email, role: role, venueIds: venueIds, audit: nil)
    }

    /// How long an idempotency key answers for the photo it first made.
    public static var idempotencyKeyLifetime: TimeInterval { 24 * 3600 }

    /// Every stored group of the venue, in the order they started.
    public func venueHistories(venueId: String) async throws -> [VisitNumbers.History] {
        try await venueHistories(venueId: venueId, after: nil, limit: Int.max)
    }
}

extension GroupStore {
    /// Joins with no limit of failed attempts to pass.
    public func joinGroup(code: JoinCode, playerId: String, now: Date, maximumSize: @escaping @Sendable (String) -> Int) async throws -> Join {
        try await joinGroup(code: code, playerId: playerId, now: now, gate: nil, maximumSize: maximumSize)
    }
}

/// The failed attempts a change passes first, read in the change's own transaction: the
/// failures of `keys` within the `window` seconds before the change, which `check` refuses by
/// throwing.
public struct FailureGate: Sendable {
    public var keys: [String]
    public var window: TimeInterval
    public var check: @Sendable (_ failures: [String: [Date]]) throws -> Void

    public init(keys: [String], window: TimeInterval, check: @escaping @Sendable (_ failures: [String: [Date]]) throws -> Void) {
        self.keys = keys
        self.window = window
        self.check = check
    }
}

extension RateLimitStore {
    /// When `key` failed within the `window` seconds before `now`, oldest first.
    public func failures(of key: String, within window: TimeInterval, now: Date) async throws -> [Date] {
        try await failures(of: [key], within: window, now: now)[key] ?? []
    }
}

/// The database as `/healthz` and `/readyz` report it.
public enum StoreHealth: String, Sendable {
    case ok
    case unreachable
    /// The file is damaged: only a restore from a backup mends it.
    case damaged
}

extension GroupieStore {
    public func health() async -> StoreHealth { await isReachable() ? .ok : .unreachable }
    public func noteFailure(_ error: any Error) -> Bool { false }
}
