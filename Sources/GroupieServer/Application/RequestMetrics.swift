import Dispatch
import Hummingbird
import Metrics
import Synchronization

/// The request metrics of Hummingbird's `MetricsMiddleware`, under the same names and
/// dimensions (requests, errors and durations by route, method and status; requests in
/// progress by method), for every request but the event streams themselves.
///
/// Three differences:
/// - Errors reach this middleware as problem documents, not thrown (`ProblemMiddleware` sits
///   inside it), so an answer of 400 or more counts as an error of its route, labelled with its
///   status, as Hummingbird labels a thrown error; an answer below 400 never makes the series.
/// - An event stream that opens is counted as it opens and closes instead
///   (`groupie_event_streams_open`). A stream lasts as long as a visit: as a request duration it
///   would swamp the figures of every other request, and waiting for its end would hold on to
///   the whole request and its context, about 2 KiB for each open stream. A request for a stream
///   that is refused (a 401, a 404) is counted as any other request.
/// - An answer of known length up to `smallAnswer` is counted when its route returns it.
///   Hummingbird writes the head, body and end of an answer held in one buffer in a single write
///   to the socket; an answer wrapped to count it once it is written goes out in three, each a
///   hop to the connection's event loop and a system call. A JSON document is small enough for
///   the socket's buffer to take it at once, so the time its write adds is not worth measuring
///   (group read under `wrk`: 2.5 writes a request when wrapped, one without; 54 to 67 µs of
///   server CPU a request instead of 60 to 73). A longer answer, or
///   one whose length is unknown (a file, a zip stream), is counted once it is written, as
///   Hummingbird does.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    static var smallAnswer: Int { 64 * 1024 }
    private let metrics = RequestMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let stream = EventStreamRequest.matches(request)
        let active = stream ? nil : metrics.active(request.method)
        active?.increment()
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let path = context.endpointPath ?? "NotFound"
            metrics.route(path, request.method, status).requests.increment()
            metrics.errors(path, request.method, status).increment()
            active?.decrement()
            throw error
        }
        if stream, response.status == .ok { return response }
        let path = context.endpointPath ?? "Unknown"
        if response.status.code >= 400 { metrics.errors(path, request.method, response.status).increment() }
        let route = metrics.route(path, request.method, response.status)
        let record: @Sendable () -> Void = {
            route.requests.increment()
            route.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
            active?.decrement()
        }
        if let length = response.body.contentLength, length <= Self.smallAnswer {
            record()
            return response
        }
        var counted = response
        let body = response.body
        counted.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { record() }
            try await body.write(writer)
        }
        return counted
    }
}

/// The metrics of each route, method and status, made once: swift-metrics finds a metric in
/// its factory's registry by label and dimensions, a lookup this spares every request. A
/// route's error counter is made by its first error, not beside every route's request counter.
private final class RequestMetrics: Sendable {
    struct Route: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
    }

    private struct Key: Hashable {
        let path: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status

        var dimensions: [(String, String)] {
            [("http.route", path), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code))]
        }
    }

    private let methods = Made<HTTPRequest.Method, Meter>()
    private let routes = Made<Key, Route>()
    private let errorCounters = Made<Key, Counter>()

    func active(_ method: HTTPRequest.Method) -> Meter {
        methods.value(for: method) { Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)]) }
    }

    func route(_ path: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Route {
        let key = Key(path: path, method: method, status: status)
        return routes.value(for: key) {
            Route(
                requests: Counter(label: "hb.requests", dimensions: key.dimensions),
                duration: Metrics.Timer(label: "http.server.request.duration", dimensions: key.dimensions, preferredDisplayUnit: .seconds)
            )
        }
    }

    func errors(_ path: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Counter {
        let key = Key(path: path, method: method, status: status)
        return errorCounters.value(for: key) {
            Counter(
                label: "hb.request.errors",
                dimensions: [("http.route", path), ("http.request.method", method.rawValue), ("error.type", String(status.code))]
            )
        }
    }
}

/// Values made once for each key, under a lock.
private final class Made<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])

    func value(for key: Key, make: () -> Value) -> Value {
        values.withLock { values in
            if let value = values[key] { return value }
            let value = make()
            values[key] = value
            return value
        }
    }
}
