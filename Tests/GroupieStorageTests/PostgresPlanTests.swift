import Foundation
@testable import GroupiePostgres
import GroupieTestSupport
import Testing

@Suite("PostgreSQL's plans for the statements every request runs")
struct PostgresPlanTests {
    /// The plan PostgreSQL keeps for `sql` once prepared (its generic plan, as the pool's
    /// connections use after a few runs), with `arguments` for its parameters of `types`.
    func genericPlan(_ url: String, _ sql: String, types: String, arguments: String) async throws -> String {
        try await TestPostgres.psql(url, """
            SET plan_cache_mode = force_generic_plan;
            PREPARE statement(\(types)) AS \(sql);
            EXPLAIN EXECUTE statement(\(arguments));
            """)
    }

    @Test("The rate limits read the failures of the keys asked for by key, not every address's failures in the window")
    func failuresByKey() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        // A busy day from one address: thousands of creations counted, and a few wrong codes.
        _ = try await TestPostgres.psql(url, """
            INSERT INTO rate_failure SELECT 'create:192.0.2.7', 1000 + n FROM generate_series(1, 6000) AS n;
            INSERT INTO rate_failure SELECT 'join:player-' || n, 1000 + n FROM generate_series(1, 40) AS n;
            ANALYZE rate_failure;
            """)
        let keys = "'{join:player-1,join:192.0.2.8}'"
        let limits = try await genericPlan(url, PostgresStore.RecentFailures.sql, types: "text[], float8", arguments: "\(keys), 500")
        let join = try await genericPlan(
            url, PostgresStore.JoinSeats.sql, types: "text, text, text[], float8, boolean", arguments: "'p', 'ABCDEF', \(keys), 500, false"
        )
        // Read through the index by key; no plan reads the table by time (nor, at this size, whole).
        for plan in [limits, join] {
            #expect(plan.contains("rate_failure_by_key"), "\(plan)")
            #expect(!plan.contains("Seq Scan on rate_failure"), "\(plan)")
        }
        let indexes = try await TestPostgres.psql(url, "SELECT indexname FROM pg_indexes WHERE tablename = 'rate_failure' ORDER BY indexname")
        #expect(indexes == "rate_failure_by_key")
        // And the rows read are those of the keys, in the window, each key once.
        let found = try await store.failures(of: ["join:player-3", "join:player-30", "join:player-3"], within: 1_000, now: Date(timeIntervalSince1970: 2_005))
        #expect(found.mapValues { $0.map(\.timeIntervalSince1970) } == ["join:player-30": [1_030]])
        await store.shutdown()
    }
}
