import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes

extension Problem {
    /// The one table from the game's refusals to problem documents: one code for one cause, each
    /// listed in the OpenAPI document. `ProblemMiddleware` answers every refusal a route lets
    /// through with it; nil for an error that is no refusal of the game.
    init?(refusal error: any Error) {
        switch error {
        case let error as MembershipError:
            switch error {
            case .unknownCode: self = .notFound("unknown-code", "No group has this code.")
            case .groupFull(let maximum):
                self.init(.conflict, code: "group-full", detail: "The group is full: it has \(maximum) members, as many as the venue allows.")
            case .joiningTimeOver:
                self.init(.gone, code: "joining-time-over", detail: "The time for joining this group is over; start a new group instead.")
            case .groupClosed(let closed): self = .groupClosed(closed)
            case .groupNotFound: self = .groupNotFound
            case .notAMember: self = .notFound("member-not-found", "That player is not a member of this group.")
            case .notTheCreator: self.init(.forbidden, code: "not-creator", detail: "Only the group's creator can remove another member.")
            }
        case let error as PhotoRules.Refusal:
            switch error {
            case .notAllowedToDelete:
                self.init(.forbidden, code: "not-allowed", detail: "Only the photographer can delete a photo.")
            case .notAllowedToHide:
                self.init(.forbidden, code: "not-allowed", detail: "Only the group's creator can hide a teammate's photo from the group.")
            case .creatorMayOnlyHide:
                self.init(
                    .forbidden, code: "creator-may-only-hide",
                    detail: "Only the photographer can delete a photo; as the group's creator you can hide it from the group instead."
                )
            case .notOfThisTask: self.init(.unprocessableContent, code: "photo-not-of-task", detail: "That photo is not one of this task's photos.")
            case .missionLocked(let missionId):
                self = .missionLocked(missionId)
            }
        case let error as ReactionRules.Refusal:
            switch error {
            case .unknownReaction:
                self.init(.notFound, code: "reaction-not-found", detail: "Reactions are \(GroupFeed.reactions.joined(separator: ", ")).")
            case .notReactable:
                self.init(.notFound, code: "feed-entry-not-found", detail: "The group's feed has no such photo or completed mission.")
            }
        case let error as ClaimRules.Refusal:
            switch error {
            case .claimedByOther(let name):
                self.init(.conflict, code: "task-claimed", detail: "\(name) is on this task already.")
            case .taskDone: self.init(.conflict, code: "task-done", detail: "This task has its photo already.")
            case .notOpen: self.init(.conflict, code: "task-not-open", detail: "There is no such task open for the group.")
            case .timeUp(let missionId): self.init(answerRefusal: .timeUp(missionId: missionId))
            }
        case let error as AnswerRules.Refusal:
            self.init(answerRefusal: error)
        case let error as PhotoError:
            switch error {
            case .keyReused:
                self.init(
                    .unprocessableContent, code: "idempotency-key-reused",
                    detail: "This Idempotency-Key was already used for a photo of another task; use a new key for each photo."
                )
            case .photoNotFound: self = .notFound("photo-not-found", "There is no such photo among your group's.")
            }
        case is StorageFull: self = .insufficientStorage
        default:
            return nil
        }
    }
}

extension Problem {
    /// Why an upload's image cannot be taken, from what `PhotoIngest` found in its bytes; nil
    /// for another error.
    init?(unusableImage error: any Error) {
        if error is ServedOriginal.Malformed {
            self.init(.unprocessableContent, code: "unreadable-image", detail: "The photo's file is not laid out as its format requires; it may be damaged.")
            return
        }
        guard let failure = error as? PhotoProcessor.Failure else { return nil }
        switch failure {
        case .unsupportedFormat:
            self.init(.unsupportedMediaType, code: "unsupported-image", detail: "Only JPEG, PNG, WebP and HEIC/HEIF photos are accepted.")
        case .tooLarge(let width, let height):
            self.init(.unprocessableContent, code: "image-too-large", detail: "The photo is \(width) × \(height) pixels; at most 100 megapixels are accepted.")
        case .tooManyDecodedBytes(let bytes):
            self.init(
                .unprocessableContent, code: "image-too-large",
                detail: "The photo needs \(bytes / 1_048_576) MiB once decoded (its pixels, colour channels and bit depth); at most \(PhotoProcessor.Limits().maxDecodedBytes / 1_048_576) MiB are accepted."
            )
        case .tooSmall(let width, let height):
            self.init(.unprocessableContent, code: "image-too-small", detail: "The photo is \(width) × \(height) pixels; each side must be at least 64.")
        case .tooNarrow(let width, let height):
            self.init(
                .unprocessableContent, code: "image-too-narrow",
                detail: "The photo is \(width) × \(height) pixels; its long side may be at most \(PhotoProcessor.Limits().maxAspectRatio) times its short side (a panorama is about 8)."
            )
        case .unreadable, .processing:
            self.init(.unprocessableContent, code: "unreadable-image", detail: "The photo cannot be read; it may be truncated or damaged.")
        }
    }

    /// The data folder's disk is full: nothing of the request was kept, and the same request
    /// succeeds once the operator has made room (the server needs no restart).
    static let insufficientStorage = Problem(
        HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "insufficient-storage",
        detail: "The server's disk is full, so nothing was stored. Try again later.", headers: [.retryAfter: "60"]
    )
}

extension Problem {
    /// A task of a mission the group has not unlocked: when `after` (the missions it waits for)
    /// is known, it is named.
    static func missionLocked(_ missionId: String, after: [String] = []) -> Problem {
        let waitsFor =
            switch after.count {
            case 0: "the missions before it are complete"
            case 1: "mission '\(after[0])' is complete"
            default: "missions " + after.dropLast().map { "'\($0)'" }.joined(separator: ", ") + " and '\(after.last!)' are complete"
            }
        return Problem(.conflict, code: "mission-locked", detail: "Mission '\(missionId)' unlocks when \(waitsFor).")
    }

    /// The refusals of an answer or a found code (`AnswerRules`).
    init(answerRefusal error: AnswerRules.Refusal) {
        switch error {
        case .unknownTask: self.init(.unprocessableContent, code: "unknown-task", detail: "The venue has no such mission or task.")
        case .photoTask: self.init(.unprocessableContent, code: "photo-task", detail: "This task is done with a photo, not an answer.")
        case .missionLocked(let missionId):
            self = .missionLocked(missionId)
        case .alreadyDone: self.init(.conflict, code: "task-answered-already", detail: "Your group has already answered this task right.")
        case .timeUp(let missionId): self.init(.conflict, code: "time-up", detail: "The time for mission '\(missionId)' is over.")
        case .attemptsUsedUp:
            self.init(
                .conflict, code: "attempts-used-up",
                detail: "Your group has tried this task \(AnswerRules.maxAttempts) times, which is all it may; go on with the other tasks."
            )
        case .wrongKindOfAnswer:
            self.init(
                .unprocessableContent, code: "wrong-kind-of-answer",
                detail: "Answer a multiple-choice question with 'choice', and a question to type or a code with 'text'."
            )
        case .noSuchChoice: self.init(.unprocessableContent, code: "no-such-choice", detail: "The question has no such choice.")
        case .unusableText:
            self.init(.unprocessableContent, code: "invalid-answer", detail: "An answer is 1 to \(AnswerRules.maxLength) characters, with no control characters.")
        }
    }
}
