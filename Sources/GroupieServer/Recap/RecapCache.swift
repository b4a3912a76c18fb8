import Crypto
import Foundation
import GroupieImaging
import Hummingbird
import Synchronization

/// Recaps drawn once for what they show, as collages are: a recap takes seconds of cairo and
/// Pango, and a member asking for sixteen at once made every other family's thumbnails wait on
/// the file threads.
///
/// - A recap is drawn on the bounded image queue (`ImageWorkQueue`), never on the file threads.
/// - It is kept by the hash of what it shows (the page's every word, picture and colour, its
///   format): asked again, it is sent as kept; once anything on it changes, it is drawn anew.
/// - The same recap asked for while it is drawn waits for that drawing; a group draws at most
///   `perGroup` different recaps at once, and a further one gets 429 `recap-busy`.
/// - Kept in memory only, at most `capacity` bytes, each for at most `lifetime`: a recap holds
///   children's names, and no copy of one outlives its group's next change by long, nor any
///   restart (an erased name's recap is never sent again: its page, and so its key, changed).
final class RecapCache: Sendable {
    static let perGroup = 2
    static let capacity = 64 * 1_048_576
    static let lifetime: TimeInterval = 600
    /// Bumped when the recap is drawn differently, so that kept ones are drawn again.
    static let rendererVersion = "1"

    private struct Kept {
        var groupId: String
        var bytes: Data
        var at: Date
    }

    private struct State {
        var kept: [String: Kept] = [:]
        var drawing: [String: Task<Data, Error>] = [:]
        var drawingByGroup: [String: Int] = [:]
        var size = 0
    }

    private let state = Mutex(State())
    private let work: ImageWorkQueue
    private let clock: @Sendable () -> Date

    init(work: ImageWorkQueue, clock: @escaping @Sendable () -> Date) {
        self.work = work
        self.clock = clock
    }

    /// The page drawn in `format`, kept or drawn now.
    func recap(_ page: RecapPage, format: Poster.Format, groupId: String) async throws -> Data {
        let key = Self.key(page, format: format)
        let now = clock()
        let found = try state.withLock { state -> Task<Data, Error> in
            if let kept = state.kept[key], now.timeIntervalSince(kept.at) < Self.lifetime {
                return Task { kept.bytes }
            }
            if let running = state.drawing[key] { return running }
            guard state.drawingByGroup[groupId, default: 0] < Self.perGroup else {
                throw Problem(
                    .tooManyRequests, code: "recap-busy",
                    detail: "This group's recaps are being drawn; ask again in a few seconds.", headers: [.retryAfter: "3"]
                )
            }
            state.drawingByGroup[groupId, default: 0] += 1
            let drawing = Task { [work] in
                try await work.run {
                    let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-recap-\(UUID().uuidString)").path
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    try page.render(format: format, to: path)
                    return try Data(contentsOf: URL(fileURLWithPath: path))
                }
            }
            state.drawing[key] = drawing
            return drawing
        }
        do {
            let bytes = try await found.value
            keep(bytes, key: key, groupId: groupId, at: now)
            return bytes
        } catch {
            finish(key: key, groupId: groupId)
            throw error
        }
    }

    /// What a recap drawn for `key` leaves: kept, the group's drawing counted down, the
    /// group's other recaps (of what it showed before) and any past their time dropped.
    private func keep(_ bytes: Data, key: String, groupId: String, at now: Date) {
        state.withLock { state in
            guard state.drawing.removeValue(forKey: key) != nil else { return }
            state.drawingByGroup[groupId, default: 1] -= 1
            if state.drawingByGroup[groupId] == 0 { state.drawingByGroup[groupId] = nil }
            for (other, kept) in state.kept where now.timeIntervalSince(kept.at) >= Self.lifetime {
                state.size -= kept.bytes.count
                state.kept[other] = nil
            }
            guard bytes.count <= Self.capacity / 4 else { return }
            state.kept[key] = Kept(groupId: groupId, bytes: bytes, at: now)
            state.size += bytes.count
            // The oldest go first when the cache is full.
            while state.size > Self.capacity, let oldest = state.kept.min(by: { $0.value.at < $1.value.at }) {
                state.size -= oldest.value.bytes.count
                state.kept[oldest.key] = nil
            }
        }
    }

    private func finish(key: String, groupId: String) {
        state.withLock { state in
            guard state.drawing.removeValue(forKey: key) != nil else { return }
            state.drawingByGroup[groupId, default: 1] -= 1
            if state.drawingByGroup[groupId] == 0 { state.drawingByGroup[groupId] = nil }
        }
    }

    /// What the page shows, every word, picture and colour of it, and its format, hashed: the
    /// page holds only texts, paths (a collage's names its content) and numbers, so its
    /// description is the same for the same page.
    static func key(_ page: RecapPage, format: Poster.Format) -> String {
        let text = "\(rendererVersion)\n\(format)\n\(String(reflecting: page))"
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    var count: Int { state.withLock { $0.kept.count } }

    /// How many recaps of `groupId` are being drawn now.
    func drawing(groupId: String) -> Int { state.withLock { $0.drawingByGroup[groupId, default: 0] } }
}
