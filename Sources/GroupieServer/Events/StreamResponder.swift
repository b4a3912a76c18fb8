import Hummingbird

/// Answers the requests for event streams (a group's, or a venue's in the staff console) in a
/// task of their own, and every other request in the connection's task as usual.
///
/// Swift's task allocator keeps, for the whole life of a task, the slabs that its deepest call
/// needed. A connection's task lives as long as its stream, which is a whole visit, while the
/// deepest calls (the router, the middleware, the checks that read the database) are over once
/// the stream's head is answered. Run there, they leave their frames' memory behind for every
/// open stream; run in a task that ends with the answer, they leave nothing, and the connection's
/// task keeps only what writing the stream needs.
struct StreamResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: Sendable {
    let inner: Inner

    @Sendable func respond(to request: Request, context: Inner.Context) async throws -> Response {
        guard EventStreamRequest.matches(request) else {
            return try await inner.respond(to: request, context: context)
        }
        let inner = self.inner
        let answering = Task { try await inner.respond(to: request, context: context) }
        return try await withTaskCancellationHandler { try await answering.value } onCancel: { answering.cancel() }
    }
}

enum EventStreamRequest {
    /// A request for an event stream: a GET of a path that ends in `/events`.
    static func matches(_ request: Request) -> Bool {
        request.method == .get && request.uri.path.hasSuffix("/events")
    }
}
