import Foundation
import GroupieCore
import Hummingbird

extension StaffPages {
    struct WallView: Sendable {
        struct Choice: Sendable {
            let value: String
            let label: String
            let selected: Bool
        }
        let venueURL: String
        let venueName: String
        let action: String
        let choices: [Choice]
        let names: [Choice]
        /// The pictures as JSON, and the venue's live feed, for `wall.js`.
        let items: String
        let events: String
        /// The chosen class's photos as a ZIP, for those who may moderate.
        let download: String?
    }

    func wall(_ venue: Venue, batches: [(key: String, groups: [Group])], choice: StaffWallController.Choice, session: StaffSession) -> Response {
        let clock = VenueClock(venue)
        var choices = [WallView.Choice(value: "", label: "Every group playing now", selected: choice.batch == nil)]
        choices += batches.map { batch in
            let first = batch.groups.first.map(Self.name) ?? "", last = batch.groups.last.map(Self.name) ?? ""
            let made = batch.groups.first.map { clock.string($0.createdAt) } ?? ""
            return .init(value: batch.key, label: "Table cards \(first) to \(last), made \(made)", selected: batch.key == choice.batch)
        }
        if let batch = choice.batch, !batches.contains(where: { $0.key == batch }) {
            choices.append(.init(value: batch, label: "A class no longer playing", selected: true))
        }
        let view = WallView(
            venueURL: StaffURL.venue(venue.id).path, venueName: Self.name(venue), action: StaffURL.wall(venueId: venue.id).path,
            choices: choices,
            names: [.init(value: "1", label: "Shown", selected: choice.names), .init(value: "0", label: "Hidden", selected: !choice.names)],
            items: StaffURL.wallItems(venueId: venue.id, batch: choice.batch, names: choice.names).path,
            events: StaffURL.events(venueId: venue.id).path,
            download: choice.batch != nil && session.member.may(.moderate, at: venue.id)
                ? StaffURL.venuePhotos(venueId: venue.id, batch: choice.batch).path : nil
        )
        return page("staff-wall", title: "Wall: \(Self.name(venue))", session: session, view)
    }
}
