import Foundation
import Synchronization
import GroupieTestSupport
import Testing

@testable import GroupieServer

@Suite("The URL signing key of instances sharing one data folder")
struct SigningKeyTests {
    @Test("Instances starting at once on a new folder all use the one key that is on disk")
    func oneKey() async throws {
        for _ in 0..<20 {
            let folder = try ScratchFolder.make("groupie-key")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let keys = try await withThrowingTaskGroup(of: Data.self) { starts in
                for _ in 0..<8 { starts.addTask { try ImageURLSigner.loadKey(dataDirectory: folder) } }
                return try await starts.reduce(into: []) { $0.append($1) }
            }
            let stored = try #require(FileManager.default.contents(atPath: folder + "/url-signing.key"))
            #expect(stored.count == 32)
            #expect(keys.allSatisfy { $0 == stored })
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/url-signing.key")[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["url-signing.key", "url-signing.key.lock"], "no temporary file is left")
        }
    }

    @Test("Instances starting at once on a folder whose key file is broken all use the one key that replaces it")
    func oneReplacement() throws {
        for broken in [Data(), Data(repeating: 7, count: 31), Data(repeating: 7, count: 33)] {
            for _ in 0..<20 {
                let folder = try ScratchFolder.make("groupie-key")
                defer { try? FileManager.default.removeItem(atPath: folder) }
                try broken.write(to: URL(fileURLWithPath: folder + "/url-signing.key"))
                // Threads of their own, not tasks: the loads block on the lock, and eight of them
                // must be able to race past the first read at once.
                let keys = Mutex<[Data]>([])
                let done = DispatchGroup()
                for _ in 0..<8 {
                    done.enter()
                    Thread {
                        let key = try? ImageURLSigner.loadKey(dataDirectory: folder)
                        keys.withLock { $0.append(key ?? Data()) }
                        done.leave()
                    }.start()
                }
                done.wait()
                let stored = try #require(FileManager.default.contents(atPath: folder + "/url-signing.key"))
                #expect(stored.count == 32)
                #expect(keys.withLock { $0 }.allSatisfy { $0 == stored })
            }
        }
    }

    @Test("A key file of the wrong length is replaced by a key, and that key stays")
    func brokenKeyReplaced() throws {
        let folder = try ScratchFolder.make("groupie-key")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: folder + "/url-signing.key"))
        let key = try ImageURLSigner.loadKey(dataDirectory: folder)
        #expect(key.count == 32)
        #expect(try ImageURLSigner.loadKey(dataDirectory: folder) == key)
    }
}
