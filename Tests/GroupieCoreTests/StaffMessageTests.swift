import GroupieCore
import Testing

@Suite struct StaffMessageTests {
    @Test func keepsPlainTextOnOneLine() throws {
        #expect(try StaffMessage.text("  We close\nin 15\t\tminutes  ") == "We close in 15 minutes")
        #expect(try StaffMessage.text("<b>Fermé</b> & 🦈") == "<b>Fermé</b> & 🦈")
        #expect(try StaffMessage.text("a\u{0}b\u{2028}c") == "a b c")
    }

    @Test func dropsBidiEmbeddingsOverridesAndIsolates() throws {
        #expect(try StaffMessage.text("a\u{0}b\u{202E}c\u{7}") == "a bc")
        #expect(try StaffMessage.text("\u{202A}\u{202B}x\u{202C}\u{202D}\u{2066}\u{2067}\u{2068}y\u{2069}") == "xy")
        // Right-to-left text and the direction marks stay as typed.
        #expect(try StaffMessage.text("סגור \u{200F}היום\u{200E} 17:00") == "סגור \u{200F}היום\u{200E} 17:00")
        #expect(throws: StaffMessage.Refusal.empty) { try StaffMessage.text("\u{202E}\u{2066}") }
        #expect(throws: StaffMessage.Refusal.empty) { try StaffMessage.text("\u{200E}\u{200F}\u{200B}\u{200D}") }
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
