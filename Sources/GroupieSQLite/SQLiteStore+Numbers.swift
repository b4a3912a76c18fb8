import Foundation
import GRDB
import GroupieCore
import GroupieStorage

/// The venues' numbers, kept as events are stored, so that the numbers page reads a few
/// thousand counts instead of every event of every group: one row per group and mission
/// (`visit_mission`: when the group started it, with its first photo for a task, and completed
/// it), per group and task done (`visit_task`: seconds from the mission's start),
/// `play_group.played` and `photos_added`, and `visit_tally`, the histograms of
/// `VisitNumbers.Tally`. Core counts them (`VisitTallyRules`, written by
/// `SQLiteStore+Tally.swift`); below are the tables as migrations v10 and v12 made them,
/// with the counts of what was stored before (their triggers went in v17).
extension SQLiteStore {
    /// The tally of a venue's stored groups.
    public func visitTally(venueId: String) async throws -> VisitNumbers.Tally {
        try await writer.read { db in
            var tally = VisitNumbers.Tally()
            let rows = try Row.fetchCursor(
                db, sql: "SELECT kind, mission_id, task_id, value, count FROM visit_tally WHERE venue_id = ? AND count > 0", arguments: [venueId]
            )
            while let row = try rows.next() {
                tally.add(kind: row[0], missionId: row[1], taskId: row[2], value: row[3], count: row[4])
            }
            return tally
        }
    }

    /// Core's units, written into the SQL of the shipped migrations: quarter hours, and the value
    /// of "not completed".
    private static let quarter = Int(VisitNumbers.Tally.quarterHour)
    private static let notCompleted = VisitNumbers.Tally.notCompleted

    /// Migration v10's SQL for a `visit_mission` row's counts (`NEW`) added to the tally.
    private static let missionCounted = """
            INSERT INTO visit_tally (venue_id, kind, mission_id, value, count)
                SELECT NEW.venue_id, 'mission', NEW.mission_id,
                       CASE WHEN NEW.completed_at IS NULL THEN \(notCompleted) ELSE CAST(round(NEW.completed_at - NEW.started_at) AS INTEGER) END, 1
                WHERE NEW.started_at IS NOT NULL
                ON CONFLICT DO UPDATE SET count = count + 1;
            INSERT INTO visit_tally (venue_id, kind, value, count)
                SELECT NEW.venue_id, 'completion', CAST(NEW.completed_at / \(quarter) AS INTEGER), 1 WHERE NEW.completed_at IS NOT NULL
                ON CONFLICT DO UPDATE SET count = count + 1;
        """

    /// Migration v10's SQL for the same counts of the row as it was (`OLD`) taken out again.
    private static let missionUncounted = """
            UPDATE visit_tally SET count = count - 1
                WHERE OLD.started_at IS NOT NULL AND venue_id = OLD.venue_id AND kind = 'mission' AND mission_id = OLD.mission_id AND task_id = ''
                  AND value = CASE WHEN OLD.completed_at IS NULL THEN \(notCompleted) ELSE CAST(round(OLD.completed_at - OLD.started_at) AS INTEGER) END;
            UPDATE visit_tally SET count = count - 1
                WHERE OLD.completed_at IS NOT NULL AND venue_id = OLD.venue_id AND kind = 'completion' AND mission_id = '' AND task_id = ''
                  AND value = CAST(OLD.completed_at / \(quarter) AS INTEGER);
        """

    /// The tables of migration v10 (and its triggers, dropped in v17), and the tally of what was
    /// stored before it.
    static let visitTallySchema = """
        ALTER TABLE play_group ADD COLUMN photos_added INTEGER NOT NULL DEFAULT 0;
        UPDATE play_group SET photos_added =
            (SELECT COUNT(*) FROM group_event WHERE group_id = play_group.id AND type = 'photo-added');

        CREATE TABLE visit_tally (
            venue_id TEXT NOT NULL,
            -- group (value: quarter hour of its start), completion (quarter hour), photos (photos
            -- added by a group), mission (seconds to completion, or -1), task (seconds from the
            -- mission's start, or -1)
            kind TEXT NOT NULL,
            mission_id TEXT NOT NULL DEFAULT '',
            task_id TEXT NOT NULL DEFAULT '',
            value INTEGER NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (venue_id, kind, mission_id, task_id, value)
        ) WITHOUT ROWID;
        INSERT INTO visit_tally (venue_id, kind, value, count)
            SELECT venue_id, 'group', CAST(created_at / \(quarter) AS INTEGER), COUNT(*) FROM play_group GROUP BY 1, 3;
        INSERT INTO visit_tally (venue_id, kind, value, count)
            SELECT venue_id, 'photos', photos_added, COUNT(*) FROM play_group GROUP BY 1, 3;

        CREATE TRIGGER tally_group_added AFTER INSERT ON play_group BEGIN
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'group', CAST(NEW.created_at / \(quarter) AS INTEGER), 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'photos', NEW.photos_added, 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
        END;
        CREATE TRIGGER tally_group_gone AFTER DELETE ON play_group BEGIN
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'group' AND mission_id = '' AND task_id = '' AND value = CAST(OLD.created_at / \(quarter) AS INTEGER);
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'photos' AND mission_id = '' AND task_id = '' AND value = OLD.photos_added;
        END;
        CREATE TRIGGER tally_group_photos AFTER UPDATE OF photos_added ON play_group BEGIN
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'photos' AND mission_id = '' AND task_id = '' AND value = OLD.photos_added;
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'photos', NEW.photos_added, 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
        END;

        CREATE TABLE visit_mission (
            group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
            venue_id TEXT NOT NULL,
            mission_id TEXT NOT NULL,
            started_at REAL,
            completed_at REAL,
            PRIMARY KEY (group_id, mission_id)
        ) WITHOUT ROWID;
        CREATE TABLE visit_task (
            group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
            venue_id TEXT NOT NULL,
            mission_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            seconds INTEGER NOT NULL,
            PRIMARY KEY (group_id, mission_id, task_id)
        ) WITHOUT ROWID;

        CREATE TRIGGER tally_mission_added AFTER INSERT ON visit_mission BEGIN
        \(missionCounted)
        END;
        CREATE TRIGGER tally_mission_gone AFTER DELETE ON visit_mission BEGIN
        \(missionUncounted)
        END;
        CREATE TRIGGER tally_mission_changed AFTER UPDATE ON visit_mission BEGIN
        \(missionUncounted)
        \(missionCounted)
        END;
        CREATE TRIGGER tally_task_added AFTER INSERT ON visit_task BEGIN
            INSERT INTO visit_tally (venue_id, kind, mission_id, task_id, value, count)
                VALUES (NEW.venue_id, 'task', NEW.mission_id, NEW.task_id, NEW.seconds, 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
        END;
        CREATE TRIGGER tally_task_gone AFTER DELETE ON visit_task BEGIN
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'task' AND mission_id = OLD.mission_id AND task_id = OLD.task_id AND value = OLD.seconds;
        END;

        -- What stored events say so far: each mission's first photo for a task and first
        -- completion, each task's first time done.
        INSERT INTO visit_mission (group_id, venue_id, mission_id, started_at, completed_at)
            SELECT e.group_id, g.venue_id, json_extract(e.data, '$.missionId'),
                   MIN(CASE WHEN e.type = 'photo-added' AND json_extract(e.data, '$.taskId') IS NOT NULL THEN e.created_at END),
                   MIN(CASE WHEN e.type = 'mission-completed' THEN e.created_at END)
            FROM group_event e JOIN play_group g ON g.id = e.group_id
            WHERE e.type IN ('photo-added', 'mission-completed') AND json_extract(e.data, '$.missionId') IS NOT NULL
            GROUP BY e.group_id, json_extract(e.data, '$.missionId')
            HAVING MIN(CASE WHEN e.type = 'photo-added' AND json_extract(e.data, '$.taskId') IS NOT NULL THEN e.created_at END) IS NOT NULL
                OR MIN(CASE WHEN e.type = 'mission-completed' THEN e.created_at END) IS NOT NULL;
        INSERT INTO visit_task (group_id, venue_id, mission_id, task_id, seconds)
            SELECT d.group_id, d.venue_id, d.mission_id, d.task_id,
                   CASE WHEN m.started_at IS NOT NULL AND m.started_at <= d.done_at THEN CAST(round(d.done_at - m.started_at) AS INTEGER) ELSE \(notCompleted) END
            FROM (SELECT e.group_id, g.venue_id, json_extract(e.data, '$.missionId') AS mission_id,
                         json_extract(e.data, '$.taskId') AS task_id, MIN(e.created_at) AS done_at
                  FROM group_event e JOIN play_group g ON g.id = e.group_id
                  WHERE e.type = 'task-done' AND json_extract(e.data, '$.missionId') IS NOT NULL AND json_extract(e.data, '$.taskId') IS NOT NULL
                  GROUP BY 1, 3, 4) d
            LEFT JOIN visit_mission m ON m.group_id = d.group_id AND m.mission_id = d.mission_id;

        -- From now on, as each event is stored.
        CREATE TRIGGER visit_photo_added AFTER INSERT ON group_event WHEN NEW.type = 'photo-added' BEGIN
            UPDATE play_group SET photos_added = photos_added + 1 WHERE id = NEW.group_id;
            INSERT INTO visit_mission (group_id, venue_id, mission_id, started_at)
                SELECT NEW.group_id, g.venue_id, json_extract(NEW.data, '$.missionId'), NEW.created_at FROM play_group g
                WHERE g.id = NEW.group_id AND json_extract(NEW.data, '$.missionId') IS NOT NULL AND json_extract(NEW.data, '$.taskId') IS NOT NULL
                ON CONFLICT (group_id, mission_id) DO UPDATE SET started_at = excluded.started_at WHERE started_at IS NULL;
        END;
        CREATE TRIGGER visit_task_done AFTER INSERT ON group_event WHEN NEW.type = 'task-done' BEGIN
            INSERT OR IGNORE INTO visit_task (group_id, venue_id, mission_id, task_id, seconds)
                SELECT NEW.group_id, g.venue_id, json_extract(NEW.data, '$.missionId'), json_extract(NEW.data, '$.taskId'),
                       COALESCE((SELECT CAST(round(NEW.created_at - m.started_at) AS INTEGER) FROM visit_mission m
                                 WHERE m.group_id = NEW.group_id AND m.mission_id = json_extract(NEW.data, '$.missionId')
                                   AND m.started_at IS NOT NULL), \(notCompleted))
                FROM play_group g
                WHERE g.id = NEW.group_id AND json_extract(NEW.data, '$.missionId') IS NOT NULL AND json_extract(NEW.data, '$.taskId') IS NOT NULL;
        END;
        CREATE TRIGGER visit_mission_completed AFTER INSERT ON group_event WHEN NEW.type = 'mission-completed' BEGIN
            INSERT INTO visit_mission (group_id, venue_id, mission_id, completed_at)
                SELECT NEW.group_id, g.venue_id, json_extract(NEW.data, '$.missionId'), NEW.created_at FROM play_group g
                WHERE g.id = NEW.group_id AND json_extract(NEW.data, '$.missionId') IS NOT NULL
                ON CONFLICT (group_id, mission_id) DO UPDATE SET completed_at = excluded.completed_at WHERE completed_at IS NULL;
        END;
        """

    /// Migration v11: a group counts in the numbers once someone has joined it (`played`), and a
    /// `task-undone` takes its mission's completion back, until the mission completes again.
    static let playedSchema = """
        ALTER TABLE play_group ADD COLUMN played INTEGER NOT NULL DEFAULT 0;
        UPDATE play_group SET played = 1 WHERE EXISTS (SELECT 1 FROM membership WHERE membership.group_id = play_group.id);

        DROP TRIGGER tally_group_added;
        DROP TRIGGER tally_group_gone;
        DROP TRIGGER tally_group_photos;
        DELETE FROM visit_tally WHERE kind IN ('group', 'photos');
        INSERT INTO visit_tally (venue_id, kind, value, count)
            SELECT venue_id, 'group', CAST(created_at / \(quarter) AS INTEGER), COUNT(*) FROM play_group WHERE played = 1 GROUP BY 1, 3;
        INSERT INTO visit_tally (venue_id, kind, value, count)
            SELECT venue_id, 'photos', photos_added, COUNT(*) FROM play_group WHERE played = 1 GROUP BY 1, 3;

        CREATE TRIGGER group_played AFTER INSERT ON membership BEGIN
            UPDATE play_group SET played = 1 WHERE id = NEW.group_id AND played = 0;
        END;
        CREATE TRIGGER tally_group_played AFTER UPDATE OF played ON play_group WHEN NEW.played = 1 AND OLD.played = 0 BEGIN
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'group', CAST(NEW.created_at / \(quarter) AS INTEGER), 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'photos', NEW.photos_added, 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
        END;
        CREATE TRIGGER tally_group_gone AFTER DELETE ON play_group WHEN OLD.played = 1 BEGIN
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'group' AND mission_id = '' AND task_id = '' AND value = CAST(OLD.created_at / \(quarter) AS INTEGER);
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'photos' AND mission_id = '' AND task_id = '' AND value = OLD.photos_added;
        END;
        CREATE TRIGGER tally_group_photos AFTER UPDATE OF photos_added ON play_group WHEN OLD.played = 1 AND NEW.played = 1 BEGIN
            UPDATE visit_tally SET count = count - 1
                WHERE venue_id = OLD.venue_id AND kind = 'photos' AND mission_id = '' AND task_id = '' AND value = OLD.photos_added;
            INSERT INTO visit_tally (venue_id, kind, value, count) VALUES (NEW.venue_id, 'photos', NEW.photos_added, 1)
                ON CONFLICT DO UPDATE SET count = count + 1;
        END;

        CREATE TRIGGER visit_task_undone AFTER INSERT ON group_event WHEN NEW.type = 'task-undone' BEGIN
            UPDATE visit_mission SET completed_at = NULL
                WHERE group_id = NEW.group_id AND mission_id = json_extract(NEW.data, '$.missionId') AND completed_at IS NOT NULL;
        END;
        -- What was stored before: a mission is complete from its completion after its last task undone.
        UPDATE visit_mission SET completed_at = (
            SELECT MIN(c.created_at) FROM group_event c
            WHERE c.group_id = visit_mission.group_id AND c.type = 'mission-completed' AND json_extract(c.data, '$.missionId') = visit_mission.mission_id
              AND c.seq > COALESCE((
                  SELECT MAX(u.seq) FROM group_event u
                  WHERE u.group_id = visit_mission.group_id AND u.type = 'task-undone' AND json_extract(u.data, '$.missionId') = visit_mission.mission_id
              ), 0)
        ) WHERE completed_at IS NOT NULL;
        """
}
