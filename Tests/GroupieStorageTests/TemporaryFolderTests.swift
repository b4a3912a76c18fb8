import Foundation
import GroupieTestSupport
import Testing
@testable import GroupieStorage

@Suite("Temporary files of instances sharing one data folder")
struct TemporaryFolderTests {
    static func write(_ path: String, age: TimeInterval = 0) throws {
        try Data("part of an upload".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
    }

    @Test("A start removes what stopped instances left, and leaves a running instance's uploads in progress alone")
    func runningInstancesKeepTheirFiles() throws {
        let directory = try ScratchFolder.make("groupie-blobs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var stopped: BlobStore? = try BlobStore(directory: directory)
        let running = try BlobStore(directory: directory)
        let stoppedFolder = try #require(stopped).temporaryDirectory
        try Self.write(stoppedFolder + "/upload")
        try Self.write(running.temporaryDirectory + "/upload")
        // A version before these folders wrote into tmp/ itself: old files go, new ones may be in progress.
        try Self.write(running.temporary.root + "/old", age: TemporaryFolder.looseFileAge + 1)
        try Self.write(running.temporary.root + "/new")
        // The same folder as a crash leaves it: the lock went with the process.
        stopped = nil
        try FileManager.default.createDirectory(atPath: stoppedFolder, withIntermediateDirectories: true)
        try Self.write(stoppedFolder + "/upload")
        try Self.write(stoppedFolder + "/.lock")

        let starting = try BlobStore(directory: directory)
        starting.removeTemporaryFiles()

        #expect(!FileManager.default.fileExists(atPath: stoppedFolder))
        #expect(FileManager.default.fileExists(atPath: running.temporaryDirectory + "/upload"))
        #expect(!FileManager.default.fileExists(atPath: running.temporary.root + "/old"))
        #expect(FileManager.default.fileExists(atPath: running.temporary.root + "/new"))
        #expect(TemporaryFolder.isRunning(running.temporary.instance, root: running.temporary.root))
        #expect(TemporaryFolder.isRunning(starting.temporary.instance, root: starting.temporary.root))
        #expect(!TemporaryFolder.isRunning(UUID().uuidString.lowercased(), root: starting.temporary.root))
    }

    @Test("Instances starting at once never take each other's folders")
    func simultaneousStarts() async throws {
        let directory = try ScratchFolder.make("groupie-blobs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stores = try await withThrowingTaskGroup(of: BlobStore.self) { starts in
            for _ in 0..<16 {
                starts.addTask {
                    let store = try BlobStore(directory: directory)
                    store.removeTemporaryFiles()
                    return store
                }
            }
            return try await starts.reduce(into: []) { $0.append($1) }
        }
        for store in stores {
            #expect(FileManager.default.fileExists(atPath: store.temporaryDirectory + "/.lock"))
        }
    }
}
