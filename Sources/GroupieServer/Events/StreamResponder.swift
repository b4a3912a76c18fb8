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

/// Hummingbird's request metrics for every request but the event streams themselves, which are
/// counted as they open and close instead (`groupie_event_streams_open`). A stream lasts as
/// long as a visit: as a request duration it would swamp the figures of every other request,
/// and the metrics middleware holds on to the whole request and its context until the
/// response ends, about 2 KiB for each open stream. A request for a stream that is refused
/// (a 401, a 404) is counted as any other request.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics = MetricsMiddleware<Context>()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard EventStreamRequest.matches(request) else { return try await metrics.handle(request, context: context, next: next) }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            return try await metrics.handle(request, context: context) { _, _ in throw error }
        }
        if response.status == .ok { return response }
        return try await metrics.handle(request, context: context) { _, _ in response }
    }
}
