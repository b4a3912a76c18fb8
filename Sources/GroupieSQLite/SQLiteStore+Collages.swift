import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    /// Records a finished collage, replacing the mission's previous one; returns the previous
    /// key, whose files the caller removes. Nothing is stored when the group is gone.
    public func saveCollage(_ record: CollageRecord, now: Date) async throws -> SavedCollage? {
        try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM play_group WHERE id = ?)", arguments: [record.groupId]) == true else {
                return nil
            }
            let previous = try String.fetchOne(
                db, sql: "SELECT key FROM collage WHERE group_id = ? AND mission_id = ?", arguments: [record.groupId, record.missionId])
            try db.executeCached(
                sql: """
                    INSERT OR REPLACE INTO collage (group_id, mission_id, photo_ids, key, width, height, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [record.groupId, record.missionId, record.photoIds.joined(separator: ","), record.key, record.width, record.height, record.createdAt.timeIntervalSince1970]
            )
            let events = try Self.appendEvents(db, groupId: record.groupId, [.collageReady(missionId: record.missionId)], now: now)
            return SavedCollage(previousKey: previous == record.key ? nil : previous, events: events)
        }
    }

    /// The group's collages, in the order they were made.
    public func collages(groupId: String) async throws -> [CollageRecord] {
        try await lookup { db in try Self.collages(db, groupId: groupId) }
    }

    /// Whether the group still exists: collage files of groups that are gone are removed.
    public func groupExists(id: String) async throws -> Bool {
        try await lookup { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM play_group WHERE id = ?)", arguments: [id]) ?? false
        }
    }

    static func collages(_ db: Database, groupId: String) throws -> [CollageRecord] {
        try db.cachedStatement(sql: """
            SELECT group_id, mission_id, photo_ids, key, width, height, created_at FROM collage WHERE group_id = ? ORDER BY created_at, mission_id
            """
        ).allRows(arguments: [groupId]) { row in
            let ids: String = row.value(2)
            return CollageRecord(
                groupId: row.value(0), missionId: row.value(1), photoIds: ids.split(separator: ",").map(String.init),
                key: row.value(3), width: row.value(4), height: row.value(5), createdAt: Date(timeIntervalSince1970: row.value(6))
            )
        }
    }
}

extension SQLiteStore {
    public func collageSubject(groupId: String) async throws -> CollageSubject? {
        try await lookup { db in
            guard let group = try Self.group(db, where: "id = ?", groupId) else { return nil }
            let language = try group.creatorId.flatMap {
                try String.fetchOne(db.cachedStatement(sql: "SELECT language FROM player WHERE id = ?"), arguments: [$0])
            }
            return CollageSubject(
                group: group, taskPhotos: try Self.taskPhotos(db, groupId: groupId), creatorLanguage: language,
                collages: try Self.collages(db, groupId: groupId)
            )
        }
    }

    /// Forgets a mission's collage (its photos changed and it is no longer complete).
    @discardableResult
    public func deleteCollage(groupId: String, missionId: String, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            try db.executeCached(sql: "DELETE FROM collage WHERE group_id = ? AND mission_id = ?", arguments: [groupId, missionId])
            guard db.changesCount > 0 else { return [] }
            return try Self.appendEvents(db, groupId: groupId, [.collageRemoved(missionId: missionId)], now: now)
        }
    }
}
