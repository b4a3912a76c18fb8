import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird
import Synchronization

/// How groups are linked to: `<public base URL>/j/<code>`, the URL QR codes carry.
struct JoinLinks: Sendable {
    let baseURL: String

    func url(_ code: JoinCode) -> String { "\(baseURL)/j/\(code.value)" }

    func summary(_ group: Group) -> GroupSummary {
        GroupSummary(id: group.id, venueId: group.venueId, name: group.name, joinCode: group.joinCode.value, joinUrl: url(group.joinCode))
    }
}

struct GroupSummary: Encodable, Sendable {
    var id: String
    var venueId: String
    var name: String?
    var joinCode: String
    var joinUrl: String
}

struct GroupDocument: Encodable, Sendable {
    struct MemberDocument: Encodable, Sendable {
        var id: String
        var name: String
        var joinedAt: Date
        var isCreator: Bool
        var tasksCompleted: Int
    }

    struct ChosenPhoto: Encodable, Sendable {
        var id: String
        var photographerId: String
        var photographerName: String
        var thumbUrl: String
    }

    struct TaskProgress: Encodable, Sendable {
        var id: String
        /// `open` or `done`.
        var state: String
        /// The photo the collage uses: a member's pick, else the first.
        var chosenPhoto: ChosenPhoto?
        /// The member who is on the task, while their claim holds (on a done task too: their
        /// photo will be its chosen one, unless a member picked another).
        var claim: ClaimDocument?
    }

    struct ClaimDocument: Encodable, Sendable {
        var playerId: String
        var name: String
        var expiresAt: Date
    }

    struct MissionProgress: Encodable, Sendable {
        var id: String
        var complete: Bool
        var unlocked: Bool
        var tasks: [TaskProgress]
        /// Complete missions only: the collage, ready or being made.
        var collage: CollageDocument?
    }

    var id: String
    var venueId: String
    /// Nil when the venue's mission file has been withdrawn.
    var venueName: String?
    var name: String?
    var joinCode: String
    var joinUrl: String
    var createdAt: Date
    var joinableUntil: Date
    var joinable: Bool
    /// Why the venue's staff closed the group, when they did: no more joins or photos.
    var closedReason: String?
    /// Why the group's visit is over (`VisitEnd`: `missions-done`, `missions-over`, `closed`, `joining-time-over`),
    /// when it is: the phones then show the recap. Nil while the visit goes on.
    var visitEnd: String?
    /// The group's own points and badges; absent when the venue has no points.
    var standing: StandingDocument?

    struct StandingDocument: Encodable, Sendable {
        var points: Int
        var badges: [String]

        init(_ standing: Standing) {
            points = standing.points
            badges = standing.badges.map(\.rawValue)
        }
    }
    var members: [MemberDocument]
    var missions: [MissionProgress]

    init(
        group: Group, members: [Member], venue: Venue?, language: String?, taskPhotos: TaskPhotos,
        collages: [CollageRecord], claims: [TaskClaim] = [], links: JoinLinks, signer: ImageURLSigner, now: Date
    ) {
        var claimOf: [GroupProgress.TaskKey: ClaimDocument] = [:]
        for claim in ClaimRules.holding(claims, members: Set(members.map(\.playerId)), now: now) {
            claimOf[claim.task] = ClaimDocument(playerId: claim.playerId, name: claim.name, expiresAt: claim.expiresAt)
        }
        id = group.id
        venueId = group.venueId
        venueName = venue.map { $0.name.resolved(language: language ?? $0.defaultLanguage, fallback: $0.defaultLanguage) }
        name = group.name
        joinCode = group.joinCode.value
        joinUrl = links.url(group.joinCode)
        createdAt = group.createdAt
        joinableUntil = group.joinableUntil
        joinable = group.isJoinable(at: now)
        closedReason = group.closed?.reason
        let progress = venue.map { GroupProgress(venue: $0, doneTasks: taskPhotos.done) }
        visitEnd = VisitEnd.of(group, progress: progress, over: venue.map { VisitEnd.over(in: $0, photos: taskPhotos, now: now) } ?? [], now: now)?.rawValue
        standing = venue.flatMap { venue in venue.points.map { StandingDocument(Standing(rules: $0, venue: venue, taskPhotos: taskPhotos)) } }
        // A member's standing: the tasks of the venue whose chosen photo is theirs.
        var completed: [String: Int] = [:]
        for mission in progress?.missions ?? [] {
            for task in mission.tasks {
                if let photo = taskPhotos.chosen[.init(missionId: mission.missionId, taskId: task.taskId)] {
                    completed[photo.photographerId, default: 0] += 1
                }
            }
        }
        self.members = members.map {
            MemberDocument(id: $0.playerId, name: $0.name, joinedAt: $0.joinedAt, isCreator: $0.isCreator, tasksCompleted: completed[$0.playerId] ?? 0)
        }
        missions = progress?.missions.map { mission in
            var collage: CollageDocument?
            // Ready while it shows the photos that are chosen now; otherwise it is being made again.
            let photoTaskIds = venue?.mission(id: mission.missionId)?.photoTaskIds ?? []
            if mission.isComplete, !photoTaskIds.isEmpty, let chosen = taskPhotos.chosen(missionId: mission.missionId, taskIds: photoTaskIds)?.map(\.id) {
                if let record = collages.first(where: { $0.missionId == mission.missionId }), record.photoIds == chosen {
                    collage = CollageDocument(record, signer: signer, now: now)
                } else {
                    collage = CollageDocument(renderingMissionId: mission.missionId)
                }
            }
            return MissionProgress(
                id: mission.missionId, complete: mission.isComplete, unlocked: mission.isUnlocked,
                tasks: mission.tasks.map { task in
                    let chosen = taskPhotos.chosen[.init(missionId: mission.missionId, taskId: task.taskId)].map {
                        ChosenPhoto(id: $0.id, photographerId: $0.photographerId, photographerName: $0.photographerName, thumbUrl: signer.url(photoId: $0.id, variant: "thumb", now: now))
                    }
                    // A done task's claim holds too: the claimer's photo takes the place of a
                    // teammate's that came first (`PhotoRules.Action.add`).
                    let claim = claimOf[.init(missionId: mission.missionId, taskId: task.taskId)]
                    return TaskProgress(id: task.taskId, state: task.isDone ? "done" : "open", chosenPhoto: chosen, claim: claim)
                },
                collage: collage
            )
        } ?? []
    }
}

struct NewGroup: StrictRequestBody {
    static let fields: Set<String> = ["venueId", "name"]
    var venueId: String
    var name: String?
}

struct JoinRequest: StrictRequestBody {
    static let fields: Set<String> = ["code"]
    var code: String
}

/// `{"group": ...}`, encoded once and kept by `GroupDocumentCache`: the group document is
/// what every member's phone asks for most often.
struct GroupEnvelope: ResponseGenerator, Sendable {
    var json: ByteBuffer

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: json))
    }
}

/// The group documents last written, by what they depend on. A change of the group comes
/// with an event, whose sequence number is part of the key; what the clock alone changes (a
/// claim's end, a timed mission's end, which may end the visit) is when a kept document stops
/// being served (`until`), so a kept document is never stale. Storing a group's new version drops its older ones (no one can ask for them
/// again), and the documents together stay under a byte bound: past it, the groups written
/// least recently go first.
final class GroupDocumentCache: Sendable {
    struct Key: Hashable, Sendable {
        var groupId: String
        var version: Int
        var language: String?
        var venueHash: String?
        var joinable: Bool
        var urlHour: Int
    }

    private struct Group {
        var version: Int
        var lastStored: UInt64
        var documents: [Key: Kept] = [:]
        var bytes: Int { documents.values.reduce(0) { $0 + $1.json.capacity } }
    }

    private struct Kept {
        var json: ByteBuffer
        /// When the clock alone changes the document; nil for never.
        var until: Date?
    }

    private struct State {
        var groups: [String: Group] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// At most this many bytes of documents are kept.
    let byteLimit: Int
    private let state = Mutex(State())

    init(byteLimit: Int = 8 << 20) {
        self.byteLimit = byteLimit
    }

    /// The document kept for `key`, unless the clock has changed it by `now`.
    func document(for key: Key, now: Date) -> ByteBuffer? {
        state.withLock { state in
            guard let kept = state.groups[key.groupId]?.documents[key] else { return nil }
            if let until = kept.until, now >= until { return nil }
            return kept.json
        }
    }

    /// The bytes the kept documents take.
    var storedBytes: Int { state.withLock { $0.bytes } }

    /// Keeps `json` for `key`, to be served until `until` (nil: until the group changes).
    func store(_ json: ByteBuffer, for key: Key, until: Date? = nil) {
        // Counted by capacity; a buffer with spare room is copied down to what it holds.
        var document = ByteBufferAllocator().buffer(capacity: json.readableBytes)
        document.writeImmutableBuffer(json)
        guard document.capacity <= byteLimit else { return }
        state.withLock { state in
            state.clock += 1
            var group = state.groups[key.groupId] ?? Group(version: key.version, lastStored: 0)
            if key.version < group.version { return }
            if key.version > group.version {
                state.bytes -= group.bytes
                group = Group(version: key.version, lastStored: 0)
            }
            state.bytes -= group.documents[key]?.json.capacity ?? 0
            group.documents[key] = Kept(json: document, until: until)
            group.lastStored = state.clock
            state.bytes += document.capacity
            state.groups[key.groupId] = group
            while state.bytes > byteLimit,
                let oldest = state.groups.min(by: { $0.value.lastStored < $1.value.lastStored }), oldest.key != key.groupId {
                state.bytes -= oldest.value.bytes
                state.groups[oldest.key] = nil
            }
        }
    }
}
