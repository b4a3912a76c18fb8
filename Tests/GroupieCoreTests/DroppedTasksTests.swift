import Foundation
import GroupieCore
import Testing

@Suite("Tasks a new version of the file drops")
struct DroppedTasksTests {
    func venue(_ missions: [(String, [String])]) -> Venue {
        Venue(
            id: "aquarium", name: .plain("Aquarium"), languages: ["en"], description: nil, timeZone: "UTC",
            theme: .init(color: "#003366", logo: nil), rules: .init(),
            missions: missions.map { id, tasks in Mission(id: id, title: .plain(id), icon: "icons/x.svg", tasks: tasks.map { MissionTask(id: $0, prompt: .plain($0)) }) }
        )
    }

    func photo(_ id: String, _ mission: String, _ task: String) -> Photo {
        Photo(id: id, groupId: "g", photographerId: "p", photographerName: "Ada", missionId: mission, taskId: task,
              blob: id, format: "jpeg", width: 10, height: 10, createdAt: Date(timeIntervalSince1970: 0))
    }

    @Test("A renamed task and a removed mission are named with their photos; kept tasks are not")
    func renamedAndRemoved() {
        let photos = TaskPhotos(photos: [photo("1", "rays", "ray"), photo("2", "rays", "ray"), photo("3", "rays", "eel"), photo("4", "sharks", "fin")], picks: [:])
        let dropped = DroppedTasks.of(photos, in: venue([("rays", ["stingray", "eel"])]))
        #expect(dropped.map(\.task) == [.init(missionId: "rays", taskId: "ray"), .init(missionId: "sharks", taskId: "fin")])
        #expect(dropped.map(\.photos) == [2, 1])
    }

    @Test("Nothing is dropped when every task with photos is still there")
    func nothingDropped() {
        let photos = TaskPhotos(photos: [photo("1", "rays", "ray")], picks: [:])
        #expect(DroppedTasks.of(photos, in: venue([("rays", ["ray"]), ("new", ["one"])])).isEmpty)
    }
}
