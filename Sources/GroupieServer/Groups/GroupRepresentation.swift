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

struct GroupSummary: Codable, Sendable {
    var id: String
    var venueId: String
    var name: String?
    var joinCode: String
    var joinUrl: String
}

struct GroupDocument: Codable, Sendable {
    struct MemberDocument: Codable, Sendable {
        var id: String
        var name: String
        var joinedAt: Date
        var isCreator: Bool
        var tasksCompleted: Int
    }

    struct ChosenPhoto: Codable, Sendable {
        var id: String
        var photographerId: String
        var photographerName: String
        var thumbUrl: String
    }

    struct TaskProgress: Codable, Sendable {
        var id: String
        /// `open` or `done`.
        var state: String
        /// The photo the collage uses: a member's pick, else the latest.
        var chosenPhoto: ChosenPhoto?
    }

    struct MissionProgress: Codable, Sendable {
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
    var members: [MemberDocument]
    var missions: [MissionProgress]

    init(
        group: Group, members: [Member], venue: Venue?, language: String?, taskPhotos: GroupieDatabase.TaskPhotos,
        collages: [CollageRecord], links: JoinLinks, signer: ImageURLSigner, now: Date
    ) {
        id = group.id
        venueId = group.venueId
        venueName = venue.map { $0.name.resolved(language: language ?? $0.defaultLanguage, fallback: $0.defaultLanguage) }
        name = group.name
        joinCode = group.joinCode.value
        joinUrl = links.url(group.joinCode)
        createdAt = group.createdAt
        joinableUntil = group.joinableUntil
        joinable = group.isJoinable(at: now)
        let progress = venue.map { GroupProgress(venue: $0, doneTasks: taskPhotos.done) }
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
            if let chosen = taskPhotos.chosen(missionId: mission.missionId, taskIds: mission.tasks.map(\.taskId))?.map(\.id) {
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
                    return TaskProgress(id: task.taskId, state: task.isDone ? "done" : "open", chosenPhoto: chosen)
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

/// `{"group": ...}`, written with `JSONWriter` and kept by `GroupDocumentCache`: the group
/// document is what every member's phone asks for most often.
struct GroupEnvelope: ResponseGenerator, Sendable {
    var json: ByteBuffer

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: json))
    }
}

/// The group documents last written, by what they depend on. A change of the group comes
/// with an event, whose sequence number is part of the key, so a kept document is never
/// stale; a version no one asks for again is dropped when the cache is full.
final class GroupDocumentCache: Sendable {
    struct Key: Hashable, Sendable {
        var groupId: String
        var version: Int
        var language: String?
        var venueHash: String?
        var joinable: Bool
        var urlHour: Int
    }

    private let limit: Int
    private let entries = Mutex<[Key: ByteBuffer]>([:])

    init(limit: Int = 2048) {
        self.limit = limit
    }

    func document(for key: Key) -> ByteBuffer? {
        entries.withLock { $0[key] }
    }

    func store(_ json: ByteBuffer, for key: Key) {
        entries.withLock { entries in
            if entries.count >= limit {
                // Older versions of this group first; otherwise start afresh.
                let stale = entries.keys.filter { $0.groupId == key.groupId && $0.version < key.version }
                if stale.isEmpty { entries.removeAll(keepingCapacity: true) } else { stale.forEach { entries[$0] = nil } }
            }
            entries[key] = json
        }
    }
}

extension GroupDocument {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", id)
            json.field("venueId", venueId)
            json.field("venueName", venueName)
            json.field("name", name)
            json.field("joinCode", joinCode)
            json.field("joinUrl", joinUrl)
            json.field("createdAt", Timestamp.string(createdAt))
            json.field("joinableUntil", Timestamp.string(joinableUntil))
            json.field("joinable", joinable)
            json.key("members")
            json.array { json in
                for member in members {
                    json.object { json in
                        json.field("id", member.id)
                        json.field("name", member.name)
                        json.field("joinedAt", Timestamp.string(member.joinedAt))
                        json.field("isCreator", member.isCreator)
                        json.field("tasksCompleted", member.tasksCompleted)
                    }
                }
            }
            json.key("missions")
            json.array { json in
                for mission in missions {
                    json.object { json in
                        json.field("id", mission.id)
                        json.field("complete", mission.complete)
                        json.field("unlocked", mission.unlocked)
                        json.key("tasks")
                        json.array { json in
                            for task in mission.tasks {
                                json.object { json in
                                    json.field("id", task.id)
                                    json.field("state", task.state)
                                    if let photo = task.chosenPhoto {
                                        json.key("chosenPhoto")
                                        json.object { json in
                                            json.field("id", photo.id)
                                            json.field("photographerId", photo.photographerId)
                                            json.field("photographerName", photo.photographerName)
                                            json.field("thumbUrl", photo.thumbUrl)
                                        }
                                    }
                                }
                            }
                        }
                        if let collage = mission.collage {
                            json.key("collage")
                            collage.write(to: &json)
                        }
                    }
                }
            }
        }
    }
}
