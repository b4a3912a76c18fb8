import GroupieCore
import Testing

@Suite("Mission order")
struct MissionOrderTests {
    func mission(_ id: String, after: [String] = []) -> Mission {
        Mission(id: id, title: .plain(id), icon: "icons/x.svg", after: after, tasks: [MissionTask(id: "t", prompt: .plain("p"))])
    }

    @Test("No cycle in a chain")
    func chain() {
        #expect(MissionOrder.cycles(in: [mission("a"), mission("b", after: ["a"]), mission("c", after: ["a", "b"])]).isEmpty)
    }

    @Test("A cycle is reported once, from its first mission")
    func cycle() {
        let missions = [mission("a", after: ["c"]), mission("b", after: ["a"]), mission("c", after: ["b"])]
        #expect(MissionOrder.cycles(in: missions) == [["a", "c", "b", "a"]])
    }

    @Test("A mission after itself is a cycle of one")
    func selfCycle() {
        #expect(MissionOrder.cycles(in: [mission("a", after: ["a"])]) == [["a", "a"]])
    }

    @Test("Unknown references are left to the validator's own message")
    func unknownIgnored() {
        #expect(MissionOrder.cycles(in: [mission("a", after: ["zzz"])]).isEmpty)
    }

    @Test("Ids are lowercase letters, digits and hyphens", arguments: [
        ("shark-tunnel", true), ("m1", true), ("Shark", false), ("haj_tunnel", false), ("", false), ("å", false),
        (String(repeating: "a", count: 65), false),
    ])
    func identifiers(id: String, valid: Bool) {
        #expect(Identifier.isValid(id) == valid)
    }
}
