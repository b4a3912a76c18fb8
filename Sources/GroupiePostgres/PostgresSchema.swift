import Foundation
import GroupieCore
import GroupieStorage

/// The PostgreSQL schema, as versioned migrations. Version 1 is the schema SQLite reaches after
/// its migrations v1 to v10, with the same tables, keys and cascades. The venue numbers were kept
/// by PL/pgSQL triggers until version 9; since then Core counts them (`VisitTallyRules`) and
/// `ApplyWrites` writes its deltas. Shipped migrations are never edited; a change of schema is a
/// new one, in both backends.
enum PostgresSchema {
    /// Core's units, written into the SQL of the shipped migrations.
    static let quarter = Int(VisitNumbers.Tally.quarterHour)
    static let notCompleted = VisitNumbers.Tally.notCompleted

    /// Whole seconds, as SQLite's `CAST(round(x) AS INTEGER)`: halves away from zero, which
    /// `round` on numeric does (on double precision it may round them to even).
    private static func seconds(_ difference: String) -> String {
        "round((\(difference))::numeric)::bigint"
    }

    /// Seconds from a mission's start to its completion, or "not completed".
    private static func missionValue(_ row: String) -> String {
        "CASE WHEN \(row).completed_at IS NULL THEN \(notCompleted) ELSE \(seconds("\(row).completed_at - \(row).started_at")) END"
    }

    /// The quarter hour of a time: SQLite's `CAST(x / 900 AS INTEGER)` truncates toward zero.
    static func quarterOf(_ time: String) -> String {
        "trunc(\(time) / \(quarter))::bigint"
    }

    static let migrations: [(version: Int, name: String, sql: String)] = [
        (1, "players, groups, photos, events, collages, staff and the venue numbers", """
            CREATE TABLE player (
                id text PRIMARY KEY,
                name text NOT NULL,
                language text,
                token_hash bytea NOT NULL UNIQUE,
                created_at double precision NOT NULL
            );
            CREATE TABLE play_group (
                id text PRIMARY KEY,
                venue_id text NOT NULL,
                name text,
                join_code text NOT NULL UNIQUE,
                creator_id text REFERENCES player(id) ON DELETE SET NULL,
                created_at double precision NOT NULL,
                joinable_until double precision NOT NULL,
                closed_at double precision,
                closed_reason text,
                photos_added bigint NOT NULL DEFAULT 0
            );
            CREATE INDEX play_group_by_venue ON play_group(venue_id, created_at, id);
            CREATE INDEX play_group_by_age ON play_group(created_at);
            CREATE TABLE membership (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                player_id text NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                joined_at double precision NOT NULL,
                left_at double precision
            );
            -- A player is in at most one group at a time, whatever the code above does.
            CREATE UNIQUE INDEX membership_one_active_per_player ON membership(player_id) WHERE left_at IS NULL;
            CREATE INDEX membership_by_group ON membership(group_id, left_at);
            CREATE INDEX membership_by_player ON membership(player_id);

            CREATE TABLE photo (
                id text PRIMARY KEY,
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                photographer_id text NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                mission_id text,
                task_id text,
                blob text NOT NULL,
                format text NOT NULL,
                width bigint NOT NULL,
                height bigint NOT NULL,
                created_at double precision NOT NULL,
                focus_x double precision,
                focus_y double precision
            );
            CREATE INDEX photo_by_group ON photo(group_id, created_at, id);
            CREATE INDEX photo_by_blob ON photo(blob);
            CREATE INDEX photo_by_photographer ON photo(photographer_id);
            CREATE TABLE task_choice (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                mission_id text NOT NULL,
                task_id text NOT NULL,
                photo_id text NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                PRIMARY KEY (group_id, mission_id, task_id)
            );
            CREATE INDEX task_choice_by_photo ON task_choice(photo_id);
            -- An upload key may name a photo held for review, which is not in `photo`.
            CREATE TABLE upload_key (
                player_id text NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                key text NOT NULL,
                photo_id text NOT NULL,
                mission_id text,
                task_id text,
                created_at double precision NOT NULL,
                PRIMARY KEY (player_id, group_id, key)
            );
            CREATE INDEX upload_key_by_time ON upload_key(created_at);
            CREATE INDEX upload_key_by_group ON upload_key(group_id);

            CREATE TABLE group_event (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                seq bigint NOT NULL,
                type text NOT NULL,
                -- JSON text, as encoded; fields are read with data::jsonb ->> 'field'.
                data text NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (group_id, seq)
            );
            CREATE TABLE collage (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                mission_id text NOT NULL,
                photo_ids text NOT NULL,
                key text NOT NULL,
                width bigint NOT NULL,
                height bigint NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (group_id, mission_id)
            );

            CREATE TABLE staff (
                id text PRIMARY KEY,
                email text NOT NULL UNIQUE,
                password_hash text NOT NULL,
                role text NOT NULL,
                created_at double precision NOT NULL
            );
            CREATE TABLE staff_venue (
                staff_id text NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
                venue_id text NOT NULL,
                PRIMARY KEY (staff_id, venue_id)
            );
            CREATE TABLE staff_session (
                token_hash bytea PRIMARY KEY,
                staff_id text NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
                csrf_token text NOT NULL,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL
            );
            CREATE INDEX staff_session_by_staff ON staff_session(staff_id);
            CREATE TABLE staff_audit (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                at double precision NOT NULL,
                staff_email text NOT NULL,
                venue_id text,
                action text NOT NULL,
                subject text,
                reason text
            );
            CREATE INDEX staff_audit_by_venue ON staff_audit(venue_id, at);
            CREATE TABLE hidden_photo (
                id text PRIMARY KEY,
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                photographer_id text NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                mission_id text,
                task_id text,
                blob text NOT NULL,
                format text NOT NULL,
                width bigint NOT NULL,
                height bigint NOT NULL,
                created_at double precision NOT NULL,
                focus_x double precision,
                focus_y double precision,
                hidden_at double precision NOT NULL,
                hidden_reason text NOT NULL,
                held boolean NOT NULL DEFAULT false
            );
            CREATE INDEX hidden_photo_by_group ON hidden_photo(group_id);
            CREATE INDEX hidden_photo_by_blob ON hidden_photo(blob);
            CREATE INDEX hidden_photo_by_photographer ON hidden_photo(photographer_id);
            CREATE INDEX hidden_photo_held ON hidden_photo(created_at, id) WHERE held;

            -- Failed attempts that rate limits count, shared by every instance.
            CREATE TABLE rate_failure (
                key text NOT NULL,
                at double precision NOT NULL
            );
            CREATE INDEX rate_failure_by_key ON rate_failure(key, at);
            CREATE INDEX rate_failure_by_time ON rate_failure(at);

            -- The venue numbers, kept as events are stored (see SQLiteStore+Numbers.swift).
            CREATE TABLE visit_tally (
                venue_id text NOT NULL,
                kind text NOT NULL,
                mission_id text NOT NULL DEFAULT '',
                task_id text NOT NULL DEFAULT '',
                value bigint NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (venue_id, kind, mission_id, task_id, value)
            );
            CREATE TABLE visit_mission (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                venue_id text NOT NULL,
                mission_id text NOT NULL,
                started_at double precision,
                completed_at double precision,
                PRIMARY KEY (group_id, mission_id)
            );
            CREATE TABLE visit_task (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                venue_id text NOT NULL,
                mission_id text NOT NULL,
                task_id text NOT NULL,
                seconds bigint NOT NULL,
                PRIMARY KEY (group_id, mission_id, task_id)
            );

            CREATE FUNCTION tally_add(v text, k text, m text, t text, x bigint) RETURNS void LANGUAGE sql AS $$
                INSERT INTO visit_tally (venue_id, kind, mission_id, task_id, value, count) VALUES (v, k, m, t, x, 1)
                    ON CONFLICT (venue_id, kind, mission_id, task_id, value) DO UPDATE SET count = visit_tally.count + 1
            $$;
            CREATE FUNCTION tally_remove(v text, k text, m text, t text, x bigint) RETURNS void LANGUAGE sql AS $$
                UPDATE visit_tally SET count = count - 1 WHERE venue_id = v AND kind = k AND mission_id = m AND task_id = t AND value = x
            $$;

            CREATE FUNCTION tally_group() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('DELETE', 'UPDATE') THEN
                    IF TG_OP = 'DELETE' THEN
                        PERFORM tally_remove(OLD.venue_id, 'group', '', '', \(quarterOf("OLD.created_at")));
                    END IF;
                    PERFORM tally_remove(OLD.venue_id, 'photos', '', '', OLD.photos_added);
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    IF TG_OP = 'INSERT' THEN
                        PERFORM tally_add(NEW.venue_id, 'group', '', '', \(quarterOf("NEW.created_at")));
                    END IF;
                    PERFORM tally_add(NEW.venue_id, 'photos', '', '', NEW.photos_added);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER tally_group_added AFTER INSERT ON play_group FOR EACH ROW EXECUTE FUNCTION tally_group();
            CREATE TRIGGER tally_group_gone AFTER DELETE ON play_group FOR EACH ROW EXECUTE FUNCTION tally_group();
            CREATE TRIGGER tally_group_photos AFTER UPDATE OF photos_added ON play_group FOR EACH ROW EXECUTE FUNCTION tally_group();

            CREATE FUNCTION tally_mission() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('DELETE', 'UPDATE') THEN
                    IF OLD.started_at IS NOT NULL THEN
                        PERFORM tally_remove(OLD.venue_id, 'mission', OLD.mission_id, '', \(missionValue("OLD")));
                    END IF;
                    IF OLD.completed_at IS NOT NULL THEN
                        PERFORM tally_remove(OLD.venue_id, 'completion', '', '', \(quarterOf("OLD.completed_at")));
                    END IF;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    IF NEW.started_at IS NOT NULL THEN
                        PERFORM tally_add(NEW.venue_id, 'mission', NEW.mission_id, '', \(missionValue("NEW")));
                    END IF;
                    IF NEW.completed_at IS NOT NULL THEN
                        PERFORM tally_add(NEW.venue_id, 'completion', '', '', \(quarterOf("NEW.completed_at")));
                    END IF;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER tally_mission_changed AFTER INSERT OR UPDATE OR DELETE ON visit_mission FOR EACH ROW EXECUTE FUNCTION tally_mission();

            CREATE FUNCTION tally_task() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM tally_remove(OLD.venue_id, 'task', OLD.mission_id, OLD.task_id, OLD.seconds);
                ELSE
                    PERFORM tally_add(NEW.venue_id, 'task', NEW.mission_id, NEW.task_id, NEW.seconds);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER tally_task_changed AFTER INSERT OR DELETE ON visit_task FOR EACH ROW EXECUTE FUNCTION tally_task();

            -- As each event is stored: a mission's first photo for a task starts it, its first
            -- completion completes it, a task's first time done counts from the mission's start.
            CREATE FUNCTION visit_event() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                venue text;
                mission text := NEW.data::jsonb ->> 'missionId';
                task text := NEW.data::jsonb ->> 'taskId';
                started double precision;
            BEGIN
                SELECT venue_id INTO venue FROM play_group WHERE id = NEW.group_id;
                IF venue IS NULL THEN RETURN NULL; END IF;
                IF NEW.type = 'photo-added' THEN
                    UPDATE play_group SET photos_added = photos_added + 1 WHERE id = NEW.group_id;
                    IF mission IS NOT NULL AND task IS NOT NULL THEN
                        INSERT INTO visit_mission (group_id, venue_id, mission_id, started_at) VALUES (NEW.group_id, venue, mission, NEW.created_at)
                            ON CONFLICT (group_id, mission_id) DO UPDATE SET started_at = excluded.started_at WHERE visit_mission.started_at IS NULL;
                    END IF;
                ELSIF NEW.type = 'task-done' AND mission IS NOT NULL AND task IS NOT NULL THEN
                    SELECT started_at INTO started FROM visit_mission WHERE group_id = NEW.group_id AND mission_id = mission;
                    INSERT INTO visit_task (group_id, venue_id, mission_id, task_id, seconds)
                        VALUES (NEW.group_id, venue, mission, task, COALESCE(\(seconds("NEW.created_at - started")), \(notCompleted)))
                        ON CONFLICT DO NOTHING;
                ELSIF NEW.type = 'mission-completed' AND mission IS NOT NULL THEN
                    INSERT INTO visit_mission (group_id, venue_id, mission_id, completed_at) VALUES (NEW.group_id, venue, mission, NEW.created_at)
                        ON CONFLICT (group_id, mission_id) DO UPDATE SET completed_at = excluded.completed_at WHERE visit_mission.completed_at IS NULL;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER visit_event_stored AFTER INSERT ON group_event FOR EACH ROW
                WHEN (NEW.type IN ('photo-added', 'task-done', 'mission-completed')) EXECUTE FUNCTION visit_event();
            """),
        (2, "the newest event's number on its group's row, and the parts of a change's writes", """
            -- Events are numbered from here rather than by reading the newest, and a change that
            -- waited for the group's row sees at once whether another one committed meanwhile.
            ALTER TABLE play_group ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;
            UPDATE play_group SET event_seq = newest.seq
                FROM (SELECT group_id, MAX(seq) AS seq FROM group_event GROUP BY group_id) AS newest
                WHERE play_group.id = newest.group_id;
            -- The objects of a part of a change's writes (`PostgresStore.ApplyWrites`), which
            -- hold one or a few: PostgreSQL, told so, finds each row written by its key. A
            -- guess of a hundred, as for any function it cannot see into, had it read whole
            -- tables to match them.
            CREATE FUNCTION groupie_writes(document jsonb, part text) RETURNS SETOF jsonb
                LANGUAGE plpgsql IMMUTABLE ROWS 1 AS $$
            BEGIN
                RETURN QUERY SELECT jsonb_array_elements(COALESCE(document -> part, '[]'::jsonb));
            END $$;
            """),
        (3, "members' claims of tasks", """
            -- One claim per task of a group; the claimer's name is read from `player`.
            CREATE TABLE task_claim (
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                mission_id text NOT NULL,
                task_id text NOT NULL,
                player_id text NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                claimed_at double precision NOT NULL,
                PRIMARY KEY (group_id, mission_id, task_id)
            );
            CREATE INDEX task_claim_by_player ON task_claim(player_id);
            """),
        (4, "groups count in the numbers once joined, a task undone takes its mission's completion back; staff sign-in locks lifted", playedMigration),
        (5, "the staff's photo feed reads a venue's photos newest first", """
            CREATE INDEX photo_by_time ON photo(created_at, id);
            """),
        (6, "members' answers to questions and found codes", """
            -- Every attempt, right or wrong; a member's erasure keeps it without its player.
            CREATE TABLE task_answer (
                id bigserial PRIMARY KEY,
                group_id text NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                mission_id text NOT NULL,
                task_id text NOT NULL,
                player_id text REFERENCES player(id) ON DELETE SET NULL,
                answer text NOT NULL,
                correct boolean NOT NULL,
                answered_at double precision NOT NULL
            );
            CREATE INDEX task_answer_by_group ON task_answer(group_id, answered_at);
            CREATE INDEX task_answer_by_player ON task_answer(player_id);
            """),
        (7, "the venue numbers counted by Core as events are stored, not by triggers", tallyTriggersDropped),
        (8, "a class's table cards as a batch of groups, with its label", """
            ALTER TABLE play_group ADD COLUMN batch_id text;
            ALTER TABLE play_group ADD COLUMN batch_label text;
            CREATE INDEX play_group_by_batch ON play_group(batch_id) WHERE batch_id IS NOT NULL;
            """),
        (9, "what erased players typed as answers, blanked", """
            -- Erasure now blanks them as it goes; players erased before kept them.
            UPDATE task_answer SET answer = '' WHERE player_id IS NULL;
            UPDATE group_event SET data = jsonb_set(data::jsonb, '{answer}', '""'::jsonb)::text
            WHERE type = 'task-answered' AND NOT EXISTS (SELECT 1 FROM player WHERE player.id = group_event.data::jsonb ->> 'playerId');
            """),
        (10, "rate limits read failures by key only", """
            -- Prepared, `key = ANY($1) AND at > $2` was given a generic plan that read every
            -- key's failures in the window through this index and kept the few asked for: each
            -- join read a school's creations from its address again. Without it, the failures
            -- are read by key (or, while the table is small, the table whole).
            DROP INDEX IF EXISTS rate_failure_by_time;
            """),
        (recountVersion, "the venue numbers counted again: a restored photo once, an answer starting its mission", """
            -- Emptied here, counted again by Core after (`PostgresStore.recountVisits`); a group
            -- counted as played stays played.
            DELETE FROM visit_tally;
            DELETE FROM visit_mission;
            DELETE FROM visit_task;
            UPDATE play_group SET photos_added = 0;
            """),
    ]

    /// The statements of a migration, one at a time, as the extended query protocol takes them:
    /// a statement ends with a line that ends in `;`, outside a `$$`-quoted function body.
    static func statements(of sql: String) -> [String] {
        var statements: [String] = [], current: [Substring] = []
        var quoted = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current.isEmpty, trimmed.isEmpty || trimmed.hasPrefix("--") { continue }
            current.append(line)
            if line.components(separatedBy: "$$").count % 2 == 0 { quoted.toggle() }
            if !quoted, trimmed.hasSuffix(";") {
                statements.append(current.joined(separator: "\n"))
                current = []
            }
        }
        let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { statements.append(rest) }
        return statements
    }
}
