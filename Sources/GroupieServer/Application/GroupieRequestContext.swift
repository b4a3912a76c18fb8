import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The per-request context every request starts with. Routes that need a player, a member or
/// a member of staff take a child context instead (`PlayerContext`, `MemberContext`,
/// `StaffContext`), made from this one after the middleware that finds them.
public struct GroupieRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection: the phone, or the reverse proxy in front of Groupie.
    public let remoteAddress: SocketAddress?
    /// The player of the bearer token, set by `PlayerAuthenticator` or `GroupMemberRequired`;
    /// routes that need one take a `PlayerContext` or a `MemberContext`, which has it for sure.
    @Boxed public var identity: Player?
    /// The group of the route's `{groupId}`, set by `GroupMemberRequired` for its members, whose
    /// routes take it from their `MemberContext`.
    @Boxed public var membership: Membership?
    /// The member of staff of the session cookie, set by `StaffAuthenticator` on `/staff` routes;
    /// the signed-in routes take it from their `StaffContext`.
    @Boxed var staffSession: StaffSession?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.identity = nil
        self.membership = nil
        self.staffSession = nil
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
    private var box: Held<Value>?

    public init(wrappedValue: Value?) {
        box = wrappedValue.map(Held.init)
    }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Held.init) }
    }
}

/// A value behind one reference, for the same reason: the child contexts hold what they are
/// sure of in one of these.
final class Held<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
