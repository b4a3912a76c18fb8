import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

extension StaffPages {
    struct FeedView: Sendable {
        struct Option: Sendable {
            let id: String
            let title: String
            let selected: Bool
        }
        struct Item: Sendable {
            let display: String
            let thumb: String
            let photographer: String
            let groupURL: String
            let groupName: String
            /// Beside a group's own name; an unnamed group's name is its code already.
            let joinCode: String?
            let closed: Bool
            let task: String?
            let takenAt: String
        }
        let venueURL: String
        let venueName: String
        let action: String
        let missions: [Option]
        let group: String
        let from: String
        let to: String
        let filtered: Bool
        let timeNote: String
        let photos: [Item]
        /// The next page's link when this page is full; the newest page's when this one is not it.
        let older: String?
        let newest: String?
    }

    /// The feed: each photo's thumbnail links to its display size, with its group (name and join
    /// code), its task's prompt and when it was taken at the venue.
    func feed(_ venue: Venue, photos: [FeedPhoto], query: StaffFeedQuery, full: Bool, session: StaffSession) -> Response {
        let time = StaffTime(venue: venue)
        let language = "en", fallback = venue.defaultLanguage
        var filters = query
        filters.before = ""
        let older = full ? photos.last.map { last -> String in
            var next = filters
            next.before = last.photo.id
            return StaffURL.feed(venueId: venue.id, next).path
        } : nil
        let view = FeedView(
            venueURL: StaffURL.venue(venue.id).path, venueName: Self.name(venue), action: StaffURL.feed(venueId: venue.id).path,
            missions: venue.missions.map {
                .init(id: $0.id, title: $0.title.resolved(language: language, fallback: fallback), selected: $0.id == query.mission)
            },
            group: query.group, from: query.from, to: query.to, filtered: !filters.pairs.isEmpty, timeNote: StaffTime.note(venue),
            photos: photos.map { entry in
                FeedView.Item(
                    display: StaffURL.photoDisplay(entry.photo.id).path, thumb: StaffURL.photoThumb(entry.photo.id).path,
                    photographer: entry.photo.photographerName, groupURL: StaffURL.group(entry.group.id).path, groupName: Self.name(entry.group),
                    joinCode: entry.group.name == nil ? nil : entry.group.joinCode.value, closed: entry.group.closed != nil, task: Self.task(of: entry.photo, venue: venue),
                    takenAt: time.string(entry.photo.createdAt)
                )
            },
            older: older, newest: query.before.isEmpty ? nil : StaffURL.feed(venueId: venue.id, filters).path
        )
        return page("staff-feed", title: "Photo feed · \(Self.name(venue))", session: session, view)
    }
}
