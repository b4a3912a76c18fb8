import Foundation

/// What a group keeps of its visit: each completed mission with photos in the venue's order as
/// a chapter (its collage, title and facts, and who photographed which task; a mission of
/// questions and codes alone, by its facts), and who did what
/// over the whole visit. A chapter's facts are its mission's and those of its questions and
/// codes, answered right to complete it. Texts are resolved in one language; nothing here reads a file or a clock.
public struct Recap: Sendable, Hashable {
    /// A task of a chapter and the member whose photo the collage shows for it.
    public struct Credit: Sendable, Hashable {
        public var taskId: String
        public var prompt: String
        public var playerId: String
        public var name: String
    }

    /// A completed mission: what its collage shows, in task order; a mission of questions and
    /// codes alone has no collage (`photoIds` empty), only its facts.
    public struct Chapter: Sendable, Hashable {
        public var missionId: String
        public var title: String
        public var fact: String?
        public var credits: [Credit]
        /// The chosen photos' ids in task order: the collage that belongs to this chapter.
        public var photoIds: [String]
    }

    /// A member's share of the visit: how many tasks show their photo, and which missions.
    public struct Contribution: Sendable, Hashable {
        public var playerId: String
        public var name: String
        public var tasks: Int
        /// Titles of the missions their photos are in, in the venue's order.
        public var missions: [String]
    }

    public var chapters: [Chapter]
    /// Most tasks first; equal shares in the order of their first photo in the venue's order.
    public var contributions: [Contribution]
    /// When the newest chosen photo was taken (nil without any): the recap's day.
    public var lastPhotoAt: Date?

    /// What the group found out: the facts of its completed missions, in order.
    public var facts: [String] { chapters.compactMap(\.fact) }

    public init(venue: Venue, taskPhotos: TaskPhotos, language: String) {
        let fallback = venue.defaultLanguage
        var chapters: [Chapter] = []
        var shares: [String: Contribution] = [:]
        var order: [String] = []
        var last: Date?
        for mission in venue.missions {
            let title = mission.title.resolved(language: language, fallback: fallback)
            var credits: [Credit] = []
            for task in mission.tasks {
                guard let photo = taskPhotos.chosen[.init(missionId: mission.id, taskId: task.id)] else { continue }
                let prompt = task.prompt.resolved(language: language, fallback: fallback)
                credits.append(Credit(taskId: task.id, prompt: prompt, playerId: photo.photographerId, name: photo.photographerName))
                if shares[photo.photographerId] == nil {
                    order.append(photo.photographerId)
                    shares[photo.photographerId] = Contribution(playerId: photo.photographerId, name: photo.photographerName, tasks: 0, missions: [])
                }
                shares[photo.photographerId]?.tasks += 1
                if shares[photo.photographerId]?.missions.last != title { shares[photo.photographerId]?.missions.append(title) }
                last = max(last ?? photo.createdAt, photo.createdAt)
            }
            // Complete: every photo task has its photo, every question and code is answered.
            guard mission.tasks.allSatisfy({ taskPhotos.done.contains(.init(missionId: mission.id, taskId: $0.id)) }) else { continue }
            let facts = ([mission.fact] + mission.tasks.filter { $0.kind != .photo }.map(\.fact)).compactMap {
                $0?.resolved(language: language, fallback: fallback)
            }
            let photoTasks = mission.photoTaskIds
            let photos: [Photo]
            if photoTasks.isEmpty {
                // Questions and codes alone make no collage: the chapter is what they taught, so
                // there is none without a fact.
                guard !facts.isEmpty else { continue }
                photos = []
            } else {
                guard let chosen = taskPhotos.chosen(missionId: mission.id, taskIds: photoTasks) else { continue }
                photos = chosen
            }
            chapters.append(Chapter(
                missionId: mission.id, title: title, fact: facts.isEmpty ? nil : facts.joined(separator: " "),
                credits: credits, photoIds: photos.map(\.id)
            ))
        }
        self.chapters = chapters
        self.contributions = order.enumerated().compactMap { index, id in shares[id].map { (index, $0) } }
            .sorted { $0.1.tasks != $1.1.tasks ? $0.1.tasks > $1.1.tasks : $0.0 < $1.0 }.map(\.1)
        self.lastPhotoAt = last
    }
}
