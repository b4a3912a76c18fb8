import Foundation

extension PostgresSchema {
    /// Migration 3, as SQLite's v11: a group counts in the numbers once someone has joined it
    /// (`played`), and a `task-undone` takes its mission's completion back, until the mission
    /// completes again.
    static let playedMigration = """
        ALTER TABLE play_group ADD COLUMN played boolean NOT NULL DEFAULT false;
        UPDATE play_group SET played = true WHERE EXISTS (SELECT 1 FROM membership WHERE membership.group_id = play_group.id);
        DELETE FROM visit_tally WHERE kind IN ('group', 'photos');
        INSERT INTO visit_tally (venue_id, kind, mission_id, task_id, value, count)
            SELECT venue_id, 'group', '', '', \(quarterOf("created_at")), COUNT(*) FROM play_group WHERE played GROUP BY 1, 5;
        INSERT INTO visit_tally (venue_id, kind, mission_id, task_id, value, count)
            SELECT venue_id, 'photos', '', '', photos_added, COUNT(*) FROM play_group WHERE played GROUP BY 1, 5;

        CREATE OR REPLACE FUNCTION tally_group() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.played THEN
                IF TG_OP = 'DELETE' THEN
                    PERFORM tally_remove(OLD.venue_id, 'group', '', '', \(quarterOf("OLD.created_at")));
                END IF;
                PERFORM tally_remove(OLD.venue_id, 'photos', '', '', OLD.photos_added);
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.played THEN
                IF TG_OP = 'INSERT' OR NOT OLD.played THEN
                    PERFORM tally_add(NEW.venue_id, 'group', '', '', \(quarterOf("NEW.created_at")));
                END IF;
                PERFORM tally_add(NEW.venue_id, 'photos', '', '', NEW.photos_added);
            END IF;
            RETURN NULL;
        END $$;
        DROP TRIGGER tally_group_photos ON play_group;
        CREATE TRIGGER tally_group_photos AFTER UPDATE OF photos_added, played ON play_group FOR EACH ROW EXECUTE FUNCTION tally_group();

        CREATE FUNCTION group_played() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE play_group SET played = true WHERE id = NEW.group_id AND NOT played;
            RETURN NULL;
        END $$;
        CREATE TRIGGER group_played AFTER INSERT ON membership FOR EACH ROW EXECUTE FUNCTION group_played();

        CREATE FUNCTION visit_task_undone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE visit_mission SET completed_at = NULL
                WHERE group_id = NEW.group_id AND mission_id = NEW.data::jsonb ->> 'missionId' AND completed_at IS NOT NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER visit_task_undone AFTER INSERT ON group_event FOR EACH ROW
            WHEN (NEW.type = 'task-undone') EXECUTE FUNCTION visit_task_undone();
        -- What was stored before: a mission is complete from its completion after its last task undone.
        UPDATE visit_mission SET completed_at = (
            SELECT MIN(c.created_at) FROM group_event c
            WHERE c.group_id = visit_mission.group_id AND c.type = 'mission-completed' AND c.data::jsonb ->> 'missionId' = visit_mission.mission_id
              AND c.seq > COALESCE((
                  SELECT MAX(u.seq) FROM group_event u
                  WHERE u.group_id = visit_mission.group_id AND u.type = 'task-undone' AND u.data::jsonb ->> 'missionId' = visit_mission.mission_id
              ), 0)
        ) WHERE completed_at IS NOT NULL;

        -- When an account's sign-in lock was last lifted.
        ALTER TABLE staff ADD COLUMN unlocked_at double precision;
        """

    /// Migration 9, as SQLite's v17: the triggers and functions that kept the numbers go; their
    /// tables and counts stay, and Core goes on counting the same way.
    static let tallyTriggersDropped = """
        DROP TRIGGER tally_group_added ON play_group;
        DROP TRIGGER tally_group_gone ON play_group;
        DROP TRIGGER tally_group_photos ON play_group;
        DROP TRIGGER tally_mission_changed ON visit_mission;
        DROP TRIGGER tally_task_changed ON visit_task;
        DROP TRIGGER visit_event_stored ON group_event;
        DROP TRIGGER visit_task_undone ON group_event;
        DROP TRIGGER group_played ON membership;
        DROP FUNCTION tally_group();
        DROP FUNCTION tally_mission();
        DROP FUNCTION tally_task();
        DROP FUNCTION visit_event();
        DROP FUNCTION visit_task_undone();
        DROP FUNCTION group_played();
        DROP FUNCTION tally_add(text, text, text, text, bigint);
        DROP FUNCTION tally_remove(text, text, text, text, bigint);
        """
}
