import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

extension StaffPages {
    struct MessagesView: Sendable {
        struct Choice: Sendable {
            let value: String
            let label: String
            let selected: Bool
        }
        struct Sent: Sendable {
            let at: String
            let datetime: String
            let to: String
            let text: String
            let by: String
        }
        let venueURL: String
        let venueName: String
        /// The form, for those who may moderate.
        let action: String?
        let maximumLength = StaffMessage.maximumLength
        let perMinute = StaffMessageLimits.perMinute
        let perHour = StaffMessageLimits.perHour
        let choices: [Choice]
        let sent: [Sent]
        let timeZone: String
    }

    func messages(
        _ venue: Venue, groups: [Group], chosen: String?, sent: [AuditEntry], mayModerate: Bool, session: StaffSession
    ) -> Response {
        let names = Dictionary(groups.map { ($0.id, Self.name($0)) }, uniquingKeysWith: { a, _ in a })
        let open = groups.filter { $0.closed == nil }
        var choices = [MessagesView.Choice(value: "", label: "Every group playing now (\(open.count))", selected: chosen == nil)]
        choices += groups.map { .init(value: $0.id, label: Self.name($0) + ($0.closed == nil ? "" : " (closed)"), selected: $0.id == chosen) }
        let clock = VenueClock(venue)
        let view = MessagesView(
            venueURL: StaffURL.venue(venue.id).path, venueName: Self.name(venue),
            action: mayModerate ? StaffURL.messages(venueId: venue.id).path : nil,
            choices: choices,
            sent: sent.map { entry in
                .init(
                    at: clock.string(entry.at), datetime: Timestamp.string(entry.at),
                    to: entry.subject.map { names[$0] ?? "one group" } ?? "every group playing", text: entry.reason ?? "", by: entry.staffEmail
                )
            },
            timeZone: venue.timeZone
        )
        return page("staff-messages", title: "Messages to groups", session: session, view)
    }
}
