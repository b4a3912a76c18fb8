import Foundation
import Synchronization
import GroupieTestSupport
import Testing

@testable import GroupieServer

@Suite("The URL signing key of instances sharing one data folder")
struct SigningKeyTests {
    /// The keys that `count` starts at once load, or their errors. Threads of their own, not
    /// tasks: the loads block on the lock, and all of them must be able to race past the first
    /// read at once.
    static func loadAtOnce(_ folder: String, count: Int = 8) -> [Result<Data, any Error>] {
        let results = Mutex<[Result<Data, any Error>]>([])
        let done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread {
                let result = Result { try ImageURLSigner.loadKey(dataDirectory: folder) }
                results.withLock { $0.append(result) }
                done.leave()
            }.start()
        }
        done.wait()
        return results.withLock { $0 }
    }

    static func keyPath(_ folder: String) -> String { folder + "/url-signing.key" }

    @Test("Instances starting at once on a new folder all use the one key that is on disk")
    func oneKey() throws {
        for _ in 0..<20 {
            let folder = try ScratchFolder.make("groupie-key")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let keys = try Self.loadAtOnce(folder).map { try $0.get() }
            let stored = try #require(FileManager.default.contents(atPath: Self.keyPath(folder)))
            #expect(stored.count == 32)
            #expect(keys.allSatisfy { $0 == stored })
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: Self.keyPath(folder))[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["url-signing.key", "url-signing.key.lock"], "no temporary file is left")
        }
    }

    @Test("Instances starting at once on a folder whose key file is broken all use the one key that replaces it")
    func oneReplacement() throws {
        for broken in [Data(), Data(repeating: 7, count: 31), Data(repeating: 7, count: 33), Data(repeating: 7, count: 4096)] {
            for _ in 0..<20 {
                let folder = try ScratchFolder.make("groupie-key")
                defer { try? FileManager.default.removeItem(atPath: folder) }
                try broken.write(to: URL(fileURLWithPath: Self.keyPath(folder)))
                let keys = try Self.loadAtOnce(folder).map { try $0.get() }
                let stored = try #require(FileManager.default.contents(atPath: Self.keyPath(folder)))
                #expect(stored.count == 32)
                #expect(keys.allSatisfy { $0 == stored })
            }
        }
    }

    @Test("A key file of the wrong length is replaced by a key, and that key stays")
    func brokenKeyReplaced() throws {
        let folder = try ScratchFolder.make("groupie-key")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: Self.keyPath(folder)))
        let key = try ImageURLSigner.loadKey(dataDirectory: folder)
        #expect(key.count == 32)
        #expect(try ImageURLSigner.loadKey(dataDirectory: folder) == key)
    }

    @Test("A key file that is there but cannot be read stops the start with the system's reason, and is left as it is")
    func unreadableKeyKept() throws {
        let folder = try ScratchFolder.make("groupie-key")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A folder where the file should be: open succeeds and read fails, as a file would on a
        // disk error (no permission cannot be shown: the tests may run as root).
        try FileManager.default.createDirectory(atPath: Self.keyPath(folder), withIntermediateDirectories: false)
        #expect {
            try ImageURLSigner.loadKey(dataDirectory: folder)
        } throws: { error in
            "\(error)" == "The key file \(Self.keyPath(folder)) cannot be read: Is a directory."
        }
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: Self.keyPath(folder), isDirectory: &isFolder) && isFolder.boolValue, "not replaced")
    }

    @Test("A server whose key file cannot be read does not start, and says why")
    func serverWithUnreadableKey() async throws {
        let server = try TestServer()
        try FileManager.default.createDirectory(atPath: Self.keyPath(server.configuration.dataDirectory), withIntermediateDirectories: true)
        await #expect {
            _ = try await buildApplication(server.configuration)
        } throws: { error in
            "\(error)" == "The key file \(Self.keyPath(server.configuration.dataDirectory)) cannot be read: Is a directory."
        }
    }

    @Test("A start waits for the instance that holds the lock, and gives up with a clear error when it never lets go")
    func lockHeld() throws {
        let folder = try ScratchFolder.make("groupie-key")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lock = open(Self.keyPath(folder) + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(flock(lock, LOCK_EX) == 0)
        #expect {
            try ImageURLSigner.loadKey(dataDirectory: folder, lockPatience: .milliseconds(300))
        } throws: { error in
            "\(error)".hasPrefix("The lock file \(Self.keyPath(folder)).lock stayed locked for ")
        }
        #expect(!FileManager.default.fileExists(atPath: Self.keyPath(folder)), "no key made without the lock")
        // Let go a moment after the next start began to wait: it goes on with the lock.
        let release = Thread {
            usleep(200_000)
            close(lock)
        }
        release.start()
        let key = try ImageURLSigner.loadKey(dataDirectory: folder, lockPatience: .seconds(30))
        #expect(key.count == 32 && FileManager.default.contents(atPath: Self.keyPath(folder)) == key)
    }
}
