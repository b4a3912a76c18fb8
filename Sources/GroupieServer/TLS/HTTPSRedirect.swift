import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// The plain-HTTP port beside HTTPS (`--http-redirect-port`): every request is sent on to the
/// same path and query at the public URL, so that a visitor who types the address without
/// `https://` still arrives. It serves nothing else.
enum HTTPSRedirect {
    static func server(host: String, port: Int, publicURL: String, timeouts: ConnectionTimeouts, logger: Logger) -> some Service {
        Application(
            responder: Responder(base: publicURL),
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionTimeoutHandler(timeouts: timeouts)])),
            configuration: .init(address: .hostname(host, port: port), serverName: "Groupie"),
            logger: logger
        )
    }

    struct Responder: HTTPResponder {
        /// The public URL without a trailing slash.
        let base: String

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            // The path and query only: a request line that names a host must not choose where to go.
            let path = (request.uri.path.hasPrefix("/") ? request.uri.path : "/") + (request.uri.query.map { "?" + $0 } ?? "")
            // 301 is what browsers remember; 308 keeps a form's POST a POST.
            let status: HTTPResponse.Status = request.method == .get || request.method == .head ? .movedPermanently : .permanentRedirect
            return Response(status: status, headers: [.location: base + path, .contentLength: "0"])
        }
    }
}
