import Foundation
import GroupieCore
import GroupieStorage
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

    func wall(_ venue: Venue, batches: [GroupBatch], choice: StaffWallController.Choice, session: StaffSession) -> Response {
        let clock = VenueClock(venue)
        var choices = [WallView.Choice(value: "", label: "Every group playing now", selected: choice.batch == nil)]
        choices += batches.map { batch in
            .init(value: batch.id, label: Self.label(batch, clock: clock), selected: batch.id == choice.batch)
        }
        if let batch = choice.batch, !batches.contains(where: { $0.id == batch }) {
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

    /// "Class 4B: Table 1 to Table 10, made 09:10", or "Table cards Table 1 to …" without a label.
    static func label(_ batch: GroupBatch, clock: VenueClock) -> String {
        (batch.label.map { "\($0):" } ?? "Table cards") + " \(tables(batch)), made \(clock.string(batch.createdAt))"
    }

    /// "Table 1 to Table 10"; the one table's name for a batch of one.
    static func tables(_ batch: GroupBatch) -> String {
        let first = batch.groups.first.map { name($0) } ?? "", last = batch.groups.last.map { name($0) } ?? ""
        return first == last ? first : "\(first) to \(last)"
    }
}
