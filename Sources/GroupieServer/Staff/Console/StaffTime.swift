import Foundation
import GroupieCore

/// Times as the console shows them: in the venue's time zone, as its staff read a clock there
/// ("26 Nov 2026, 10:13"), never as UTC timestamps. A time of no venue (the audit log's own
/// lines) is shown in UTC, and says so.
struct StaffTime: Sendable {
    let timeZone: TimeZone
    let saysZone: Bool

    init(venue: Venue?) {
        if let venue, let zone = TimeZone(identifier: venue.timeZone) {
            timeZone = zone
            saysZone = false
        } else {
            timeZone = TimeZone(identifier: "UTC")!
            saysZone = true
        }
    }

    func string(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_GB"), calendar: Calendar(identifier: .gregorian))
        style.timeZone = timeZone
        return date.formatted(style) + (saysZone ? " UTC" : "")
    }

    /// "Times are in Europe/Stockholm time."
    static func note(_ venue: Venue) -> String {
        "Times are in \(venue.timeZone) time."
    }
}


/// A moment as the venue's clocks show it: "14:05, 26 Nov".
struct VenueClock {
    private let formatter: DateFormatter

    init(_ venue: Venue, format: String = "HH:mm, d MMM yyyy") {
        formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: venue.timeZone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = format
    }

    func string(_ date: Date) -> String { formatter.string(from: date) }
}
