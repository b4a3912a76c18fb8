import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The per-request context of every Groupie route.
public struct GroupieRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection: the phone, or the reverse proxy in front of Groupie.
    public let remoteAddress: SocketAddress?
    /// The player of the bearer token, set by `PlayerAuthenticator` or `GroupMemberRequired`.
    @Boxed public var identity: Player?
    /// The group of the route's `{groupId}`, set by `GroupMemberRequired` for its members.
    @Boxed public var membership: Membership?
    /// The member of staff of the session cookie, set by `StaffAuthenticator` on `/staff` routes.
    @Boxed var staffSession: StaffSession?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.identity = nil
        self.membership = nil
        self.staffSession = nil
    }

    /// The player, on routes behind `PlayerRequired`.
    var player: Player {
        get throws {
            guard let identity else { throw BearerToken.missing }
            return identity
        }
    }

    /// The membership, on routes behind `GroupMemberRequired`.
    var member: Membership {
        get throws {
            guard let membership else { throw Problem.groupNotFound }
            return membership
        }
    }

    /// The group, on routes behind `GroupMemberRequired`.
    var group: Group {
        get throws { try member.group }
    }

    public var requestDecoder: GroupieRequestDecoder { GroupieRequestDecoder() }
    public var responseEncoder: JSONEncoder { Self.jsonEncoder() }

    /// How every JSON answer is written: timestamps as `Timestamp` strings, slashes as they are,
    /// keys sorted so that the same document is the same bytes in every process.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        return encoder
    }
}

/// An optional value kept behind one reference, so that the request context stays small. The
/// context is copied into many of a request's async frames, and for an event stream the
/// connection's task keeps the memory of those frames for as long as the stream is open:
/// with the player and the membership inline, the context took 304 bytes.
@propertyWrapper
public struct Boxed<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box?

    public init(wrappedValue: Value?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}
