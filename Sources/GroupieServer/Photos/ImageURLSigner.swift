import Crypto
import Foundation
import GroupieCore
import GroupieStorage
import Glibc

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
    /// make or replace it one at a time, under `flock` on `url-signing.key.lock` beside it, and
    /// each reads the file again once it holds the lock, so that every instance uses the key the
    /// first one wrote. (Without the lock, two instances that both found a broken file would each
    /// rename a key of their own over it, and one would sign with a key no longer on disk.) A
    /// missing key is linked into place, not renamed: on a network file system a client may
    /// still believe the file missing after another machine made it, and `link` is refused by
    /// the server whatever the client believes. A key file that exists but cannot be read is an
    /// error, never replaced: the instances already running sign with it.
    static func loadKey(dataDirectory: String, lockPatience: Duration = .seconds(60)) throws -> Data {
        let path = DataFolder(dataDirectory).signingKey
        if let existing = try readKey(path), existing.count == 32 {
            return existing
        }
        let lockPath = path + ".lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw keyError("lock file", lockPath, "cannot be opened", code: errno) }
        defer { close(lock) }
        try Self.lock(lock, path: lockPath, patience: lockPatience)
        let existing = try readKey(path)
        if let existing, existing.count == 32 {
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
        if (existing != nil ? rename(temporary, path) : link(temporary, path)) == 0 {
            try? BlobStore.fsync(path: dataDirectory)
        } else {
            let code = errno
            // Made meanwhile by another instance whose file this machine did not see yet (a
            // network file system's cache), or by an earlier Groupie that took no lock: that
            // key is the one.
            guard existing == nil, code == EEXIST else { throw keyError("key file", path, "cannot be written", code: code) }
        }
        guard let data = try readKey(path), data.count == 32 else {
            throw StartupError(description: "The key file \(path) cannot be read back.")
        }
        return data
    }

    /// The key file's bytes; nil when there is no such file. Any other failure to read it (no
    /// permission, an I/O error) throws.
    private static func readKey(_ path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw keyError("key file", path, "cannot be read", code: code)
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if read == 0 { break }
            if read < 0 {
                let code = errno
                if code == EINTR { continue }
                throw keyError("key file", path, "cannot be read", code: code)
            }
            count += read
        }
        return Data(bytes.prefix(count))
    }

    /// Takes the lock, waiting at most `patience` for the instance that holds it.
    private static func lock(_ descriptor: Int32, path: String, patience: Duration) throws {
        let clock = ContinuousClock(), deadline = clock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else { throw keyError("lock file", path, "cannot be locked", code: code) }
            guard clock.now < deadline else {
                throw StartupError(description: "The lock file \(path) stayed locked for \(patience) by a process making the URL signing key; is another instance stuck starting?")
            }
            usleep(20_000)
        }
    }

    /// A start-up error about the key or its lock file, with the system's reason for the call
    /// that failed.
    private static func keyError(_ kind: String, _ path: String, _ what: String, code: Int32) -> StartupError {
        StartupError(description: "The \(kind) \(path) \(what): \(String(cString: strerror(code))).")
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

    /// A collage's URL, usable in `<img src>` and for downloads without the bearer token. It
    /// names one picture: `version` is the key of what the collage shows (its photos, texts and
    /// look), so a new picture gets a new URL, and an old URL (a removed member's) never shows
    /// what came after.
    func collageURL(groupId: String, missionId: String, format: String, version: String, now: Date) -> String {
        let expires = Int((now.timeIntervalSince1970 + Self.lifetime) / 3600) * 3600
        let path = "/api/v1/groups/\(groupId)/missions/\(missionId)/collage.\(format)"
        return "\(path)?v=\(version)&expires=\(expires)&sig=\(mac("collage/\(groupId)/\(missionId)/\(format)/\(version)/\(expires)"))"
    }

    /// The picture version a collage URL's signature vouches for; nil when it is not signed
    /// rightly or has expired.
    func signedCollageVersion(groupId: String, missionId: String, format: String, version: String?, expires: String?, signature given: String?, now: Date) -> String? {
        guard let version, let expires, let seconds = Int(expires), let given, Double(seconds) > now.timeIntervalSince1970 else { return nil }
        return Self.same(mac("collage/\(groupId)/\(missionId)/\(format)/\(version)/\(seconds)"), given) ? version : nil
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
