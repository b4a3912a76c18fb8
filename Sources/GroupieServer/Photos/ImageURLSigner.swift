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

    /// The key in `data/url-signing.key`, made on first start, and made anew when the file holds
    /// no key (a file of another length). Instances that share the data folder and start at once
    /// make or replace it one at a time, under `flock` on `url-signing.key.lock` beside it: each
    /// reads the file again once it holds the lock, so only the first writes a key and every
    /// instance uses that one. (Without the lock, two instances that both found a broken file
    /// would each rename a key of their own over it, and one would sign with a key no longer on
    /// disk.) The file system must honour `flock` across the machines that share it, as it must
    /// for the instances' upload folders.
    static func loadKey(dataDirectory: String) throws -> Data {
        let path = dataDirectory + "/url-signing.key"
        if let existing = FileManager.default.contents(atPath: path), existing.count == 32 {
            return existing
        }
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw keyError(path + ".lock", "cannot be opened") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw keyError(path + ".lock", "cannot be locked") }
        }
        if let existing = FileManager.default.contents(atPath: path), existing.count == 32 {
            return existing
        }
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
        guard rename(temporary, path) == 0 else { throw keyError(path, "cannot be written") }
        try? BlobStore.fsync(path: dataDirectory)
        guard let data = FileManager.default.contents(atPath: path), data == key else {
            throw StartupError(description: "The key file \(path) cannot be read back.")
        }
        return data
    }

    /// A start-up error about a key file, with the system's reason for the call that failed.
    private static func keyError(_ path: String, _ what: String, code: Int32 = errno) -> StartupError {
        StartupError(description: "The key file \(path) \(what): \(String(cString: strerror(code))).")
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
