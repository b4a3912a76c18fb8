import Foundation
import GRDB
import GroupieCore
import GroupieStorage

/// What the venue's staff see of groups and do to them.
extension SQLiteStore {
    /// Groups of a venue with members now, newest first, at most `limit`.
    public func playingGroups(venueId: String, limit: Int) async throws -> [Group] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.groupColumns) FROM play_group
                WHERE venue_id = ? AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
                ORDER BY created_at DESC, id LIMIT ?
                """, arguments: [venueId, limit]).map { Self.group(from: $0) }
        }
    }

    /// `playingGroups` with their members and task photos: four statements in one read,
    /// whatever the number of groups.
    public func playingGroupContents(venueId: String, limit: Int) async throws -> [PlayingGroup] {
        try await writer.read { db in
            let playing = """
                SELECT id FROM play_group
                WHERE venue_id = ? AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
                ORDER BY created_at DESC, id LIMIT ?
                """
            let arguments: StatementArguments = [venueId, limit]
            let groups = try Row.fetchAll(db, sql: "SELECT \(Self.groupColumns) FROM play_group WHERE id IN (\(playing)) ORDER BY created_at DESC, id", arguments: arguments)
                .map { Self.group(from: $0) }
            let creators = Dictionary(uniqueKeysWithValues: groups.map { ($0.id, $0.creatorId) })
            var members: [String: [Member]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT membership.group_id, player.id, player.name, membership.joined_at FROM membership
                JOIN player ON player.id = membership.player_id
                WHERE membership.group_id IN (\(playing)) AND membership.left_at IS NULL
                ORDER BY membership.joined_at, membership.id
                """, arguments: arguments)
            {
                let groupId: String = row[0], playerId: String = row[1]
                members[groupId, default: []].append(
                    Member(playerId: playerId, name: row[2], joinedAt: Date(timeIntervalSince1970: row[3]), isCreator: (creators[groupId] ?? nil) == playerId)
                )
            }
            var photos: [String: [Photo]] = [:]
            for row in try Row.fetchAll(db, sql: Self.photoSelect + " WHERE photo.group_id IN (\(playing)) AND photo.task_id IS NOT NULL", arguments: arguments) {
                let photo = Self.photo(from: row)
                photos[photo.groupId, default: []].append(photo)
            }
            var picks: [String: [GroupProgress.TaskKey: String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT group_id, mission_id, task_id, photo_id FROM task_choice WHERE group_id IN (\(playing))", arguments: arguments) {
                picks[row[0], default: [:]][GroupProgress.TaskKey(missionId: row[1], taskId: row[2])] = row[3]
            }
            var answered: [String: Set<GroupProgress.TaskKey>] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT DISTINCT group_id, mission_id, task_id FROM task_answer WHERE correct = 1 AND group_id IN (\(playing))", arguments: arguments
            ) {
                answered[row[0], default: []].insert(GroupProgress.TaskKey(missionId: row[1], taskId: row[2]))
            }
            return groups.map { group in
                PlayingGroup(
                    group: group, members: members[group.id] ?? [],
                    taskPhotos: TaskPhotos(photos: photos[group.id] ?? [], picks: picks[group.id] ?? [:], answered: answered[group.id] ?? [])
                )
            }
        }
    }

    /// The newest photos of a venue's groups (shown ones only), newest first.
    public func latestPhotos(venueId: String, limit: Int) async throws -> [Photo] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: Self.photoSelect + """
                 JOIN play_group ON play_group.id = photo.group_id WHERE play_group.venue_id = ?
                ORDER BY photo.created_at DESC, photo.id DESC LIMIT ?
                """, arguments: [venueId, limit]).map { Self.photo(from: $0) }
        }
    }

    /// A group by id, whoever asks; staff routes check the venue themselves.
    public func group(id: String) async throws -> Group? {
        try await writer.read { db in try Self.group(db, where: "id = ?", id) }
    }

    /// Everything staff see of a group, in one read.
    public func staffView(groupId: String) async throws -> StaffGroupView? {
        try await writer.read { db in
            guard let group = try Self.group(db, where: "id = ?", groupId) else { return nil }
            let photos = try Row.fetchAll(
                db, sql: Self.photoSelect + " WHERE photo.group_id = ? ORDER BY photo.created_at DESC, photo.id DESC", arguments: [groupId]
            ).map { Self.photo(from: $0) }
            let hidden = try Row.fetchAll(
                db, sql: Self.hiddenSelect + " WHERE hidden_photo.group_id = ? ORDER BY hidden_photo.created_at DESC, hidden_photo.id DESC",
                arguments: [groupId]
            ).map { row in (Self.photo(from: row), row[13] as String, Date(timeIntervalSince1970: row[14]), row[15] as Bool) }
            return StaffGroupView(
                group: group, members: try Self.members(db, group: group), taskPhotos: try Self.taskPhotos(db, groupId: groupId),
                photos: photos, hidden: hidden
            )
        }
    }

    /// A photo shown, hidden or held for review, with the venue of its group: what staff routes
    /// check first.
    public func moderatedPhoto(id: String) async throws -> ModeratedPhoto? {
        try await writer.read { db in
            if let photo = try Self.photo(db, id: id), let group = try Self.group(db, where: "id = ?", photo.groupId) {
                return ModeratedPhoto(photo: photo, venueId: group.venueId, hidden: false, held: false)
            }
            guard let row = try Row.fetchOne(db, sql: Self.hiddenSelect + " WHERE hidden_photo.id = ?", arguments: [id]) else { return nil }
            let photo = Self.photo(from: row)
            guard let group = try Self.group(db, where: "id = ?", photo.groupId) else { return nil }
            return ModeratedPhoto(photo: photo, venueId: group.venueId, hidden: true, held: row[15])
        }
    }

    /// The photos of a venue's groups waiting for review, oldest first, at most `limit`, and how
    /// many wait in all.
    public func heldPhotos(venueId: String, limit: Int) async throws -> HeldPhotos {
        try await writer.read { db in
            let photos = try Row.fetchAll(db, sql: Self.hiddenSelect + """
                 JOIN play_group ON play_group.id = hidden_photo.group_id
                WHERE hidden_photo.held = 1 AND play_group.venue_id = ?
                ORDER BY hidden_photo.created_at, hidden_photo.id LIMIT ?
                """, arguments: [venueId, limit]).map { Self.photo(from: $0) }
            let total = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM hidden_photo JOIN play_group ON play_group.id = hidden_photo.group_id
                WHERE hidden_photo.held = 1 AND play_group.venue_id = ?
                """, arguments: [venueId]) ?? 0
            return HeldPhotos(photos: photos, total: total)
        }
    }

    /// A member's own photos of a group that wait for review, oldest first: only they know of them.
    public func heldPhotos(groupId: String, photographerId: String) async throws -> [Photo] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: Self.hiddenSelect + """
                 WHERE hidden_photo.held = 1 AND hidden_photo.group_id = ? AND hidden_photo.photographer_id = ?
                ORDER BY hidden_photo.created_at, hidden_photo.id
                """, arguments: [groupId, photographerId]).map { Self.photo(from: $0) }
        }
    }

    /// Hides a photo from the group's members: it leaves their album, their progress, the
    /// collages and the ZIP, with the events that causes at `venue`. A photo held for review
    /// stays hidden, with the reason. Hiding a hidden photo changes nothing.
    public func hidePhoto(id: String, reason: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.audited(db, audit) { try Self.hide(db, id: id, reason: reason, venue: venue, now: now) }
        }
    }

    /// The group's creator hides a teammate's photo: Core decides, in the hide's transaction,
    /// whether `playerId` may (`PhotoRules.requireMayHide`).
    public func hidePhotoFromGroup(id: String, by playerId: String, reason: String, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            guard let photo = try Self.photo(db, id: id), let group = try Self.group(db, where: "id = ?", photo.groupId) else { throw ModerationError.photoNotFound }
            try PhotoRules.requireMayHide(photo, actorId: playerId, creatorId: group.creatorId)
            return try Self.hide(db, id: id, reason: reason, venue: venue, now: now)
        }
    }

    private static func hide(_ db: Database, id: String, reason: String, venue: Venue?, now: Date) throws -> [GroupEvent] {
        guard let photo = try photo(db, id: id) else {
            try db.executeCached(
                sql: "UPDATE hidden_photo SET held = 0, hidden_reason = ?, hidden_at = ? WHERE id = ? AND held = 1",
                arguments: [reason, now.timeIntervalSince1970, id]
            )
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM hidden_photo WHERE id = ?)", arguments: [id]) == true { return [] }
            throw ModerationError.photoNotFound
        }
        let change = try PhotoRules.change(.withdraw(photo), before: try taskPhotos(db, groupId: photo.groupId), venue: venue)
        try db.executeCached(sql: """
            INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at,
                                      focus_x, focus_y, hidden_at, hidden_reason)
            SELECT id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y, ?, ?
            FROM photo WHERE id = ?
            """, arguments: [now.timeIntervalSince1970, reason, id])
        try db.executeCached(sql: "DELETE FROM photo WHERE id = ?", arguments: [id])
        return try appendEvents(db, groupId: photo.groupId, change.events, now: now)
    }

    /// Shows a hidden photo again, or shares one held for review, as a new photo of the album
    /// (it does not take back the choice it had). Restoring a shown photo changes nothing.
    public func restorePhoto(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.audited(db, audit) {
                guard let row = try Row.fetchOne(db, sql: Self.hiddenSelect + " WHERE hidden_photo.id = ?", arguments: [id]) else {
                    if try Self.photo(db, id: id) != nil { return [] }
                    throw ModerationError.photoNotFound
                }
                let photo = Self.photo(from: row)
                // In the album before it was hidden (not held for review since its upload): counted then.
                let shown = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM group_event WHERE group_id = ? AND type = 'photo-added' AND json_extract(data, '$.photoId') = ?)
                    """, arguments: [photo.groupId, photo.id]) ?? false
                let change = try PhotoRules.change(.restore(photo, restored: shown), before: try Self.taskPhotos(db, groupId: photo.groupId), venue: venue)
                try db.executeCached(sql: """
                    INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y)
                    SELECT id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y
                    FROM hidden_photo WHERE id = ?
                    """, arguments: [id])
                try db.executeCached(sql: "DELETE FROM hidden_photo WHERE id = ?", arguments: [id])
                return try Self.appendEvents(db, groupId: photo.groupId, change.events, now: now)
            }
        }
    }

    /// Deletes a photo, shown or hidden, for good; returns it, whether its files can go, and
    /// the events its leaving the album causes.
    public func deletePhotoByStaff(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> DeletedPhoto {
        try await commits.write { db in
            try Self.audited(db, audit) {
                var events: [GroupEvent] = []
                let photo: Photo
                if let shown = try Self.photo(db, id: id) {
                    photo = shown
                    let change = try PhotoRules.change(.withdraw(photo), before: try Self.taskPhotos(db, groupId: photo.groupId), venue: venue)
                    try db.executeCached(sql: "DELETE FROM photo WHERE id = ?", arguments: [id])
                    events = try Self.appendEvents(db, groupId: photo.groupId, change.events, now: now)
                } else if let row = try Row.fetchOne(db, sql: Self.hiddenSelect + " WHERE hidden_photo.id = ?", arguments: [id]) {
                    photo = Self.photo(from: row)
                    try db.executeCached(sql: "DELETE FROM hidden_photo WHERE id = ?", arguments: [id])
                } else {
                    throw ModerationError.photoNotFound
                }
                return DeletedPhoto(photo: photo, blobUnused: try !Self.isBlobUsed(db, photo.blob), events: events)
            }
        }
    }

    /// Closes a group: no more joins or photos. Closing a closed group changes nothing.
    public func closeGroup(id: String, reason: String, now: Date, audit: AuditEntry?) async throws -> GroupChange {
        try await commits.write { db in
            try Self.audited(db, audit) {
                guard let group = try Self.group(db, where: "id = ?", id) else { throw ModerationError.groupNotFound }
                let decision = MembershipRules.close(group, reason: reason, now: now)
                return GroupChange(group: group.applying(decision.mutations), events: try Self.apply(db, decision, now: now))
            }
        }
    }

    /// Reopens a closed group; reopening an open one changes nothing.
    public func reopenGroup(id: String, now: Date, audit: AuditEntry?) async throws -> GroupChange {
        try await commits.write { db in
            try Self.audited(db, audit) {
                guard let group = try Self.group(db, where: "id = ?", id) else { throw ModerationError.groupNotFound }
                let decision = MembershipRules.reopen(group)
                return GroupChange(group: group.applying(decision.mutations), events: try Self.apply(db, decision, now: now))
            }
        }
    }

    static let hiddenSelect = SQLColumns.hiddenSelect
}

extension SQLiteStore {
    /// The history of the groups of a venue still stored, in the order they started: when each
    /// started, and its photo, task and mission events in order. No names: what the research
    /// export reads, `limit` groups after `after` at a time (every group by default).
    public func venueHistories(venueId: String, after: HistoryCursor?, limit: Int) async throws -> [VisitNumbers.History] {
        try await writer.read { db in
            var histories: [String: VisitNumbers.History] = [:]
            var order: [String] = []
            // The page's groups: the same for both queries.
            let page = """
                SELECT id, created_at, played FROM play_group
                WHERE venue_id = ? AND (? IS NULL OR created_at > ? OR (created_at = ? AND id > ?))
                ORDER BY created_at, id LIMIT ?
                """
            let arguments: StatementArguments = [venueId, after?.startedAt, after?.startedAt, after?.startedAt, after?.groupId, limit]
            for row in try Row.fetchAll(db, sql: page, arguments: arguments) {
                let id: String = row[0]
                histories[id] = VisitNumbers.History(groupId: id, startedAt: Date(timeIntervalSince1970: row[1]), events: [], played: row[2])
                order.append(id)
            }
            guard !order.isEmpty else { return [] }
            let events = try Row.fetchCursor(db, sql: """
                SELECT e.group_id, e.type, json_extract(e.data, '$.missionId'), json_extract(e.data, '$.taskId'), e.created_at,
                    json_extract(e.data, '$.photoId')
                FROM group_event e
                WHERE e.group_id IN (SELECT id FROM (\(page))) AND e.type IN (\(VisitNumbers.historyKinds))
                ORDER BY e.group_id, e.seq
                """, arguments: arguments)
            while let row = try events.next() {
                guard let kind = GroupEventKind(rawValue: row[1]) else { continue }
                histories[row[0]]?.events.append(.init(kind: kind, missionId: row[2], taskId: row[3], at: Date(timeIntervalSince1970: row[4]), photoId: row[5]))
            }
            return order.compactMap { histories[$0] }
        }
    }
}
