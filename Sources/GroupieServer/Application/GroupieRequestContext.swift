import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The per-request context of every Groupie route.
public struct GroupieRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    public var requestDecoder: GroupieRequestDecoder { GroupieRequestDecoder() }
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
