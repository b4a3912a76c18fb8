import Foundation
import Hummingbird
import Testing

@testable import GroupieServer

@Suite("Group document cache")
struct GroupDocumentCacheTests {
    private func key(_ group: String, _ version: Int, language: String = "en") -> GroupDocumentCache.Key {
        .init(groupId: group, version: version, language: language, venueHash: "h", joinable: true, urlHour: 1)
    }

    /// Sizes are powers of two, as the buffers' capacities are.
    private func document(_ size: Int) -> ByteBuffer {
        ByteBuffer(bytes: [UInt8](repeating: 0x20, count: size))
    }

    @Test("a group's new version drops its older ones")
    func newVersionDropsOlder() {
        let cache = GroupDocumentCache(byteLimit: 1 << 20)
        cache.store(document(1024), for: key("g", 1))
        cache.store(document(1024), for: key("g", 1, language: "sv"))
        #expect(cache.storedBytes == 2048)
        cache.store(document(512), for: key("g", 2))
        #expect(cache.document(for: key("g", 1), now: Date()) == nil)
        #expect(cache.document(for: key("g", 1, language: "sv"), now: Date()) == nil)
        #expect(cache.document(for: key("g", 2), now: Date())?.readableBytes == 512)
        #expect(cache.storedBytes == 512)
        // A late writer of an older version does not bring it back.
        cache.store(document(1024), for: key("g", 1))
        #expect(cache.document(for: key("g", 1), now: Date()) == nil)
        #expect(cache.storedBytes == 512)
    }

    @Test("the documents stay under the byte bound, the least recently written group going first")
    func byteBound() {
        let cache = GroupDocumentCache(byteLimit: 10 * 1024)
        for group in 0..<30 {
            cache.store(document(1024), for: key("g\(group)", 1))
            #expect(cache.storedBytes <= 10 * 1024)
        }
        #expect(cache.document(for: key("g29", 1), now: Date()) != nil)
        #expect(cache.document(for: key("g20", 1), now: Date()) != nil)
        #expect(cache.document(for: key("g0", 1), now: Date()) == nil)
        #expect(cache.document(for: key("g19", 1), now: Date()) == nil)
        // A document larger than the bound is not kept.
        cache.store(document(20_000), for: key("big", 1))
        #expect(cache.document(for: key("big", 1), now: Date()) == nil)
        #expect(cache.storedBytes == 10 * 1024)
    }

    @Test("a kept document holds its bytes, not the writer's spare capacity")
    func exactSize() {
        let cache = GroupDocumentCache(byteLimit: 1 << 20)
        var buffer = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        buffer.writeString("{\"group\":{}}")
        cache.store(buffer, for: key("g", 1))
        #expect(cache.storedBytes < 1024)
        #expect(cache.document(for: key("g", 1), now: Date()).map { String(buffer: $0) } == "{\"group\":{}}")
    }

    @Test("a document kept until a moment is served before it and not from it on")
    func keptUntil() {
        let cache = GroupDocumentCache(byteLimit: 1 << 20)
        let end = Date(timeIntervalSince1970: 1_000)
        cache.store(document(256), for: key("g", 1), until: end)
        #expect(cache.document(for: key("g", 1), now: end.addingTimeInterval(-1)) != nil)
        #expect(cache.document(for: key("g", 1), now: end) == nil)
        cache.store(document(256), for: key("g", 1, language: "sv"))
        #expect(cache.document(for: key("g", 1, language: "sv"), now: .distantFuture) != nil, "without an end, until the group changes")
    }
}
