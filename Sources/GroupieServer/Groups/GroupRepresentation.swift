import Foundation
import GroupieCore
import Hummingbird

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

    struct TaskProgress: Codable, Sendable {
        var id: String
        /// `open` or `done`.
        var state: String
    }

    struct MissionProgress: Codable, Sendable {
        var id: String
        var complete: Bool
        var unlocked: Bool
        var tasks: [TaskProgress]
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

    init(group: Group, members: [Member], venue: Venue?, language: String?, links: JoinLinks, now: Date) {
        id = group.id
        venueId = group.venueId
        venueName = venue.map { $0.name.resolved(language: language ?? $0.defaultLanguage, fallback: $0.defaultLanguage) }
        name = group.name
        joinCode = group.joinCode.value
        joinUrl = links.url(group.joinCode)
        createdAt = group.createdAt
        joinableUntil = group.joinableUntil
        joinable = group.isJoinable(at: now)
        // Photos are what completes tasks; until a group has any, every count is zero.
        self.members = members.map {
            MemberDocument(id: $0.playerId, name: $0.name, joinedAt: $0.joinedAt, isCreator: $0.isCreator, tasksCompleted: 0)
        }
        let progress = venue.map { GroupProgress(venue: $0, doneTasks: []) }
        missions = progress?.missions.map { mission in
            MissionProgress(
                id: mission.missionId, complete: mission.isComplete, unlocked: mission.isUnlocked,
                tasks: mission.tasks.map { TaskProgress(id: $0.taskId, state: $0.isDone ? "done" : "open") }
            )
        } ?? []
    }
}

struct NewGroup: RequestBody {
    static let fields: Set<String> = ["venueId", "name"]
    var venueId: String
    var name: String?
}

struct JoinRequest: RequestBody {
    static let fields: Set<String> = ["code"]
    var code: String
}

struct GroupEnvelope: ResponseCodable, Sendable {
    var group: GroupDocument
}
