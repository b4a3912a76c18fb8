import Crypto
import Foundation
import GroupieCore
import GroupieStorage

/// Image URLs that an `<img>` tag can load without a bearer header: they carry an expiry
/// and an HMAC of the photo, variant and expiry under a key kept in the data folder.
struct ImageURLSigner: Sendable {
    static let lifetime: TimeInterval = 6 * 3600
    /// The key's bytes; `SymmetricKey` itself is not `Sendable`.
    private let key: Data

    init(key: Data) {
        self.key = key
    }

    /// The key in `data/url-signing.key`, made on first start. Instances that share the data
    /// folder and start at once each write a key of their own to a temporary file and link it
    /// into place; `link` lets only one succeed, and every instance uses the key it reads back.
    static func loadKey(dataDirectory: String) throws -> Data {
        let path = dataDirectory + "/url-signing.key"
        let existing = FileManager.default.contents(atPath: path)
        if let existing, existing.count == 32 {
            return existing
        }
        // A file of another length is no key: it is replaced. Whether there is one is what the
        // read above found: a key another instance links meanwhile must not be taken for one to
        // replace (renamed over, it would no longer be the key that instance uses).
        let replacing = existing != nil
        let temporary = path + ".\(UUID().uuidString).tmp"
        defer { unlink(temporary) }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: temporary, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw StartupError(description: "The key file \(path) cannot be written.")
        }
        do {
            try BlobStore.fsync(path: temporary)
        } catch {
            throw StartupError(description: "The key file \(path) cannot be written: \(error)")
        }
        if (replacing ? rename(temporary, path) : link(temporary, path)) == 0 {
            try? BlobStore.fsync(path: dataDirectory)
        } else if replacing || errno != EEXIST {
            throw StartupError(description: "The key file \(path) cannot be written: \(String(cString: strerror(errno)))")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count == 32 else {
            throw StartupError(description: "The key file \(path) cannot be read back.")
        }
        return data
    }

    /// The hour signed URLs made at `now` expire in: URLs, and documents holding them, are the
    /// same until it changes.
    func expiryHour(now: Date) -> Int {
        Int((now.timeIntervalSince1970 + Self.lifetime) / 3600)
    }

    func url(photoId: String, variant: String, now: Date) -> String {
        // Expiry rounded to the hour: the same URL for an hour, so browsers can cache it.
        let expires = Int((now.timeIntervalSince1970 + Self.lifetime) / 3600) * 3600
        return "/api/v1/photos/\(photoId)/\(variant)?expires=\(expires)&sig=\(signature(photoId: photoId, variant: variant, expires: expires))"
    }

    func isValid(photoId: String, variant: String, expires: String?, signature given: String?, now: Date) -> Bool {
        guard let expires, let seconds = Int(expires), let given, Double(seconds) > now.timeIntervalSince1970 else { return false }
        return Self.same(signature(photoId: photoId, variant: variant, expires: seconds), given)
    }

    /// A collage's URL, usable in `<img src>` and for downloads without the bearer token.
    func collageURL(groupId: String, missionId: String, format: String, now: Date) -> String {
        let expires = Int((now.timeIntervalSince1970 + Self.lifetime) / 3600) * 3600
        let path = "/api/v1/groups/\(groupId)/missions/\(missionId)/collage.\(format)"
        return "\(path)?expires=\(expires)&sig=\(mac("collage/\(groupId)/\(missionId)/\(format)/\(expires)"))"
    }

    func isValidCollage(groupId: String, missionId: String, format: String, expires: String?, signature given: String?, now: Date) -> Bool {
        guard let expires, let seconds = Int(expires), let given, Double(seconds) > now.timeIntervalSince1970 else { return false }
        return Self.same(mac("collage/\(groupId)/\(missionId)/\(format)/\(seconds)"), given)
    }

    private func signature(photoId: String, variant: String, expires: Int) -> String {
        mac("\(photoId)/\(variant)/\(expires)")
    }

    /// An HMAC of `text` under the server's key, hex; also what stream tokens are signed with.
    func mac(_ text: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key))
        return Hex.string(code.prefix(16))
    }

    /// Compares two signatures in constant time.
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return zip(a.utf8, b.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
