import Foundation
import Testing

@testable import GroupieServer

@Suite("Album download's entry names")
struct EntryNameTests {
    /// Every name of the rule: within the limits, and ending with the photographer's name.
    static func checkPhoto(_ task: String, _ photographer: String) -> String {
        let name = EntryName.photo(task: task, photographer: photographer)
        #expect(name.count <= EntryName.maxCharacters)
        #expect(name.utf8.count <= EntryName.maxBytes)
        #expect(name.hasSuffix(" - " + photographer))
        return name
    }

    /// A prompt too long for the room: its task ends with "…" after whole words, followed in
    /// the prompt by a space. Returns what is kept.
    static func checkEndsAtWord(_ prompt: String, _ photographer: String) -> String {
        let name = checkPhoto(prompt, photographer)
        let task = String(name.dropLast(" - \(photographer)".count))
        #expect(task.hasSuffix("…"))
        let kept = String(task.dropLast())
        #expect(prompt.hasPrefix(kept + " "))
        return kept
    }

    @Test("A short prompt and name are kept as they are")
    func shortKept() {
        #expect(Self.checkPhoto("The biggest dinosaur", "Ada") == "The biggest dinosaur - Ada")
    }

    @Test("A long prompt ends at a word with an ellipsis; the photographer's name stays whole")
    func longPromptEndsAtWord() {
        let prompt = "Find the painting where somebody is secretly looking at you from the background and copy their face exactly"
        #expect(Self.checkEndsAtWord(prompt, "Maximiliana").count > 40)
    }

    @Test("A cut never leaves a comma or a space before the ellipsis")
    func trailingPunctuationDropped() {
        let prompt = "Photograph, with your whole group, the statue of the king, the queen, and their horse, in the garden"
        let name = Self.checkPhoto(prompt, "Bo")
        #expect(!name.contains(",…") && !name.contains(" …"))
    }

    @Test("Japanese is cut between two characters, never inside one, and stays valid UTF-8")
    func japanese() {
        let prompt = String(repeating: "いちばん大きな恐竜の骨を見つけて、みんなで同じポーズをしよう。", count: 4)
        let name = Self.checkPhoto(prompt, "さくら")
        #expect(name.contains("…"))
        // Each kept character is one of the prompt's, in order, from its start.
        let task = name.prefix { $0 != "…" }
        #expect(prompt.hasPrefix(task))
        #expect(String(decoding: Array(name.utf8), as: UTF8.self) == name)
    }

    @Test("Arabic keeps whole words and the photographer's name")
    func arabic() {
        let prompt = "ابحث عن أكبر هيكل عظمي لديناصور في القاعة الكبيرة والتقط صورة لمجموعتك كلها وهي تقلد وقفته بالضبط"
        #expect(Self.checkEndsAtWord(prompt, "ليلى").count > 40)
    }

    @Test("Emoji sequences are never split")
    func emoji() {
        let prompt = String(repeating: "👩🏽‍🚀🧑‍🤝‍🧑", count: 40)
        let name = Self.checkPhoto(prompt, "Zoë 🦖")
        let task = name.prefix { $0 != "…" }
        #expect(prompt.hasPrefix(task))
        #expect(task.allSatisfy { $0 == "👩🏽‍🚀" || $0 == "🧑‍🤝‍🧑" })
    }

    @Test("One word too long for the room is cut between two characters")
    func oneLongWord() {
        let name = Self.checkPhoto(String(repeating: "Donaudampfschiff", count: 10), "Ida")
        #expect(name.hasSuffix("… - Ida"))
        #expect(EntryName.safe(String(repeating: "a", count: 200)).count == 80)
    }

    @Test("Reserved characters in a prompt or a name become underscores")
    func reserved() {
        #expect(EntryName.photo(task: "What/is:this?", photographer: "A<b>") == "What_is_this_ - A_b_")
        #expect(EntryName.photo(task: "", photographer: "Ada") == "_ - Ada")
    }

    @Test("Folder names are shortened at a word too")
    func folders() {
        let title = "The long and winding corridor of the Egyptian and Nubian antiquities on the second floor"
        let name = EntryName.safe(title)
        #expect(name.count <= 80 && name.hasSuffix("…"))
        #expect(title.hasPrefix(String(name.dropLast()) + " "))
    }
}
