import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

/// A group's page with its album and moderation, and a venue's review queue.
extension StaffPages {
    struct GroupView: Sendable {
        struct Member: Sendable {
            let name: String
            let isCreator: Bool
        }
        struct Closed: Sendable {
            let at: String
            let reason: String
            /// The reopening form, for those who may moderate.
            let reopen: String?
        }
        let venueURL: String
        let venueName: String
        let members: [Member]
        let timeNote: String
        let closed: Closed?
        /// The closing form, for those who may moderate an open group.
        let close: String?
        /// The page that sends the group a message.
        let message: String
        /// The group's photos as a ZIP, for those who may moderate.
        let download: String?
        let photos: [PhotoCard]
        let hidden: [PhotoCard]
        let hiddenHeading: String
        /// The venue's live feed, of which the page listens to this group's events.
        let events: String
        let groupId: String
    }

    /// A photo on its group's page (`staff-photo.mustache`).
    struct PhotoCard: Sendable {
        /// The forms of those who may moderate: share or keep hidden a photo waiting for review,
        /// hide a shown one, restore a hidden one; delete any.
        struct Actions: Sendable {
            let share: Bool
            let mayHide: Bool
            let mayRestore: Bool
            let hide: String
            let restore: String
            let delete: String
        }
        let anchor: String
        let thumb: String
        /// The photo at display size: the thumbnail opens it.
        let display: String
        let photographer: String
        let task: String?
        let takenAt: String
        let isHidden: Bool
        let waiting: Bool
        let hiddenReason: String?
        let actions: Actions?
    }

    func group(_ view: StaffGroupView, venue: Venue?, session: StaffSession) -> Response {
        let mayModerate = session.member.may(.moderate, at: view.group.venueId)
        let time = StaffTime(venue: venue)
        func card(_ photo: Photo, hidden: (reason: String, held: Bool)?) -> PhotoCard {
            PhotoCard(
                anchor: "photo-" + photo.id, thumb: StaffURL.photoThumb(photo.id).path, display: StaffURL.photoDisplay(photo.id).path,
                photographer: photo.photographerName, task: Self.task(of: photo, venue: venue), takenAt: time.string(photo.createdAt),
                isHidden: hidden != nil,
                waiting: hidden?.held == true, hiddenReason: hidden.flatMap { $0.held ? nil : $0.reason },
                actions: mayModerate
                    ? .init(
                        share: hidden?.held == true, mayHide: hidden == nil, mayRestore: hidden != nil && hidden?.held == false,
                        hide: StaffURL.photoHide(photo.id).path, restore: StaffURL.photoRestore(photo.id).path,
                        delete: StaffURL.photoDelete(photo.id).path
                    ) : nil
            )
        }
        let page = GroupView(
            venueURL: StaffURL.venue(view.group.venueId).path, venueName: venue.map(Self.name) ?? view.group.venueId,
            members: view.members.map { .init(name: $0.name, isCreator: $0.isCreator) },
            timeNote: venue.map(StaffTime.note) ?? "Times are in UTC.",
            closed: view.group.closed.map {
                .init(at: time.string($0.at), reason: $0.reason, reopen: mayModerate ? StaffURL.groupReopen(view.group.id).path : nil)
            },
            close: view.group.closed == nil && mayModerate ? StaffURL.groupClose(view.group.id).path : nil,
            message: StaffURL.messages(venueId: view.group.venueId, groupId: view.group.id).path,
            download: mayModerate ? StaffURL.groupPhotos(view.group.id).path : nil,
            photos: view.photos.map { card($0, hidden: nil) },
            hidden: view.hidden.map { card($0.photo, hidden: ($0.reason, $0.held)) },
            hiddenHeading: view.hidden.contains { $0.held } ? "Hidden and waiting photos" : "Hidden photos",
            events: StaffURL.events(venueId: view.group.venueId).path, groupId: view.group.id
        )
        return self.page("staff-group", title: Self.name(view.group), session: session, page)
    }

    struct ReviewView: Sendable {
        struct Item: Sendable {
            struct Forms: Sendable {
                let share: String
                let hide: String
            }
            let anchor: String
            let display: String
            let photographer: String
            let task: String?
            let groupURL: String
            let takenAt: String
            /// Share and keep hidden, for those who may moderate.
            let forms: Forms?
        }
        let venueURL: String
        let venueName: String
        let beforeSharing: Bool
        let total: Int
        let waiting: String
        /// How many of the waiting photos the page shows, when it does not show them all.
        let shown: Int?
        let keys: Bool
        let photos: [Item]
        let venueReview: String
    }

    /// The review queue: the oldest waiting photo first, each with its share and hide forms.
    /// `review.js` adds the keys (S share, H hide, J and K or the arrows to move) and sends the
    /// forms without leaving the page; without it, each form comes back here.
    func review(_ venue: Venue, photos: [Photo], total: Int, session: StaffSession) -> Response {
        let mayModerate = session.member.may(.moderate, at: venue.id)
        let time = StaffTime(venue: venue)
        let items = photos.map { photo in
            ReviewView.Item(
                anchor: "held-" + photo.id, display: StaffURL.photoDisplay(photo.id).path, photographer: photo.photographerName,
                task: Self.task(of: photo, venue: venue), groupURL: StaffURL.group(photo.groupId).path, takenAt: time.string(photo.createdAt),
                forms: mayModerate ? .init(share: StaffURL.photoRestore(photo.id).path, hide: StaffURL.photoHide(photo.id).path) : nil
            )
        }
        let view = ReviewView(
            venueURL: StaffURL.venue(venue.id).path, venueName: Self.name(venue), beforeSharing: venue.review == .beforeSharing,
            total: total, waiting: Self.waitingForReview(total), shown: total > photos.count ? photos.count : nil,
            keys: mayModerate && !photos.isEmpty, photos: items, venueReview: StaffURL.review(venueId: venue.id).path
        )
        return page("staff-review", title: "Review queue · \(Self.name(venue))", session: session, view)
    }

    /// "Sharks: Photograph the biggest shark": the mission's title and the task's prompt as the
    /// venue's file words them (in English, else the venue's first language); the ids when the
    /// file no longer has them; nil for a free photo.
    static func task(of photo: Photo, venue: Venue?) -> String? {
        guard let missionId = photo.missionId else { return nil }
        let language = "en", fallback = venue?.defaultLanguage ?? "en"
        guard let mission = venue?.missions.first(where: { $0.id == missionId }) else {
            return [photo.missionId, photo.taskId].compactMap { $0 }.joined(separator: " / ")
        }
        let title = mission.title.resolved(language: language, fallback: fallback)
        guard let taskId = photo.taskId else { return title }
        guard let task = mission.tasks.first(where: { $0.id == taskId }) else { return title + " / " + taskId }
        return title + ": " + task.prompt.resolved(language: language, fallback: fallback)
    }
}
