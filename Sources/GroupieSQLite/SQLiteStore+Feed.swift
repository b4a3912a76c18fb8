import Foundation
import GRDB
import GroupieCore
import GroupieStorage

/// The staff's photo feed of a venue.
extension SQLiteStore {
    /// A page of the venue's shown photos, newest first, with their groups, in one read.
    public func photoFeed(_ filter: PhotoFeedFilter) async throws -> [FeedPhoto] {
        try await writer.read { db in
            var conditions = ["play_group.venue_id = ?"]
            var arguments: StatementArguments = [filter.venueId]
            if let missionId = filter.missionId {
                conditions.append("photo.mission_id = ?")
                arguments += [missionId]
            }
            if let needle = filter.groupNeedle {
                conditions.append("(instr(swiftLowercaseString(play_group.join_code), ?) > 0 OR instr(swiftLowercaseString(coalesce(play_group.name, '')), ?) > 0)")
                arguments += [needle, needle]
            }
            if let from = filter.from {
                conditions.append("photo.created_at >= ?")
                arguments += [from.timeIntervalSince1970]
            }
            if let to = filter.to {
                conditions.append("photo.created_at < ?")
                arguments += [to.timeIntervalSince1970]
            }
            if let before = filter.before, let cursor = try Row.fetchOne(db, sql: "SELECT created_at, id FROM photo WHERE id = ?", arguments: [before]) {
                conditions.append("(photo.created_at < ? OR (photo.created_at = ? AND photo.id < ?))")
                arguments += [cursor[0] as Double, cursor[0] as Double, cursor[1] as String]
            }
            arguments += [filter.limit]
            let photos = try Row.fetchAll(db, sql: Self.photoSelect + """
                 JOIN play_group ON play_group.id = photo.group_id WHERE \(conditions.joined(separator: " AND "))
                ORDER BY photo.created_at DESC, photo.id DESC LIMIT ?
                """, arguments: arguments).map { Self.photo(from: $0) }
            let ids = Array(Set(photos.map(\.groupId)))
            guard !ids.isEmpty else { return [] }
            let marks = ids.map { _ in "?" }.joined(separator: ", ")
            var groups: [String: Group] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT \(Self.groupColumns) FROM play_group WHERE id IN (\(marks))", arguments: StatementArguments(ids)) {
                let group = Self.group(from: row)
                groups[group.id] = group
            }
            return photos.compactMap { photo in groups[photo.groupId].map { FeedPhoto(photo: photo, group: $0) } }
        }
    }
}
