import GroupieCore
import Testing

@Suite struct StaffMessageTests {
    @Test func keepsPlainTextOnOneLine() throws {
        #expect(try StaffMessage.text("  We close\nin 15\t\tminutes  ") == "We close in 15 minutes")
        #expect(try StaffMessage.text("<b>Fermé</b> & 🦈") == "<b>Fermé</b> & 🦈")
        #expect(try StaffMessage.text("a\u{0}b\u{2028}c") == "a b c")
    }

    @Test func refusesEmptyText() {
        #expect(throws: StaffMessage.Refusal.empty) { try StaffMessage.text("") }
        #expect(throws: StaffMessage.Refusal.empty) { try StaffMessage.text(" \n\t ") }
    }

    @Test func refusesTooLongText() throws {
        #expect(try StaffMessage.text(String(repeating: "a", count: 200)).count == 200)
        #expect(throws: StaffMessage.Refusal.tooLong) { try StaffMessage.text(String(repeating: "a", count: 201)) }
        #expect(throws: StaffMessage.Refusal.tooLong) { try StaffMessage.text(String(repeating: "👩‍👩‍👧‍👦", count: 40)) }
    }

    @Test func isAGroupEvent() {
        let event = GroupEventPayload.staffMessage(text: "Closed today")
        #expect(event.kind.rawValue == "staff-message")
        #expect(event.fields == ["text": "Closed today"])
    }
}
