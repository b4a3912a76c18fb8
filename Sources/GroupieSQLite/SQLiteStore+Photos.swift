import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    /// Records a photo whose files are already stored, with the events `PhotoRules` says it causes
    /// at `venue`. With an idempotency key the photographer used in this group within a day, for
    /// the same task, the first photo comes back and nothing is added (`created` is false); the
    /// same key for another task throws `PhotoError.keyReused`. At a venue that reviews photos
    /// before sharing, the photo is `held`: stored, but out of the album, the progress and the
    /// events until staff share it.
    public func addPhoto(_ new: NewPhoto, venue: Venue?, now: Date) async throws -> AddedPhoto {
        try await commits.write { db in
            if let key = new.idempotencyKey,
                let uploaded = try Self.uploaded(db, playerId: new.photographerId, groupId: new.groupId, key: key, now: now)
            {
                guard uploaded.photo.missionId == new.missionId, uploaded.photo.taskId == new.taskId else { throw PhotoError.keyReused }
                return AddedPhoto(photo: uploaded.photo, created: false, held: uploaded.held, events: [])
            }
            try Self.requireMember(db, of: new.groupId, playerId: new.photographerId, adding: true)
            let before = try Self.taskPhotos(db, groupId: new.groupId)
            try PhotoRules.requireAdmissible(new.missionId, now: now, before: before, venue: venue)
            let id = Self.newId()
            let hold = venue?.review == .beforeSharing
            try db.executeCached(
                sql: hold
                    ? """
                    INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at,
                                              focus_x, focus_y, hidden_at, hidden_reason, held)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', 1)
                    """
                    : """
                    INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, new.groupId, new.photographerId, new.missionId, new.taskId, new.blob, new.format, new.width, new.height, now.timeIntervalSince1970, new.focus?.x, new.focus?.y]
                    + (hold ? [now.timeIntervalSince1970] : [])
            )
            if let key = new.idempotencyKey {
                try db.executeCached(
                    sql: """
                        INSERT OR REPLACE INTO upload_key (player_id, group_id, key, photo_id, mission_id, task_id, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [new.photographerId, new.groupId, key, id, new.missionId, new.taskId, now.timeIntervalSince1970]
                )
            }
            if hold {
                return AddedPhoto(photo: try Self.heldPhoto(db, id: id)!, created: true, held: true, events: [])
            }
            let photo = try Self.photo(db, id: id)!
            let claims = (claims: try Self.claims(db, groupId: new.groupId), members: try Self.memberIds(db, groupId: new.groupId))
            let claimed = photo.task.map { ClaimRules.holds($0, by: photo.photographerId, claims: claims.claims, members: claims.members, now: now) } ?? false
            let change = try PhotoRules.change(.add(photo, choose: new.choose, claimed: claimed), before: before, venue: venue)
            if let task = photo.task, change.after.picks[task] != before.picks[task] {
                try Self.pick(db, groupId: new.groupId, task: task, photoId: photo.id)
            }
            let events = try Self.appendEvents(db, groupId: new.groupId, change.events, now: now)
            // The photographer's claim of the task ends with their photo.
            let released = try Self.applyClaim(db, .photographed(photo), groupId: new.groupId, photos: change.after, venue: venue, now: now, read: claims)
            return AddedPhoto(photo: photo, created: true, held: false, events: events + released)
        }
    }

    /// The photo a player already uploaded to a group with `key` within a day, if any: a retry
    /// answered from this needs no second upload processed. The caller compares the task.
    public func uploadedPhoto(playerId: String, groupId: String, key: String, now: Date) async throws -> UploadedPhoto? {
        try await lookup { db in try Self.uploaded(db, playerId: playerId, groupId: groupId, key: key, now: now) }
    }

    /// Forgets idempotency keys older than their lifetime; the retention sweep calls it.
    @discardableResult
    public func forgetExpiredUploadKeys(now: Date) async throws -> Int {
        try await commits.write { db in
            try db.executeCached(sql: "DELETE FROM upload_key WHERE created_at < ?", arguments: [now.timeIntervalSince1970 - Self.idempotencyKeyLifetime])
            return db.changesCount
        }
    }

    /// The group's photos, newest first, `limit` at most, older than the photo `before` when given.
    public func photos(groupId: String, missionId: String?, before: String?, limit: Int) async throws -> [Photo] {
        try await lookup { db in
            var conditions = ["photo.group_id = ?"]
            var arguments: StatementArguments = [groupId]
            if let missionId {
                conditions.append("photo.mission_id = ?")
                arguments += [missionId]
            }
            if let before, let cursor = try Row.fetchOne(db, sql: "SELECT created_at, id FROM photo WHERE id = ? AND group_id = ?", arguments: [before, groupId]) {
                conditions.append("(photo.created_at < ? OR (photo.created_at = ? AND photo.id < ?))")
                arguments += [cursor["created_at"] as Double, cursor["created_at"] as Double, cursor["id"] as String]
            }
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: Self.photoSelect + " WHERE \(conditions.joined(separator: " AND ")) ORDER BY photo.created_at DESC, photo.id DESC LIMIT ?",
                arguments: arguments
            ).map { Self.photo(from: $0) }
        }
    }

    /// A photo, when `playerId` is a member of its group.
    public func photo(id: String, seenBy playerId: String) async throws -> Photo? {
        try await lookup { db in
            guard let photo = try Self.photo(db, id: id), try Self.activeGroupId(db, playerId: playerId) == photo.groupId else { return nil }
            return photo
        }
    }

    /// A photo by id alone, for image requests that carry a signature instead of a token.
    public func photo(id: String) async throws -> Photo? {
        try await lookupOne { db in try Self.photo(db, id: id) }
    }

    /// A photo waiting for review: only its photographer is shown it.
    public func heldPhoto(id: String) async throws -> Photo? {
        try await lookup { db in try Self.heldPhoto(db, id: id) }
    }

    /// Deletes a photo when `PhotoRules` allows `actorId` to, with the events it causes at
    /// `venue`; returns it, and whether no photo uses its blob any more, so that the files can go.
    /// Throws `PhotoRules.Refusal.notAllowedToDelete`, or `PhotoError.photoNotFound` when
    /// the photo is not of the actor's group.
    public func deletePhoto(id: String, by actorId: String, venue: Venue?, now: Date) async throws -> DeletedPhoto {
        try await commits.write { db in
            // A photo held for review: only its photographer knows of it, and may take it back.
            if try Self.photo(db, id: id) == nil, let held = try Self.heldPhoto(db, id: id), held.photographerId == actorId,
                try Self.activeGroupId(db, playerId: actorId) == held.groupId
            {
                try db.executeCached(sql: "DELETE FROM hidden_photo WHERE id = ?", arguments: [id])
                return DeletedPhoto(photo: held, blobUnused: try !Self.isBlobUsed(db, held.blob), events: [])
            }
            guard let photo = try Self.photo(db, id: id), try Self.activeGroupId(db, playerId: actorId) == photo.groupId else {
                throw PhotoError.photoNotFound
            }
            let creatorId = try String.fetchOne(db, sql: "SELECT creator_id FROM play_group WHERE id = ?", arguments: [photo.groupId])
            let change = try PhotoRules.change(
                .remove(photo, actorId: actorId, creatorId: creatorId), before: try Self.taskPhotos(db, groupId: photo.groupId), venue: venue
            )
            try db.executeCached(sql: "DELETE FROM photo WHERE id = ?", arguments: [id])
            return DeletedPhoto(photo: photo, blobUnused: try !Self.isBlobUsed(db, photo.blob), events: try Self.appendEvents(db, groupId: photo.groupId, change.events, now: now))
        }
    }

    /// Records where a photo's subject is, found after the photo was stored.
    public func setFocus(photoId: String, _ focus: Focus) async throws {
        try await commits.write { db in
            try db.executeCached(sql: "UPDATE photo SET focus_x = ?, focus_y = ? WHERE id = ?", arguments: [focus.x, focus.y, photoId])
            try db.executeCached(sql: "UPDATE hidden_photo SET focus_x = ?, focus_y = ? WHERE id = ?", arguments: [focus.x, focus.y, photoId])
        }
    }

    /// Makes `photoId` the chosen photo of `task`, with the events it causes at `venue`. Throws
    /// `PhotoRules.Refusal.notOfThisTask`, or `MembershipError.groupNotFound` for an outsider.
    public func choosePhoto(groupId: String, task: GroupProgress.TaskKey, photoId: String, by member: Player, venue: Venue?, now: Date) async throws -> PhotoChoice {
        try await commits.write { db in
            try Self.requireMember(db, of: groupId, playerId: member.id, adding: false)
            guard let photo = try Self.photo(db, id: photoId) else { throw PhotoRules.Refusal.notOfThisTask }
            let change = try PhotoRules.change(.choose(photo, for: task, groupId: groupId, by: member), before: try Self.taskPhotos(db, groupId: groupId), venue: venue)
            try Self.pick(db, groupId: groupId, task: task, photoId: photoId)
            return PhotoChoice(events: try Self.appendEvents(db, groupId: groupId, change.events, now: now), touchesCollage: change.touchesCollage)
        }
    }

    static func pick(_ db: Database, groupId: String, task: GroupProgress.TaskKey, photoId: String) throws {
        try db.executeCached(
            sql: "INSERT OR REPLACE INTO task_choice (group_id, mission_id, task_id, photo_id) VALUES (?, ?, ?, ?)",
            arguments: [groupId, task.missionId, task.taskId, photoId]
        )
    }

    /// The photos of the group's tasks and its members' picks.
    public func taskPhotos(groupId: String) async throws -> TaskPhotos {
        try await lookup { db in try Self.taskPhotos(db, groupId: groupId) }
    }

    /// Blobs that no photo uses; what a crash between a delete and its file removal leaves.
    public func isBlobUsed(_ blob: String) async throws -> Bool {
        try await lookup { db in try Self.isBlobUsed(db, blob) }
    }

    // MARK: - Inside transactions

    /// Whether a photo, shown or hidden by staff, still uses the blob's files.
    static func isBlobUsed(_ db: Database, _ blob: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE blob = ?) OR EXISTS (SELECT 1 FROM hidden_photo WHERE blob = ?)"),
            arguments: [blob, blob]
        ) ?? false
    }

    static let photoSelect = SQLColumns.photoSelect

    static func photo(_ db: Database, id: String) throws -> Photo? {
        try db.cachedStatement(sql: photoSelect + " WHERE photo.id = ?").firstRow(arguments: [id]) { photo(from: $0) }
    }

    /// The photo uploaded with `key`, shown, or held for review (`held`); nil when it is gone
    /// or staff hid it.
    static func uploaded(_ db: Database, playerId: String, groupId: String, key: String, now: Date) throws -> UploadedPhoto? {
        guard let photoId = try String.fetchOne(
            db.cachedStatement(sql: "SELECT photo_id FROM upload_key WHERE player_id = ? AND group_id = ? AND key = ? AND created_at >= ?"),
            arguments: [playerId, groupId, key, now.timeIntervalSince1970 - idempotencyKeyLifetime]
        ) else { return nil }
        if let shown = try photo(db, id: photoId) { return UploadedPhoto(photo: shown, held: false) }
        return try heldPhoto(db, id: photoId).map { UploadedPhoto(photo: $0, held: true) }
    }

    static func heldPhoto(_ db: Database, id: String) throws -> Photo? {
        try Row.fetchOne(db, sql: hiddenSelect + " WHERE hidden_photo.id = ? AND hidden_photo.held = 1", arguments: [id]).map(photo(from:))
    }

    /// A row of `photoSelect`, read by position: the group document reads many of these.
    static func photo(from row: some PositionalColumns) -> Photo {
        let focusX: Double? = row.optional(11), focusY: Double? = row.optional(12)
        return Photo(
            id: row.value(0), groupId: row.value(1), photographerId: row.value(2), photographerName: row.value(3),
            missionId: row.optional(4), taskId: row.optional(5), blob: row.value(6), format: row.value(7),
            width: row.value(8), height: row.value(9), createdAt: Date(timeIntervalSince1970: row.value(10)),
            focus: focusX.flatMap { x in focusY.map { Focus(x: x, y: $0) } }
        )
    }

    static func taskPhotos(_ db: Database, groupId: String) throws -> TaskPhotos {
        let photos = try db.cachedStatement(sql: photoSelect + " WHERE photo.group_id = ? AND photo.task_id IS NOT NULL")
            .allRows(arguments: [groupId]) { photo(from: $0) }
        let choices = try db.cachedStatement(sql: "SELECT mission_id, task_id, photo_id FROM task_choice WHERE group_id = ?")
            .allRows(arguments: [groupId]) { row -> (GroupProgress.TaskKey, String) in
                (GroupProgress.TaskKey(missionId: row.value(0), taskId: row.value(1)), row.value(2))
            }
        let picks = Dictionary(choices, uniquingKeysWith: { _, last in last })
        return TaskPhotos(photos: photos, picks: picks, answered: try answered(db, groupId: groupId), missionStarts: try missionStarts(db, groupId: groupId))
    }
}
