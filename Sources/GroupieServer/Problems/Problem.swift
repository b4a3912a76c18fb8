import Foundation
import GroupieCore
import HTTPTypes
import Hummingbird

/// An error a client can act on, sent as an RFC 9457 problem document with a stable `code`.
public struct Problem: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// Stable, machine-readable: clients branch on this, never on `detail`.
    public var code: String
    /// One sentence for the person debugging the client.
    public var detail: String
    public var headers: HTTPFields
    /// Further members of the document, e.g. the fields that failed validation.
    public var extensions: [String: String]

    public init(_ status: HTTPResponse.Status, code: String, detail: String, headers: HTTPFields = [:], extensions: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var document: [String: String] = extensions
        document["type"] = "about:blank"
        document["title"] = status.reasonPhrase
        document["code"] = code
        document["detail"] = detail
        document["instance"] = request.uri.path
        document["requestId"] = context.id
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try encoder.encode(ProblemDocument(members: document, status: Int(status.code)))
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}

extension Problem {
    static func notFound(_ code: String, _ detail: String) -> Problem {
        Problem(.notFound, code: code, detail: detail)
    }

    /// Strangers and former members get this, as for a group that does not exist, so that
    /// group ids reveal nothing.
    static let groupNotFound = notFound("group-not-found", "There is no such group among yours.")

    /// The venue's staff closed the group: it takes no more members or photos.
    static func groupClosed(_ closed: Group.Closure) -> Problem {
        Problem(.gone, code: "group-closed", detail: "The museum's staff closed this group" + (closed.reason.isEmpty ? "." : ": \(closed.reason)"))
    }

    static func badRequest(_ code: String, _ detail: String) -> Problem {
        Problem(.badRequest, code: code, detail: detail)
    }
}

/// The JSON of a problem: string members and the numeric `status`.
private struct ProblemDocument: Encodable {
    var members: [String: String]
    var status: Int

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in members {
            try container.encode(value, forKey: Key(key))
        }
        try container.encode(status, forKey: Key("status"))
    }
}
