import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Photos, choices and collages, as `SQLiteStore` keeps them.
extension PostgresStore {
    public func addPhoto(_ new: NewPhoto, venue: Venue?, now: Date) async throws -> AddedPhoto {
        try await write { connection in
            let (group, visit) = try await Self.lockGroupVisit(connection, id: new.groupId, logger: logger)
            if let key = new.idempotencyKey,
                let uploaded = try await Self.uploaded(connection, playerId: new.photographerId, groupId: new.groupId, key: key, now: now, logger: logger)
            {
                guard uploaded.photo.missionId == new.missionId, uploaded.photo.taskId == new.taskId else { throw PhotoError.keyReused }
                return AddedPhoto(photo: uploaded.photo, created: false, held: uploaded.held, events: [])
            }
            try MembershipRules.requireMember(
                of: new.groupId, current: try await Self.activeGroupId(connection, playerId: new.photographerId, logger: logger), group: group, adding: true
            )
            let before = try await Self.taskPhotos(connection, groupId: new.groupId, logger: logger)
            try PhotoRules.requireAdmissible(new.missionId, now: now, before: before, venue: venue)
            let id = Self.newId()
            let at = now.timeIntervalSince1970
            if venue?.review == .beforeSharing {
                try await connection.run("""
                    INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at,
                                              focus_x, focus_y, hidden_at, hidden_reason, held)
                    VALUES (\(id), \(new.groupId), \(new.photographerId), \(new.missionId), \(new.taskId), \(new.blob), \(new.format),
                            \(new.width), \(new.height), \(at), \(new.focus?.x), \(new.focus?.y), \(at), '', true)
                    """, logger: logger)
                try await Self.rememberKey(connection, new, photoId: id, now: now, logger: logger)
                return AddedPhoto(photo: try await Self.heldPhoto(connection, id: id, logger: logger)!, created: true, held: true, events: [])
            }
            try await connection.run("""
                INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y)
                VALUES (\(id), \(new.groupId), \(new.photographerId), \(new.missionId), \(new.taskId), \(new.blob), \(new.format),
                        \(new.width), \(new.height), \(at), \(new.focus?.x), \(new.focus?.y))
                """, logger: logger)
            try await Self.rememberKey(connection, new, photoId: id, now: now, logger: logger)
            let photo = try await Self.photo(connection, id: id, logger: logger)!
            let claims = try await Self.claimState(connection, groupId: new.groupId, logger: logger)
            let claimed = photo.task.map { ClaimRules.holds($0, by: photo.photographerId, claims: claims.claims, members: claims.members, now: now) } ?? false
            let change = try PhotoRules.change(.add(photo, choose: new.choose, claimed: claimed), before: before, venue: venue)
            if let task = photo.task, change.after.picks[task] != before.picks[task] {
                try await Self.pick(connection, groupId: new.groupId, task: task, photoId: photo.id, logger: logger)
            }
            let events = try await Self.apply(
                connection, Writes(groupId: new.groupId, events: change.events, visit: visit), now: now, logger: logger
            )
            // The photographer's claim of the task ends with their photo.
            let released = try await Self.applyClaim(
                connection, .photographed(photo), groupId: new.groupId, photos: change.after, venue: venue, now: now, logger: logger, read: claims
            )
            return AddedPhoto(photo: photo, created: true, held: false, events: events + released)
        }
    }

    static func rememberKey(_ connection: PostgresConnection, _ new: NewPhoto, photoId: String, now: Date, logger: Logger) async throws {
        guard let key = new.idempotencyKey else { return }
        try await connection.run("""
            INSERT INTO upload_key (player_id, group_id, key, photo_id, mission_id, task_id, created_at)
            VALUES (\(new.photographerId), \(new.groupId), \(key), \(photoId), \(new.missionId), \(new.taskId), \(now.timeIntervalSince1970))
            ON CONFLICT (player_id, group_id, key) DO UPDATE SET photo_id = excluded.photo_id, mission_id = excluded.mission_id,
                task_id = excluded.task_id, created_at = excluded.created_at
            """, logger: logger)
    }

    public func uploadedPhoto(playerId: String, groupId: String, key: String, now: Date) async throws -> UploadedPhoto? {
        try await read { try await Self.uploaded($0, playerId: playerId, groupId: groupId, key: key, now: now, logger: logger) }
    }

    @discardableResult
    public func forgetExpiredUploadKeys(now: Date) async throws -> Int {
        let cutoff = now.timeIntervalSince1970 - Self.idempotencyKeyLifetime
        return try await write { connection in
            try await connection.value(
                "WITH gone AS (DELETE FROM upload_key WHERE created_at < \(cutoff) RETURNING 1) SELECT COUNT(*) FROM gone", as: Int.self, logger: logger
            ) ?? 0
        }
    }

    public func photos(groupId: String, missionId: String?, before: String?, limit: Int) async throws -> [Photo] {
        try await read { connection in
            var cursor: (Double, String)?
            if let before, let row = try await connection.one("SELECT created_at, id FROM photo WHERE id = \(before) AND group_id = \(groupId)", logger: logger) {
                cursor = (try row.get(0), try row.get(1))
            }
            return try await connection.rows("""
                \(unescaped: Self.photoSelect) WHERE photo.group_id = \(groupId)
                  AND (\(missionId)::text IS NULL OR photo.mission_id = \(missionId))
                  AND (\(cursor?.0)::double precision IS NULL OR photo.created_at < \(cursor?.0) OR (photo.created_at = \(cursor?.0) AND photo.id < \(cursor?.1)))
                ORDER BY photo.created_at DESC, photo.id DESC LIMIT \(limit)
                """, logger: logger).map(Self.photo(from:))
        }
    }

    public func photo(id: String, seenBy playerId: String) async throws -> Photo? {
        try await read { connection in
            guard let photo = try await Self.photo(connection, id: id, logger: logger),
                try await Self.activeGroupId(connection, playerId: playerId, logger: logger) == photo.groupId
            else { return nil }
            return photo
        }
    }

    public func photo(id: String) async throws -> Photo? {
        try await once { try await Self.photo($0, id: id, logger: logger) }
    }

    public func heldPhoto(id: String) async throws -> Photo? {
        try await once { try await Self.heldPhoto($0, id: id, logger: logger) }
    }

    public func deletePhoto(id: String, by actorId: String, venue: Venue?, now: Date) async throws -> DeletedPhoto {
        try await write { connection in
            guard let groupId = try await Self.photoGroup(connection, id: id, logger: logger) else { throw PhotoError.photoNotFound }
            _ = try await Self.lockGroup(connection, id: groupId, logger: logger)
            if try await Self.photo(connection, id: id, logger: logger) == nil, let held = try await Self.heldPhoto(connection, id: id, logger: logger),
                held.photographerId == actorId, try await Self.activeGroupId(connection, playerId: actorId, logger: logger) == held.groupId
            {
                try await connection.run("DELETE FROM hidden_photo WHERE id = \(id)", logger: logger)
                return DeletedPhoto(photo: held, blobUnused: try await !Self.isBlobUsed(connection, held.blob, logger: logger), events: [])
            }
            guard let photo = try await Self.photo(connection, id: id, logger: logger),
                try await Self.activeGroupId(connection, playerId: actorId, logger: logger) == photo.groupId
            else { throw PhotoError.photoNotFound }
            let creatorId = try await connection.value("SELECT creator_id FROM play_group WHERE id = \(photo.groupId)", as: String.self, logger: logger)
            let change = try PhotoRules.change(
                .remove(photo, actorId: actorId, creatorId: creatorId), before: try await Self.taskPhotos(connection, groupId: photo.groupId, logger: logger),
                venue: venue
            )
            try await connection.run("DELETE FROM photo WHERE id = \(id)", logger: logger)
            return DeletedPhoto(
                photo: photo, blobUnused: try await !Self.isBlobUsed(connection, photo.blob, logger: logger),
                events: try await Self.appendEvents(connection, groupId: photo.groupId, change.events, now: now, logger: logger)
            )
        }
    }

    public func setFocus(photoId: String, _ focus: Focus) async throws {
        try await write { connection in
            try await connection.run("UPDATE photo SET focus_x = \(focus.x), focus_y = \(focus.y) WHERE id = \(photoId)", logger: logger)
            try await connection.run("UPDATE hidden_photo SET focus_x = \(focus.x), focus_y = \(focus.y) WHERE id = \(photoId)", logger: logger)
        }
    }

    public func choosePhoto(groupId: String, task: GroupProgress.TaskKey, photoId: String, by member: Player, venue: Venue?, now: Date) async throws -> PhotoChoice {
        try await write { connection in
            guard let (isMember, before) = try await Self.choiceSnapshot(connection, groupId: groupId, playerId: member.id, logger: logger), isMember else {
                throw MembershipError.groupNotFound
            }
            guard let photo = before.photos[task]?.first(where: { $0.id == photoId }) else { throw PhotoRules.Refusal.notOfThisTask }
            let change = try PhotoRules.change(.choose(photo, for: task, groupId: groupId, by: member), before: before, venue: venue)
            let events = try await Self.apply(connection, Writes(groupId: groupId, events: change.events, pick: (task, photoId)), now: now, logger: logger)
            return PhotoChoice(events: events, touchesCollage: change.touchesCollage)
        }
    }

    /// In one statement, the group's row locked until the transaction ends, whether the player
    /// is a member, and the group's task photos and picks; read again when another change of
    /// the group committed while this one waited for its row. Nil when there is no such group.
    static func choiceSnapshot(
        _ connection: PostgresConnection, groupId: String, playerId: String, logger: Logger
    ) async throws -> (isMember: Bool, taskPhotos: TaskPhotos)? {
        guard var row = try await connection.one(Prepared<ChoiceSnapshot>(groupId, playerId), logger: logger) else { return nil }
        if try !isCurrent(row, from: 0) {
            // Once: the second statement, the row already held, waits for nothing.
            guard let again = try await connection.one(Prepared<ChoiceSnapshot>(groupId, playerId), logger: logger) else { return nil }
            row = again
        }
        return (try row.get(2), try ContentsJSON.taskPhotos(photos: row.get(3), choices: row.get(4)))
    }

    /// Columns: the newest event's number on the row and in the snapshot, whether the player is
    /// a member, task photos, choices.
    enum ChoiceSnapshot: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .text]
        static let sql = """
            SELECT play_group.event_seq, \(newestEvent),
                   EXISTS (SELECT 1 FROM membership WHERE group_id = $1 AND player_id = $2 AND left_at IS NULL),
                   \(taskPhotosJSON)::text, \(choicesJSON)::text
            FROM play_group WHERE id = $1 FOR UPDATE
            """
    }

    public func taskPhotos(groupId: String) async throws -> TaskPhotos {
        try await once { try await Self.taskPhotos($0, groupId: groupId, logger: logger) }
    }

    public func isBlobUsed(_ blob: String) async throws -> Bool {
        try await once { try await Self.isBlobUsed($0, blob, logger: logger) }
    }

    // MARK: Collages

    public func saveCollage(_ record: CollageRecord, now: Date) async throws -> SavedCollage? {
        try await write { connection in
            guard try await Self.lockGroup(connection, id: record.groupId, logger: logger) != nil else { return nil }
            let previous = try await connection.value(
                "SELECT key FROM collage WHERE group_id = \(record.groupId) AND mission_id = \(record.missionId)", as: String.self, logger: logger
            )
            try await connection.run("""
                INSERT INTO collage (group_id, mission_id, photo_ids, key, width, height, created_at)
                VALUES (\(record.groupId), \(record.missionId), \(record.photoIds.joined(separator: ",")), \(record.key), \(record.width), \(record.height),
                        \(record.createdAt.timeIntervalSince1970))
                ON CONFLICT (group_id, mission_id) DO UPDATE SET photo_ids = excluded.photo_ids, key = excluded.key, width = excluded.width,
                    height = excluded.height, created_at = excluded.created_at
                """, logger: logger)
            let events = try await Self.appendEvents(connection, groupId: record.groupId, [.collageReady(missionId: record.missionId)], now: now, logger: logger)
            return SavedCollage(previousKey: previous == record.key ? nil : previous, events: events)
        }
    }

    public func collages(groupId: String) async throws -> [CollageRecord] {
        try await once { try await Self.collages($0, groupId: groupId, logger: logger) }
    }

    public func collageSubject(groupId: String) async throws -> CollageSubject? {
        try await once { try await Self.subject($0, groupId: groupId, logger: logger) }
    }

    @discardableResult
    public func deleteCollage(groupId: String, missionId: String, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            guard try await Self.lockGroup(connection, id: groupId, logger: logger) != nil else { return [] }
            let deleted = try await connection.rows(
                "DELETE FROM collage WHERE group_id = \(groupId) AND mission_id = \(missionId) RETURNING 1", logger: logger
            )
            guard !deleted.isEmpty else { return [] }
            return try await Self.appendEvents(connection, groupId: groupId, [.collageRemoved(missionId: missionId)], now: now, logger: logger)
        }
    }

    // MARK: - Inside transactions

    static func collages(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> [CollageRecord] {
        try await connection.rows(Prepared<CollagesOfGroup>(groupId), logger: logger).map { row in
            let ids: String = try row.get(2)
            return CollageRecord(
                groupId: try row.get(0), missionId: try row.get(1), photoIds: ids.split(separator: ",").map(String.init),
                key: try row.get(3), width: try row.get(4), height: try row.get(5), createdAt: Date(timeIntervalSince1970: try row.get(6))
            )
        }
    }

    enum CollagesOfGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT group_id, mission_id, photo_ids, key, width, height, created_at FROM collage WHERE group_id = $1 ORDER BY created_at, mission_id"
    }

    static func isBlobUsed(_ connection: PostgresConnection, _ blob: String, logger: Logger) async throws -> Bool {
        try await connection.value(
            "SELECT EXISTS (SELECT 1 FROM photo WHERE blob = \(blob)) OR EXISTS (SELECT 1 FROM hidden_photo WHERE blob = \(blob))", as: Bool.self,
            logger: logger
        ) ?? false
    }

    static let photoSelect = SQLColumns.photoSelect
    static let hiddenSelect = SQLColumns.hiddenSelect

    static func photo(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Photo? {
        try await connection.one(Prepared<PhotoById>(id), logger: logger).map(photo(from:))
    }

    enum PhotoById: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "\(photoSelect) WHERE photo.id = $1"
    }

    static func heldPhoto(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Photo? {
        try await connection.one("\(unescaped: hiddenSelect) WHERE hidden_photo.id = \(id) AND hidden_photo.held", logger: logger).map(photo(from:))
    }

    /// The group of a photo, shown or hidden: the row a change to the photo locks first.
    static func photoGroup(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> String? {
        try await connection.value("""
            SELECT group_id FROM photo WHERE id = \(id) UNION ALL SELECT group_id FROM hidden_photo WHERE id = \(id) LIMIT 1
            """, as: String.self, logger: logger)
    }

    static func uploaded(
        _ connection: PostgresConnection, playerId: String, groupId: String, key: String, now: Date, logger: Logger
    ) async throws -> UploadedPhoto? {
        guard let photoId = try await connection.value("""
            SELECT photo_id FROM upload_key WHERE player_id = \(playerId) AND group_id = \(groupId) AND key = \(key)
              AND created_at >= \(now.timeIntervalSince1970 - idempotencyKeyLifetime)
            """, as: String.self, logger: logger)
        else { return nil }
        if let shown = try await photo(connection, id: photoId, logger: logger) { return UploadedPhoto(photo: shown, held: false) }
        return try await heldPhoto(connection, id: photoId, logger: logger).map { UploadedPhoto(photo: $0, held: true) }
    }

    /// A row of `photoSelect` (or the first 13 columns of `hiddenSelect`), read by position.
    static func photo(from row: PostgresRandomAccessRow) throws -> Photo {
        let focusX = try row.get(11, as: Double?.self), focusY = try row.get(12, as: Double?.self)
        return Photo(
            id: try row.get(0), groupId: try row.get(1), photographerId: try row.get(2), photographerName: try row.get(3),
            missionId: try row.get(4), taskId: try row.get(5), blob: try row.get(6), format: try row.get(7),
            width: try row.get(8), height: try row.get(9), createdAt: Date(timeIntervalSince1970: try row.get(10)),
            focus: focusX.flatMap { x in focusY.map { Focus(x: x, y: $0) } }
        )
    }

    static func pick(_ connection: PostgresConnection, groupId: String, task: GroupProgress.TaskKey, photoId: String, logger: Logger) async throws {
        try await connection.run("""
            INSERT INTO task_choice (group_id, mission_id, task_id, photo_id) VALUES (\(groupId), \(task.missionId), \(task.taskId), \(photoId))
            ON CONFLICT (group_id, mission_id, task_id) DO UPDATE SET photo_id = excluded.photo_id
            """, logger: logger)
    }
}
