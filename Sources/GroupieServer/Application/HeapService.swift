import GroupieImaging
import Metrics
import ServiceLifecycle

/// Every half minute, returns the pages that photo and collage work left free in the C heap to
/// the system, and publishes the heap's size: `groupie_heap_in_use_bytes` (what the server
/// holds) beside `groupie_heap_free_bytes` (what the allocator keeps unused). A server whose
/// resident memory grows while the first figure stays flat is fragmenting, not leaking.
struct HeapService: Service {
    static let inUse: Metrics.Gauge = { _ = GroupieMetrics.registry; return Metrics.Gauge(label: "groupie_heap_in_use_bytes") }()
    static let freeHeld: Metrics.Gauge = { _ = GroupieMetrics.registry; return Metrics.Gauge(label: "groupie_heap_free_bytes") }()

    let fileIO: FileIO
    var interval: Duration = .seconds(30)

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await pass()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }

    /// One trim, then the figures after it. The trim walks every arena under its lock, so it
    /// runs on a file thread rather than on the event loops or Swift's cooperative threads.
    func pass() async {
        let statistics = try? await fileIO.run { () -> Heap.Statistics? in
            Heap.trim()
            return Heap.statistics()
        }
        guard let statistics = statistics ?? nil else { return }
        Self.inUse.record(Int64(clamping: statistics.inUse))
        Self.freeHeld.record(Int64(clamping: statistics.freeHeld))
    }
}
