import GroupieContent
import GroupieCore
import Hummingbird

extension StaffContext {
    /// The route's venue (`venueId`) when the member of staff may see it; 404 as if it did not
    /// exist otherwise.
    func venue(in catalog: VenueCatalog) throws -> (StaffSession, Venue) {
        let venueId = try parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        return (session, venue)
    }
}
