import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// A group's members, task photos, choices and collages in one statement: one round trip and one
// snapshot, where a read-only transaction of four reads took six round trips. Each part comes
// as a JSON array of objects, decoded here; a float8 in JSON keeps every digit (PostgreSQL 12 on).
extension PostgresStore {
    public func memberCount(groupId: String) async throws -> Int {
        try await once { connection in
            try await connection.one(Prepared<MemberCount>(groupId), logger: logger).map { try $0.get(0, as: Int.self) } ?? 0
        }
    }

    /// Asked by every join page a QR code opens.
    enum MemberCount: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT COUNT(*) FROM membership WHERE group_id = $1 AND left_at IS NULL"
    }

    static let membersJSON = """
        (SELECT COALESCE(json_agg(json_build_object('id', player.id, 'name', player.name, 'joinedAt', membership.joined_at)
                                  ORDER BY membership.joined_at, membership.id), '[]')
         FROM membership JOIN player ON player.id = membership.player_id
         WHERE membership.group_id = $1 AND membership.left_at IS NULL)
        """
    static let taskPhotosJSON = """
        (SELECT COALESCE(json_agg(json_build_object(
                    'id', photo.id, 'groupId', photo.group_id, 'photographerId', photo.photographer_id, 'photographerName', player.name,
                    'missionId', photo.mission_id, 'taskId', photo.task_id, 'blob', photo.blob, 'format', photo.format,
                    'width', photo.width, 'height', photo.height, 'createdAt', photo.created_at, 'focusX', photo.focus_x, 'focusY', photo.focus_y)), '[]')
         FROM photo JOIN player ON player.id = photo.photographer_id
         WHERE photo.group_id = $1 AND photo.task_id IS NOT NULL)
        """
    /// The photos members picked, the tasks answered right or found, without a photo, and when
    /// the group started each mission, as its numbers stored it (no task, no photo).
    static let choicesJSON = """
        (SELECT COALESCE(json_agg(json_build_object('missionId', mission_id, 'taskId', task_id, 'photoId', photo_id, 'at', at)), '[]')
         FROM (SELECT mission_id, task_id, photo_id, NULL::float8 AS at FROM task_choice WHERE group_id = $1
               UNION ALL SELECT DISTINCT mission_id, task_id, NULL, NULL::float8 FROM task_answer WHERE group_id = $1 AND correct
               UNION ALL SELECT mission_id, NULL, NULL, started_at FROM visit_mission WHERE group_id = $1 AND started_at IS NOT NULL) AS decided)
        """
    static let collagesJSON = """
        (SELECT COALESCE(json_agg(json_build_object('missionId', mission_id, 'photoIds', photo_ids, 'key', key, 'width', width,
                                                    'height', height, 'createdAt', created_at) ORDER BY created_at, mission_id), '[]')
         FROM collage WHERE group_id = $1)
        """

    /// The claims of members still in the group, expired ones too.
    static let claimsJSON = claimsJSON(alsoOf: nil)

    /// The claims of members still in the group and, with `joiner` (an SQL expression), of the
    /// player about to join it: a claim of a member who left stays, and shows again if they
    /// come back.
    static func claimsJSON(alsoOf joiner: String?) -> String {
        """
        (SELECT COALESCE(json_agg(json_build_object('missionId', task_claim.mission_id, 'taskId', task_claim.task_id,
                    'playerId', task_claim.player_id, 'name', player.name, 'claimedAt', task_claim.claimed_at)
                    ORDER BY task_claim.claimed_at, task_claim.mission_id, task_claim.task_id), '[]')
         FROM task_claim JOIN player ON player.id = task_claim.player_id
         WHERE task_claim.group_id = $1 AND (\(joiner.map { "task_claim.player_id = \($0) OR " } ?? "")EXISTS (
             SELECT 1 FROM membership
             WHERE membership.player_id = task_claim.player_id AND membership.group_id = task_claim.group_id AND membership.left_at IS NULL)))
        """
    }

    /// Columns: members, task photos, choices, collages, claims.
    enum ContentsOfGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT \(membersJSON)::text, \(taskPhotosJSON)::text, \(choicesJSON)::text, \(collagesJSON)::text, \(claimsJSON)::text"
    }

    /// Columns: task photos, choices.
    enum TaskPhotosOfGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT \(taskPhotosJSON)::text, \(choicesJSON)::text"
    }

    /// Columns: `groupColumns`, the creator's language, task photos, choices, collages.
    enum SubjectOfGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = """
            SELECT \(groupColumns), (SELECT language FROM player WHERE player.id = play_group.creator_id),
                   \(taskPhotosJSON)::text, \(choicesJSON)::text, \(collagesJSON)::text
            FROM play_group WHERE id = $1
            """
    }

    static func contents(_ connection: PostgresConnection, group: Group, logger: Logger) async throws -> GroupContents {
        // A SELECT without FROM has its one row, whatever the group.
        guard let row = try await connection.one(Prepared<ContentsOfGroup>(group.id), logger: logger) else {
            return GroupContents(members: [], taskPhotos: TaskPhotos(photos: [], picks: [:]), collages: [])
        }
        return try contents(row, from: 0, group: group)
    }

    /// The contents in the columns `contentsColumns` read, from column `first`.
    static func contents(_ row: PostgresRandomAccessRow, from first: Int, group: Group) throws -> GroupContents {
        GroupContents(
            members: try ContentsJSON.members(row.get(first), group: group),
            taskPhotos: try ContentsJSON.taskPhotos(photos: row.get(first + 1), choices: row.get(first + 2)),
            collages: try ContentsJSON.collages(row.get(first + 3), groupId: group.id), claims: try ContentsJSON.claims(row.get(first + 4))
        )
    }

    /// `playingGroups` with their members and task photos, in one statement.
    public func playingGroupContents(venueId: String, limit: Int) async throws -> [PlayingGroup] {
        try await once { connection in
            try await connection.rows(Prepared<PlayingGroupContents>(venueId, limit), logger: logger).map { row in
                let group = try Self.group(from: row)
                return PlayingGroup(
                    group: group, members: try ContentsJSON.members(row.get(9), group: group),
                    taskPhotos: try ContentsJSON.taskPhotos(photos: row.get(10), choices: row.get(11))
                )
            }
        }
    }

    /// Columns: `groupColumns`, members, task photos, choices; the JSON parts as a group's
    /// contents read them, of each group in turn.
    enum PlayingGroupContents: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .int8]
        static let sql = """
            SELECT \(groupColumns), \(ofEachGroup(membersJSON))::text, \(ofEachGroup(taskPhotosJSON))::text, \(ofEachGroup(choicesJSON))::text
            FROM play_group
            WHERE venue_id = $1 AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
            ORDER BY created_at DESC, id LIMIT $2
            """

        static func ofEachGroup(_ part: String) -> String {
            part.replacingOccurrences(of: "$1", with: "play_group.id")
        }
    }

    /// The group's task photos and choices, in one statement.
    static func taskPhotos(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> TaskPhotos {
        guard let row = try await connection.one(Prepared<TaskPhotosOfGroup>(groupId), logger: logger) else {
            return TaskPhotos(photos: [], picks: [:])
        }
        return try ContentsJSON.taskPhotos(photos: row.get(0), choices: row.get(1))
    }

    static func subject(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> CollageSubject? {
        guard let row = try await connection.one(Prepared<SubjectOfGroup>(groupId), logger: logger) else { return nil }
        return CollageSubject(
            group: try group(from: row), taskPhotos: try ContentsJSON.taskPhotos(photos: row.get(10), choices: row.get(11)),
            creatorLanguage: try row.get(9, as: String?.self), collages: try ContentsJSON.collages(row.get(12), groupId: groupId)
        )
    }
}

private struct MemberJSON: Decodable {
    let id: String, name: String, joinedAt: Double
}

private struct PhotoJSON: Decodable {
    let id: String, groupId: String, photographerId: String, photographerName: String
    let missionId: String?, taskId: String?, blob: String, format: String
    let width: Int, height: Int, createdAt: Double, focusX: Double?, focusY: Double?

    var photo: Photo {
        Photo(
            id: id, groupId: groupId, photographerId: photographerId, photographerName: photographerName,
            missionId: missionId, taskId: taskId, blob: blob, format: format, width: width, height: height,
            createdAt: Date(timeIntervalSince1970: createdAt), focus: focusX.flatMap { x in focusY.map { Focus(x: x, y: $0) } }
        )
    }
}

/// A member's pick of a task's photo, or a task answered right (no photo).
private struct ChoiceJSON: Decodable {
    let missionId: String, taskId: String?, photoId: String?, at: Double?
}

private struct ClaimJSON: Decodable {
    let missionId: String, taskId: String, playerId: String, name: String, claimedAt: Double
}

private struct CollageJSON: Decodable {
    let missionId: String, photoIds: String, key: String, width: Int, height: Int, createdAt: Double
}

enum ContentsJSON {
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    static func members(_ text: String, group: Group) throws -> [Member] {
        try decode([MemberJSON].self, text).map {
            Member(playerId: $0.id, name: $0.name, joinedAt: Date(timeIntervalSince1970: $0.joinedAt), isCreator: $0.id == group.creatorId)
        }
    }

    static func taskPhotos(photos: String, choices: String) throws -> TaskPhotos {
        var picks: [GroupProgress.TaskKey: String] = [:]
        var answered = Set<GroupProgress.TaskKey>()
        var missionStarts: [String: Date] = [:]
        for choice in try decode([ChoiceJSON].self, choices) {
            guard let taskId = choice.taskId else {
                if let at = choice.at { missionStarts[choice.missionId] = Date(timeIntervalSince1970: at) }
                continue
            }
            let task = GroupProgress.TaskKey(missionId: choice.missionId, taskId: taskId)
            if let photoId = choice.photoId { picks[task] = photoId } else { answered.insert(task) }
        }
        return TaskPhotos(photos: try decode([PhotoJSON].self, photos).map(\.photo), picks: picks, answered: answered, missionStarts: missionStarts)
    }

    static func claims(_ text: String) throws -> [TaskClaim] {
        try decode([ClaimJSON].self, text).map {
            TaskClaim(
                task: GroupProgress.TaskKey(missionId: $0.missionId, taskId: $0.taskId), playerId: $0.playerId, name: $0.name,
                claimedAt: Date(timeIntervalSince1970: $0.claimedAt)
            )
        }
    }

    static func collages(_ text: String, groupId: String) throws -> [CollageRecord] {
        try decode([CollageJSON].self, text).map {
            CollageRecord(
                groupId: groupId, missionId: $0.missionId, photoIds: $0.photoIds.split(separator: ",").map(String.init), key: $0.key,
                width: $0.width, height: $0.height, createdAt: Date(timeIntervalSince1970: $0.createdAt)
            )
        }
    }
}
