import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// The staff's photo feed of a venue, as `SQLiteStore` reads it.
extension PostgresStore {
    public func photoFeed(_ filter: PhotoFeedFilter) async throws -> [FeedPhoto] {
        try await read { connection in
            var cursor: (Double, String)?
            if let before = filter.before, let row = try await connection.one("SELECT created_at, id FROM photo WHERE id = \(before)", logger: logger) {
                cursor = (try row.get(0), try row.get(1))
            }
            let needle = filter.groupNeedle
            let from = filter.from?.timeIntervalSince1970, to = filter.to?.timeIntervalSince1970
            let photos = try await connection.rows("""
                \(unescaped: Self.photoSelect) JOIN play_group ON play_group.id = photo.group_id WHERE play_group.venue_id = \(filter.venueId)
                  AND (\(filter.missionId)::text IS NULL OR photo.mission_id = \(filter.missionId))
                  AND (\(needle)::text IS NULL OR strpos(lower(play_group.join_code), \(needle)) > 0
                       OR strpos(lower(coalesce(play_group.name, '')), \(needle)) > 0)
                  AND (\(from)::double precision IS NULL OR photo.created_at >= \(from))
                  AND (\(to)::double precision IS NULL OR photo.created_at < \(to))
                  AND (\(cursor?.0)::double precision IS NULL OR photo.created_at < \(cursor?.0) OR (photo.created_at = \(cursor?.0) AND photo.id < \(cursor?.1)))
                ORDER BY photo.created_at DESC, photo.id DESC LIMIT \(filter.limit)
                """, logger: logger).map(Self.photo(from:))
            let ids = Array(Set(photos.map(\.groupId)))
            guard !ids.isEmpty else { return [] }
            var groups: [String: Group] = [:]
            for row in try await connection.rows("SELECT \(unescaped: Self.groupColumns) FROM play_group WHERE id = ANY(\(ids))", logger: logger) {
                let group = try Self.group(from: row)
                groups[group.id] = group
            }
            return photos.compactMap { photo in groups[photo.groupId].map { FeedPhoto(photo: photo, group: $0) } }
        }
    }
}
