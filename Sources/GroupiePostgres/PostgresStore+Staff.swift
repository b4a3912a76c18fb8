import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Staff accounts, sessions, the audit log, moderation and the venues' numbers, as
// `SQLiteStore` keeps them.
extension PostgresStore {
    // MARK: Staff

    public func addStaff(email: String, passwordHash: String, role: StaffRole, venueIds: Set<String>, now: Date, audit: AuditEntry?) async throws -> StaffMember {
        try await write { connection in try await Self.audited(connection, audit, logger: logger) {
            let member = StaffMember(id: Self.newId(), email: email, role: role, venueIds: venueIds)
            let inserted = try await connection.rows("""
                INSERT INTO staff (id, email, password_hash, role, created_at) VALUES (\(member.id), \(email), \(passwordHash), \(role.rawValue), \(now.timeIntervalSince1970))
                ON CONFLICT (email) DO NOTHING RETURNING 1
                """, logger: logger)
            guard !inserted.isEmpty else { throw StaffError.emailTaken }
            for venueId in venueIds.sorted() {
                try await connection.run("INSERT INTO staff_venue (staff_id, venue_id) VALUES (\(member.id), \(venueId))", logger: logger)
            }
            return member
        } }
    }

    public func allStaff() async throws -> [StaffMember] {
        try await read { connection in
            var members: [StaffMember] = []
            for id in try await connection.column("SELECT id FROM staff ORDER BY email", as: String.self, logger: logger) {
                if let member = try await Self.staffMember(connection, id: id, logger: logger) { members.append(member) }
            }
            return members
        }
    }

    public func staffCredentials(email: String) async throws -> StaffCredentials? {
        try await read { connection in
            guard let row = try await connection.one("SELECT id, password_hash FROM staff WHERE email = \(email)", logger: logger),
                let member = try await Self.staffMember(connection, id: try row.get(0), logger: logger)
            else { return nil }
            return StaffCredentials(member: member, passwordHash: try row.get(1))
        }
    }

    public func removeStaff(email: String, audit: AuditEntry?) async throws {
        try await write { connection in try await Self.audited(connection, audit, logger: logger) {
            guard try await connection.rows("DELETE FROM staff WHERE email = \(email) RETURNING 1", logger: logger).count == 1 else {
                throw StaffError.unknownStaff
            }
        } }
    }

    public func setStaffPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry?) async throws {
        try await write { connection in try await Self.audited(connection, audit, logger: logger) {
            guard let id = try await connection.value(
                "UPDATE staff SET password_hash = \(passwordHash), unlocked_at = \(now.timeIntervalSince1970) WHERE email = \(email) RETURNING id",
                as: String.self, logger: logger
            ) else { throw StaffError.unknownStaff }
            try await connection.run("DELETE FROM staff_session WHERE staff_id = \(id)", logger: logger)
        } }
    }

    public func setStaffRole(email: String, role: StaffRole, venueIds: Set<String>, audit: AuditEntry?) async throws -> StaffMember {
        try await write { connection in try await Self.audited(connection, audit, logger: logger) {
            guard let id = try await connection.value(
                "UPDATE staff SET role = \(role.rawValue) WHERE email = \(email) RETURNING id", as: String.self, logger: logger
            ) else { throw StaffError.unknownStaff }
            try await connection.run("DELETE FROM staff_venue WHERE staff_id = \(id)", logger: logger)
            for venueId in venueIds.sorted() {
                try await connection.run("INSERT INTO staff_venue (staff_id, venue_id) VALUES (\(id), \(venueId))", logger: logger)
            }
            return StaffMember(id: id, email: email, role: role, venueIds: venueIds)
        } }
    }

    public func unlockStaff(email: String, now: Date, audit: AuditEntry?) async throws {
        try await write { connection in try await Self.audited(connection, audit, logger: logger) {
            guard try await connection.value(
                "UPDATE staff SET unlocked_at = \(now.timeIntervalSince1970) WHERE email = \(email) RETURNING id", as: String.self, logger: logger
            ) != nil else { throw StaffError.unknownStaff }
        } }
    }

    public func staffUnlockedAt(email: String) async throws -> Date? {
        try await once { connection in
            try await connection.value("SELECT unlocked_at FROM staff WHERE email = \(email)", as: Double?.self, logger: logger)
                .flatMap { $0 }.map(Date.init(timeIntervalSince1970:))
        }
    }

    public func startStaffSession(staffId: String, tokenHash: Data, csrfToken: String, now: Date, lifetime: TimeInterval) async throws {
        try await write { connection in
            try await connection.run("DELETE FROM staff_session WHERE expires_at <= \(now.timeIntervalSince1970)", logger: logger)
            try await connection.run("""
                INSERT INTO staff_session (token_hash, staff_id, csrf_token, created_at, expires_at)
                VALUES (\(tokenHash), \(staffId), \(csrfToken), \(now.timeIntervalSince1970), \(now.timeIntervalSince1970 + lifetime))
                """, logger: logger)
        }
    }

    public func staffSession(tokenHash: Data, now: Date) async throws -> StaffSessionRecord? {
        try await read { connection in
            guard let row = try await connection.one("""
                SELECT staff_id, csrf_token FROM staff_session WHERE token_hash = \(tokenHash) AND expires_at > \(now.timeIntervalSince1970)
                """, logger: logger),
                let member = try await Self.staffMember(connection, id: try row.get(0), logger: logger)
            else { return nil }
            return StaffSessionRecord(member: member, csrfToken: try row.get(1))
        }
    }

    public func endStaffSession(tokenHash: Data) async throws {
        try await statement("DELETE FROM staff_session WHERE token_hash = \(tokenHash)")
    }

    public func audit(_ entry: AuditEntry) async throws {
        try await write { connection in try await Self.audited(connection, entry, logger: logger) {} }
    }

    /// Runs an action of staff and writes its line of the audit log in the same transaction:
    /// the log holds what was done, and nothing that was not.
    static func audited<T>(_ connection: PostgresConnection, _ entry: AuditEntry?, logger: Logger, _ action: () async throws -> T) async throws -> T {
        let result = try await action()
        if let entry {
            try await connection.run("""
                INSERT INTO staff_audit (at, staff_email, venue_id, action, subject, reason)
                VALUES (\(entry.at.timeIntervalSince1970), \(entry.staffEmail), \(entry.venueId), \(entry.action), \(entry.subject), \(entry.reason))
                """, logger: logger)
        }
        return result
    }

    public func auditLog(venueIds: Set<String>?, staffEmail: String, limit: Int) async throws -> [AuditEntry] {
        let everything = venueIds == nil
        let venues = (venueIds ?? []).sorted()
        return try await statement("""
            SELECT at, staff_email, venue_id, action, subject, reason FROM staff_audit
            WHERE \(everything) OR staff_email = \(staffEmail) OR venue_id = ANY(\(venues))
            ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            let row = row.makeRandomAccess()
            return AuditEntry(
                at: Date(timeIntervalSince1970: try row.get(0)), staffEmail: try row.get(1), venueId: try row.get(2),
                action: try row.get(3), subject: try row.get(4), reason: try row.get(5)
            )
        }
    }

    static func staffMember(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> StaffMember? {
        guard let row = try await connection.one("SELECT id, email, role FROM staff WHERE id = \(id)", logger: logger),
            let role = StaffRole(rawValue: try row.get(2))
        else { return nil }
        let venues = try await connection.column("SELECT venue_id FROM staff_venue WHERE staff_id = \(id)", as: String.self, logger: logger)
        return StaffMember(id: try row.get(0), email: try row.get(1), role: role, venueIds: Set(venues))
    }

    // MARK: Moderation

    public func playingGroups(venueId: String, limit: Int) async throws -> [Group] {
        try await once { connection in
            try await connection.rows("""
                SELECT \(unescaped: Self.groupColumns) FROM play_group
                WHERE venue_id = \(venueId) AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
                ORDER BY created_at DESC, id LIMIT \(limit)
                """, logger: logger).map(Self.group(from:))
        }
    }

    public func latestPhotos(venueId: String, limit: Int) async throws -> [Photo] {
        try await once { connection in
            try await connection.rows("""
                \(unescaped: Self.photoSelect) JOIN play_group ON play_group.id = photo.group_id WHERE play_group.venue_id = \(venueId)
                ORDER BY photo.created_at DESC, photo.id DESC LIMIT \(limit)
                """, logger: logger).map(Self.photo(from:))
        }
    }

    public func staffView(groupId: String) async throws -> StaffGroupView? {
        try await read { connection in
            guard let group = try await Self.group(connection, "SELECT \(unescaped: Self.groupColumns) FROM play_group WHERE id = \(groupId)", logger: logger)
            else { return nil }
            let photos = try await connection.rows(
                "\(unescaped: Self.photoSelect) WHERE photo.group_id = \(groupId) ORDER BY photo.created_at DESC, photo.id DESC", logger: logger
            ).map(Self.photo(from:))
            let hidden = try await connection.rows(
                "\(unescaped: Self.hiddenSelect) WHERE hidden_photo.group_id = \(groupId) ORDER BY hidden_photo.created_at DESC, hidden_photo.id DESC",
                logger: logger
            ).map { row in (try Self.photo(from: row), try row.get(13, as: String.self), Date(timeIntervalSince1970: try row.get(14)), try row.get(15, as: Bool.self)) }
            return StaffGroupView(
                group: group, members: try await Self.members(connection, group: group, logger: logger),
                taskPhotos: try await Self.taskPhotos(connection, groupId: groupId, logger: logger), photos: photos, hidden: hidden
            )
        }
    }

    public func moderatedPhoto(id: String) async throws -> ModeratedPhoto? {
        try await read { connection in
            if let photo = try await Self.photo(connection, id: id, logger: logger),
                let venueId = try await connection.value("SELECT venue_id FROM play_group WHERE id = \(photo.groupId)", as: String.self, logger: logger)
            {
                return ModeratedPhoto(photo: photo, venueId: venueId, hidden: false, held: false)
            }
            guard let row = try await connection.one("\(unescaped: Self.hiddenSelect) WHERE hidden_photo.id = \(id)", logger: logger) else { return nil }
            let photo = try Self.photo(from: row)
            guard let venueId = try await connection.value("SELECT venue_id FROM play_group WHERE id = \(photo.groupId)", as: String.self, logger: logger)
            else { return nil }
            return ModeratedPhoto(photo: photo, venueId: venueId, hidden: true, held: try row.get(15))
        }
    }

    public func heldPhotos(venueId: String, limit: Int) async throws -> HeldPhotos {
        try await read { connection in
            let photos = try await connection.rows("""
                \(unescaped: Self.hiddenSelect) JOIN play_group ON play_group.id = hidden_photo.group_id
                WHERE hidden_photo.held AND play_group.venue_id = \(venueId)
                ORDER BY hidden_photo.created_at, hidden_photo.id LIMIT \(limit)
                """, logger: logger).map(Self.photo(from:))
            let total = try await connection.value("""
                SELECT COUNT(*) FROM hidden_photo JOIN play_group ON play_group.id = hidden_photo.group_id
                WHERE hidden_photo.held AND play_group.venue_id = \(venueId)
                """, as: Int.self, logger: logger) ?? 0
            return HeldPhotos(photos: photos, total: total)
        }
    }

    public func heldPhotos(groupId: String, photographerId: String) async throws -> [Photo] {
        try await once { connection in
            try await connection.rows("""
                \(unescaped: Self.hiddenSelect) WHERE hidden_photo.held AND hidden_photo.group_id = \(groupId) AND hidden_photo.photographer_id = \(photographerId)
                ORDER BY hidden_photo.created_at, hidden_photo.id
                """, logger: logger).map(Self.photo(from:))
        }
    }

    public func hidePhoto(id: String, reason: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                try await hide(connection, id: id, reason: reason, venue: venue, now: now) { _, _ in }
            }
        }
    }

    /// The group's creator hides a teammate's photo: Core decides, in the hide's transaction
    /// and under the group's lock, whether `playerId` may (`PhotoRules.requireMayHide`).
    public func hidePhotoFromGroup(id: String, by playerId: String, reason: String, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            try await hide(connection, id: id, reason: reason, venue: venue, now: now) { photo, group in
                guard let photo else { throw ModerationError.photoNotFound }
                try PhotoRules.requireMayHide(photo, actorId: playerId, creatorId: group?.creatorId)
            }
        }
    }

    /// Hides the photo in the caller's transaction, once `check` has passed on it (nil when it is
    /// hidden already) and its locked group.
    private func hide(
        _ connection: PostgresConnection, id: String, reason: String, venue: Venue?, now: Date, check: (Photo?, Group?) throws -> Void
    ) async throws -> [GroupEvent] {
        guard let groupId = try await Self.photoGroup(connection, id: id, logger: logger) else { throw ModerationError.photoNotFound }
        let group = try await Self.lockGroup(connection, id: groupId, logger: logger)
        let found = try await Self.photo(connection, id: id, logger: logger)
        try check(found, group)
        guard let photo = found else {
            try await connection.run("""
                UPDATE hidden_photo SET held = false, hidden_reason = \(reason), hidden_at = \(now.timeIntervalSince1970) WHERE id = \(id) AND held
                """, logger: logger)
            return []
        }
        let change = try PhotoRules.change(.withdraw(photo), before: try await Self.taskPhotos(connection, groupId: photo.groupId, logger: logger), venue: venue)
        try await connection.run("""
            INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at,
                                      focus_x, focus_y, hidden_at, hidden_reason)
            SELECT id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y,
                   \(now.timeIntervalSince1970), \(reason)
            FROM photo WHERE id = \(id)
            """, logger: logger)
        try await connection.run("DELETE FROM photo WHERE id = \(id)", logger: logger)
        return try await Self.appendEvents(connection, groupId: photo.groupId, change.events, now: now, logger: logger)
    }

    public func restorePhoto(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                guard let groupId = try await Self.photoGroup(connection, id: id, logger: logger) else { throw ModerationError.photoNotFound }
                _ = try await Self.lockGroup(connection, id: groupId, logger: logger)
                guard let row = try await connection.one("\(unescaped: Self.hiddenSelect) WHERE hidden_photo.id = \(id)", logger: logger) else { return [] }
                let photo = try Self.photo(from: row)
                // In the album before it was hidden (not held for review since its upload): counted then.
                let shown = try await connection.value(
                    "SELECT EXISTS (SELECT 1 FROM group_event WHERE group_id = \(groupId) AND type = 'photo-added' AND data::jsonb ->> 'photoId' = \(id))",
                    as: Bool.self, logger: logger
                ) ?? false
                let change = try PhotoRules.change(
                    .restore(photo, restored: shown), before: try await Self.taskPhotos(connection, groupId: photo.groupId, logger: logger), venue: venue
                )
                try await connection.run("""
                    INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y)
                    SELECT id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, focus_x, focus_y
                    FROM hidden_photo WHERE id = \(id)
                    """, logger: logger)
                try await connection.run("DELETE FROM hidden_photo WHERE id = \(id)", logger: logger)
                return try await Self.appendEvents(connection, groupId: photo.groupId, change.events, now: now, logger: logger)
            }
        }
    }

    public func deletePhotoByStaff(id: String, venue: Venue?, now: Date, audit: AuditEntry?) async throws -> DeletedPhoto {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                guard let groupId = try await Self.photoGroup(connection, id: id, logger: logger) else { throw ModerationError.photoNotFound }
                _ = try await Self.lockGroup(connection, id: groupId, logger: logger)
                var events: [GroupEvent] = []
                let photo: Photo
                if let shown = try await Self.photo(connection, id: id, logger: logger) {
                    photo = shown
                    let change = try PhotoRules.change(.withdraw(photo), before: try await Self.taskPhotos(connection, groupId: photo.groupId, logger: logger), venue: venue)
                    try await connection.run("DELETE FROM photo WHERE id = \(id)", logger: logger)
                    events = try await Self.appendEvents(connection, groupId: photo.groupId, change.events, now: now, logger: logger)
                } else if let row = try await connection.one("\(unescaped: Self.hiddenSelect) WHERE hidden_photo.id = \(id)", logger: logger) {
                    photo = try Self.photo(from: row)
                    try await connection.run("DELETE FROM hidden_photo WHERE id = \(id)", logger: logger)
                } else {
                    throw ModerationError.photoNotFound
                }
                return DeletedPhoto(photo: photo, blobUnused: try await !Self.isBlobUsed(connection, photo.blob, logger: logger), events: events)
            }
        }
    }

    public func closeGroup(id: String, reason: String, now: Date, audit: AuditEntry?) async throws -> GroupChange {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                guard let group = try await Self.lockGroup(connection, id: id, logger: logger) else { throw ModerationError.groupNotFound }
                let decision = MembershipRules.close(group, reason: reason, now: now)
                return GroupChange(group: group.applying(decision.mutations), events: try await Self.apply(connection, decision, now: now, logger: logger))
            }
        }
    }

    public func reopenGroup(id: String, now: Date, audit: AuditEntry?) async throws -> GroupChange {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                guard let group = try await Self.lockGroup(connection, id: id, logger: logger) else { throw ModerationError.groupNotFound }
                let decision = MembershipRules.reopen(group)
                return GroupChange(group: group.applying(decision.mutations), events: try await Self.apply(connection, decision, now: now, logger: logger))
            }
        }
    }

    // MARK: Numbers

    public func visitTally(venueId: String) async throws -> VisitNumbers.Tally {
        try await once { connection in
            var tally = VisitNumbers.Tally()
            for row in try await connection.rows(
                "SELECT kind, mission_id, task_id, value, count FROM visit_tally WHERE venue_id = \(venueId) AND count > 0", logger: logger
            ) {
                tally.add(kind: try row.get(0), missionId: try row.get(1), taskId: try row.get(2), value: try row.get(3), count: try row.get(4))
            }
            return tally
        }
    }

    public func venueHistories(venueId: String, after: HistoryCursor?, limit: Int) async throws -> [VisitNumbers.History] {
        try await read { connection in
            var histories: [String: VisitNumbers.History] = [:]
            var order: [String] = []
            for row in try await connection.rows("""
                SELECT id, created_at, played FROM play_group
                WHERE venue_id = \(venueId)
                  AND (\(after?.startedAt)::double precision IS NULL OR created_at > \(after?.startedAt) OR (created_at = \(after?.startedAt) AND id > \(after?.groupId)))
                ORDER BY created_at, id LIMIT \(limit)
                """, logger: logger)
            {
                let id: String = try row.get(0)
                histories[id] = VisitNumbers.History(
                    groupId: id, startedAt: Date(timeIntervalSince1970: try row.get(1)), events: [], played: try row.get(2)
                )
                order.append(id)
            }
            guard !order.isEmpty else { return [] }
            for row in try await connection.rows("""
                SELECT group_id, type, data::jsonb ->> 'missionId', data::jsonb ->> 'taskId', created_at, data::jsonb ->> 'photoId' FROM group_event
                WHERE group_id = ANY(\(order)) AND type IN (\(unescaped: VisitNumbers.historyKinds))
                ORDER BY group_id, seq
                """, logger: logger)
            {
                guard let kind = GroupEventKind(rawValue: try row.get(1)) else { continue }
                histories[try row.get(0, as: String.self)]?.events.append(
                    .init(kind: kind, missionId: try row.get(2), taskId: try row.get(3), at: Date(timeIntervalSince1970: try row.get(4)), photoId: try row.get(5))
                )
            }
            return order.compactMap { histories[$0] }
        }
    }
}
