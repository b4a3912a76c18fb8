import GroupieCore
import Foundation

/// Where each photo goes in the album download: one folder per mission in the venue's
/// order, then the photos of no task; files named `task - photographer` (`EntryName.photo`).
struct AlbumPlan {
    struct Folder {
        var missionId: String?
        var name: String
        var title: String
        var photos: [Photo]
    }

    var folders: [Folder] = []
    /// The language of the folders' names and of the collages' titles.
    let language: String
    private var prompts: [GroupProgress.TaskKey: String] = [:]

    init(venue: Venue?, language: String, photos: [Photo]) {
        self.language = language
        let fallback = venue?.defaultLanguage ?? language
        var byMission: [String: [Photo]] = [:]
        var loose: [Photo] = []
        for photo in photos {
            if let missionId = photo.missionId { byMission[missionId, default: []].append(photo) } else { loose.append(photo) }
        }
        for (index, mission) in (venue?.missions ?? []).enumerated() {
            for task in mission.tasks {
                prompts[.init(missionId: mission.id, taskId: task.id)] = task.prompt.resolved(language: language, fallback: fallback)
            }
            guard let missionPhotos = byMission.removeValue(forKey: mission.id) else { continue }
            let title = mission.title.resolved(language: language, fallback: fallback)
            // Numbered in the venue's order, so the folders sort as the visit went.
            folders.append(Folder(missionId: mission.id, name: String(format: "%02d ", index + 1) + ZipStream.safeName(title), title: title, photos: missionPhotos))
        }
        // Missions the venue no longer has keep their photos, under their ids.
        for missionId in byMission.keys.sorted() {
            folders.append(Folder(missionId: nil, name: ZipStream.safeName(missionId), title: missionId, photos: byMission[missionId] ?? []))
        }
        if !loose.isEmpty {
            let other = Self.words(language).otherPhotos
            folders.append(Folder(missionId: nil, name: other, title: other, photos: loose))
        }
    }

    /// The download's own words: the folder of photos of no task, and what follows a mission's
    /// title in its collage's file name.
    struct Words {
        var otherPhotos: String
        var collage: String
    }

    static let words: [String: Words] = [
        "en": Words(otherPhotos: "Other photos", collage: "collage"),
        "sv": Words(otherPhotos: "Andra foton", collage: "collage"),
        "fr": Words(otherPhotos: "Autres photos", collage: "collage"),
        "ar": Words(otherPhotos: "صور أخرى", collage: "كولاج"),
        "ja": Words(otherPhotos: "その他の写真", collage: "コラージュ"),
    ]

    static func words(_ language: String) -> Words {
        words[String(language.lowercased().prefix { $0 != "-" })] ?? words["en"]!
    }

    /// A collage's file name without its extension: `The reef - collage`.
    func collageStem(_ folder: Folder) -> String {
        ZipStream.safeName(folder.title + " - " + Self.words(language).collage)
    }

    /// A photo's file name without its extension, safe and short, the photographer's name whole.
    func fileStem(_ photo: Photo) -> String {
        let task = photo.task.flatMap { prompts[$0] } ?? photo.taskId ?? "photo"
        return EntryName.photo(task: task, photographer: photo.photographerName)
    }
}
