import Foundation

/// An anonymous visitor: a display name and the device's bearer token, nothing else.
public struct Player: Sendable, Hashable, Identifiable {
    public var id: String
    public var name: String
    /// The interface language the visitor chose, if any.
    public var language: String?
    public var createdAt: Date

    public init(id: String, name: String, language: String?, createdAt: Date) {
        self.id = id
        self.name = name
        self.language = language
        self.createdAt = createdAt
    }
}
