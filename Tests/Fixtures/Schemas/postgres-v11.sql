--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: groupie_writes(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.groupie_writes(document jsonb, part text) RETURNS SETOF jsonb
    LANGUAGE plpgsql IMMUTABLE ROWS 1
    AS $$
BEGIN
    RETURN QUERY SELECT jsonb_array_elements(COALESCE(document -> part, '[]'::jsonb));
END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: collage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.collage (
    group_id text NOT NULL,
    mission_id text NOT NULL,
    photo_ids text NOT NULL,
    key text NOT NULL,
    width bigint NOT NULL,
    height bigint NOT NULL,
    created_at double precision NOT NULL
);


--
-- Name: group_event; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_event (
    group_id text NOT NULL,
    seq bigint NOT NULL,
    type text NOT NULL,
    data text NOT NULL,
    created_at double precision NOT NULL
);


--
-- Name: groupie_migration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.groupie_migration (
    version bigint NOT NULL,
    name text NOT NULL,
    applied_at double precision NOT NULL
);


--
-- Name: hidden_photo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.hidden_photo (
    id text NOT NULL,
    group_id text NOT NULL,
    photographer_id text NOT NULL,
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
    held boolean DEFAULT false NOT NULL
);


--
-- Name: membership; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.membership (
    id bigint NOT NULL,
    group_id text NOT NULL,
    player_id text NOT NULL,
    joined_at double precision NOT NULL,
    left_at double precision
);


--
-- Name: membership_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.membership ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.membership_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: photo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.photo (
    id text NOT NULL,
    group_id text NOT NULL,
    photographer_id text NOT NULL,
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


--
-- Name: play_group; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.play_group (
    id text NOT NULL,
    venue_id text NOT NULL,
    name text,
    join_code text NOT NULL,
    creator_id text,
    created_at double precision NOT NULL,
    joinable_until double precision NOT NULL,
    closed_at double precision,
    closed_reason text,
    photos_added bigint DEFAULT 0 NOT NULL,
    event_seq bigint DEFAULT 0 NOT NULL,
    played boolean DEFAULT false NOT NULL,
    batch_id text,
    batch_label text
);


--
-- Name: player; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.player (
    id text NOT NULL,
    name text NOT NULL,
    language text,
    token_hash bytea NOT NULL,
    created_at double precision NOT NULL
);


--
-- Name: rate_failure; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_failure (
    key text NOT NULL,
    at double precision NOT NULL
);


--
-- Name: staff; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff (
    id text NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    created_at double precision NOT NULL,
    unlocked_at double precision
);


--
-- Name: staff_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_audit (
    id bigint NOT NULL,
    at double precision NOT NULL,
    staff_email text NOT NULL,
    venue_id text,
    action text NOT NULL,
    subject text,
    reason text
);


--
-- Name: staff_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.staff_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.staff_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: staff_session; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_session (
    token_hash bytea NOT NULL,
    staff_id text NOT NULL,
    csrf_token text NOT NULL,
    created_at double precision NOT NULL,
    expires_at double precision NOT NULL
);


--
-- Name: staff_venue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staff_venue (
    staff_id text NOT NULL,
    venue_id text NOT NULL
);


--
-- Name: task_answer; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_answer (
    id bigint NOT NULL,
    group_id text NOT NULL,
    mission_id text NOT NULL,
    task_id text NOT NULL,
    player_id text,
    answer text NOT NULL,
    correct boolean NOT NULL,
    answered_at double precision NOT NULL
);


--
-- Name: task_answer_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.task_answer_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: task_answer_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.task_answer_id_seq OWNED BY public.task_answer.id;


--
-- Name: task_choice; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_choice (
    group_id text NOT NULL,
    mission_id text NOT NULL,
    task_id text NOT NULL,
    photo_id text NOT NULL
);


--
-- Name: task_claim; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_claim (
    group_id text NOT NULL,
    mission_id text NOT NULL,
    task_id text NOT NULL,
    player_id text NOT NULL,
    claimed_at double precision NOT NULL
);


--
-- Name: upload_key; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_key (
    player_id text NOT NULL,
    group_id text NOT NULL,
    key text NOT NULL,
    photo_id text NOT NULL,
    mission_id text,
    task_id text,
    created_at double precision NOT NULL
);


--
-- Name: visit_mission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.visit_mission (
    group_id text NOT NULL,
    venue_id text NOT NULL,
    mission_id text NOT NULL,
    started_at double precision,
    completed_at double precision
);


--
-- Name: visit_tally; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.visit_tally (
    venue_id text NOT NULL,
    kind text NOT NULL,
    mission_id text DEFAULT ''::text NOT NULL,
    task_id text DEFAULT ''::text NOT NULL,
    value bigint NOT NULL,
    count bigint NOT NULL
);


--
-- Name: visit_task; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.visit_task (
    group_id text NOT NULL,
    venue_id text NOT NULL,
    mission_id text NOT NULL,
    task_id text NOT NULL,
    seconds bigint NOT NULL
);


--
-- Name: task_answer id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_answer ALTER COLUMN id SET DEFAULT nextval('public.task_answer_id_seq'::regclass);


--
-- Data for Name: collage; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.collage VALUES ('g-1', 'sharks', 'ph-shark', 'k1', 2048, 1536, 1800000200);


--
-- Data for Name: group_event; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.group_event VALUES ('g-1', 1, 'member-joined', '{"playerId":"p-ada","name":"Ada"}', 1800000000);
INSERT INTO public.group_event VALUES ('g-1', 2, 'member-joined', '{"playerId":"p-bo","name":"Bo"}', 1800000030);
INSERT INTO public.group_event VALUES ('g-1', 3, 'photo-added', '{"photoId":"ph-shark","photographerId":"p-bo","photographerName":"Bo","missionId":"sharks","taskId":"shark"}', 1800000060);
INSERT INTO public.group_event VALUES ('g-1', 4, 'task-done', '{"missionId":"sharks","taskId":"shark"}', 1800000090);
INSERT INTO public.group_event VALUES ('g-1', 5, 'mission-completed', '{"missionId":"sharks"}', 1800000120);
INSERT INTO public.group_event VALUES ('g-1', 6, 'photo-added', '{"photoId":"ph-free","photographerId":"p-ada","photographerName":"Ada"}', 1800000150);


--
-- Data for Name: groupie_migration; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.groupie_migration VALUES (1, 'players, groups, photos, events, collages, staff and the venue numbers', 1795802195.1700642);
INSERT INTO public.groupie_migration VALUES (2, 'the newest event''s number on its group''s row, and the parts of a change''s writes', 1795802195.1901429);
INSERT INTO public.groupie_migration VALUES (3, 'members'' claims of tasks', 1795802195.2033582);
INSERT INTO public.groupie_migration VALUES (4, 'groups count in the numbers once joined, a task undone takes its mission''s completion back; staff sign-in locks lifted', 1795802195.218648);
INSERT INTO public.groupie_migration VALUES (5, 'the staff''s photo feed reads a venue''s photos newest first', 1795802195.234528);
INSERT INTO public.groupie_migration VALUES (6, 'members'' answers to questions and found codes', 1795802195.2579627);
INSERT INTO public.groupie_migration VALUES (7, 'the venue numbers counted by Core as events are stored, not by triggers', 1795802195.2851179);
INSERT INTO public.groupie_migration VALUES (8, 'a class''s table cards as a batch of groups, with its label', 1795802195.318882);
INSERT INTO public.groupie_migration VALUES (9, 'what erased players typed as answers, blanked', 1795802195.3279967);
INSERT INTO public.groupie_migration VALUES (10, 'rate limits read failures by key only', 1795802195.3299155);
INSERT INTO public.groupie_migration VALUES (11, 'the venue numbers counted again: a restored photo once, an answer starting its mission', 1795802195.3412027);


--
-- Data for Name: hidden_photo; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.hidden_photo VALUES ('ph-hidden', 'g-1', 'p-ada', NULL, NULL, 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', 'jpeg', 640, 480, 1800000120, NULL, NULL, 1800000300, 'blurry', false);
INSERT INTO public.hidden_photo VALUES ('ph-held', 'g-1', 'p-bo', NULL, NULL, 'dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd', 'jpeg', 640, 480, 1800000150, NULL, NULL, 1800000150, '', true);


--
-- Data for Name: membership; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.membership OVERRIDING SYSTEM VALUE VALUES (1, 'g-1', 'p-ada', 1800000000, NULL);
INSERT INTO public.membership OVERRIDING SYSTEM VALUE VALUES (2, 'g-1', 'p-bo', 1800000010, NULL);


--
-- Data for Name: photo; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.photo VALUES ('ph-shark', 'g-1', 'p-bo', 'sharks', 'shark', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'jpeg', 1600, 1200, 1800000060, 0.4, 0.6);
INSERT INTO public.photo VALUES ('ph-free', 'g-1', 'p-ada', NULL, NULL, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'png', 800, 600, 1800000090, NULL, NULL);


--
-- Data for Name: play_group; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.play_group VALUES ('g-1', 'aquarium', 'Hajarna', 'ABCD2345', 'p-ada', 1800000000, 1800028800, NULL, NULL, 2, 6, true, NULL, NULL);


--
-- Data for Name: player; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.player VALUES ('p-ada', 'Ada', 'sv', '\x01', 1800000000);
INSERT INTO public.player VALUES ('p-bo', 'Bo', NULL, '\x02', 1800000005);


--
-- Data for Name: rate_failure; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: staff; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.staff VALUES ('s-eva', 'eva@museum.example', 'x', 'moderator', 1800000000, NULL);


--
-- Data for Name: staff_audit; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.staff_audit OVERRIDING SYSTEM VALUE VALUES (1, 1800000300, 'eva@museum.example', 'aquarium', 'hide', 'ph-hidden', 'blurry');


--
-- Data for Name: staff_session; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: staff_venue; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.staff_venue VALUES ('s-eva', 'aquarium');


--
-- Data for Name: task_answer; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: task_choice; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.task_choice VALUES ('g-1', 'sharks', 'shark', 'ph-shark');


--
-- Data for Name: task_claim; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: upload_key; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.upload_key VALUES ('p-bo', 'g-1', 'upload-1', 'ph-shark', 'sharks', 'shark', 1800000060);


--
-- Data for Name: visit_mission; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.visit_mission VALUES ('g-1', 'aquarium', 'sharks', 1800000060, 1800000120);


--
-- Data for Name: visit_tally; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.visit_tally VALUES ('aquarium', 'completion', '', '', 2000000, 1);
INSERT INTO public.visit_tally VALUES ('aquarium', 'group', '', '', 2000000, 1);
INSERT INTO public.visit_tally VALUES ('aquarium', 'mission', 'sharks', '', 60, 1);
INSERT INTO public.visit_tally VALUES ('aquarium', 'photos', '', '', 2, 1);
INSERT INTO public.visit_tally VALUES ('aquarium', 'task', 'sharks', 'shark', 30, 1);


--
-- Data for Name: visit_task; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.visit_task VALUES ('g-1', 'aquarium', 'sharks', 'shark', 30);


--
-- Name: membership_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.membership_id_seq', 2, true);


--
-- Name: staff_audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.staff_audit_id_seq', 1, true);


--
-- Name: task_answer_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.task_answer_id_seq', 1, false);


--
-- Name: collage collage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.collage
    ADD CONSTRAINT collage_pkey PRIMARY KEY (group_id, mission_id);


--
-- Name: group_event group_event_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_event
    ADD CONSTRAINT group_event_pkey PRIMARY KEY (group_id, seq);


--
-- Name: groupie_migration groupie_migration_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groupie_migration
    ADD CONSTRAINT groupie_migration_pkey PRIMARY KEY (version);


--
-- Name: hidden_photo hidden_photo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hidden_photo
    ADD CONSTRAINT hidden_photo_pkey PRIMARY KEY (id);


--
-- Name: membership membership_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.membership
    ADD CONSTRAINT membership_pkey PRIMARY KEY (id);


--
-- Name: photo photo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo
    ADD CONSTRAINT photo_pkey PRIMARY KEY (id);


--
-- Name: play_group play_group_join_code_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.play_group
    ADD CONSTRAINT play_group_join_code_key UNIQUE (join_code);


--
-- Name: play_group play_group_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.play_group
    ADD CONSTRAINT play_group_pkey PRIMARY KEY (id);


--
-- Name: player player_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.player
    ADD CONSTRAINT player_pkey PRIMARY KEY (id);


--
-- Name: player player_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.player
    ADD CONSTRAINT player_token_hash_key UNIQUE (token_hash);


--
-- Name: staff_audit staff_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_audit
    ADD CONSTRAINT staff_audit_pkey PRIMARY KEY (id);


--
-- Name: staff staff_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff
    ADD CONSTRAINT staff_email_key UNIQUE (email);


--
-- Name: staff staff_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff
    ADD CONSTRAINT staff_pkey PRIMARY KEY (id);


--
-- Name: staff_session staff_session_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_session
    ADD CONSTRAINT staff_session_pkey PRIMARY KEY (token_hash);


--
-- Name: staff_venue staff_venue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_venue
    ADD CONSTRAINT staff_venue_pkey PRIMARY KEY (staff_id, venue_id);


--
-- Name: task_answer task_answer_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_answer
    ADD CONSTRAINT task_answer_pkey PRIMARY KEY (id);


--
-- Name: task_choice task_choice_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_choice
    ADD CONSTRAINT task_choice_pkey PRIMARY KEY (group_id, mission_id, task_id);


--
-- Name: task_claim task_claim_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_claim
    ADD CONSTRAINT task_claim_pkey PRIMARY KEY (group_id, mission_id, task_id);


--
-- Name: upload_key upload_key_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_key
    ADD CONSTRAINT upload_key_pkey PRIMARY KEY (player_id, group_id, key);


--
-- Name: visit_mission visit_mission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_mission
    ADD CONSTRAINT visit_mission_pkey PRIMARY KEY (group_id, mission_id);


--
-- Name: visit_tally visit_tally_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_tally
    ADD CONSTRAINT visit_tally_pkey PRIMARY KEY (venue_id, kind, mission_id, task_id, value);


--
-- Name: visit_task visit_task_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_task
    ADD CONSTRAINT visit_task_pkey PRIMARY KEY (group_id, mission_id, task_id);


--
-- Name: hidden_photo_by_blob; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hidden_photo_by_blob ON public.hidden_photo USING btree (blob);


--
-- Name: hidden_photo_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hidden_photo_by_group ON public.hidden_photo USING btree (group_id);


--
-- Name: hidden_photo_by_photographer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hidden_photo_by_photographer ON public.hidden_photo USING btree (photographer_id);


--
-- Name: hidden_photo_held; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX hidden_photo_held ON public.hidden_photo USING btree (created_at, id) WHERE held;


--
-- Name: membership_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX membership_by_group ON public.membership USING btree (group_id, left_at);


--
-- Name: membership_by_player; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX membership_by_player ON public.membership USING btree (player_id);


--
-- Name: membership_one_active_per_player; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX membership_one_active_per_player ON public.membership USING btree (player_id) WHERE (left_at IS NULL);


--
-- Name: photo_by_blob; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX photo_by_blob ON public.photo USING btree (blob);


--
-- Name: photo_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX photo_by_group ON public.photo USING btree (group_id, created_at, id);


--
-- Name: photo_by_photographer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX photo_by_photographer ON public.photo USING btree (photographer_id);


--
-- Name: photo_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX photo_by_time ON public.photo USING btree (created_at, id);


--
-- Name: play_group_by_age; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX play_group_by_age ON public.play_group USING btree (created_at);


--
-- Name: play_group_by_batch; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX play_group_by_batch ON public.play_group USING btree (batch_id) WHERE (batch_id IS NOT NULL);


--
-- Name: play_group_by_venue; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX play_group_by_venue ON public.play_group USING btree (venue_id, created_at, id);


--
-- Name: rate_failure_by_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rate_failure_by_key ON public.rate_failure USING btree (key, at);


--
-- Name: staff_audit_by_venue; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staff_audit_by_venue ON public.staff_audit USING btree (venue_id, at);


--
-- Name: staff_session_by_staff; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staff_session_by_staff ON public.staff_session USING btree (staff_id);


--
-- Name: task_answer_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_answer_by_group ON public.task_answer USING btree (group_id, answered_at);


--
-- Name: task_answer_by_player; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_answer_by_player ON public.task_answer USING btree (player_id);


--
-- Name: task_choice_by_photo; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_choice_by_photo ON public.task_choice USING btree (photo_id);


--
-- Name: task_claim_by_player; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_claim_by_player ON public.task_claim USING btree (player_id);


--
-- Name: upload_key_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX upload_key_by_group ON public.upload_key USING btree (group_id);


--
-- Name: upload_key_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX upload_key_by_time ON public.upload_key USING btree (created_at);


--
-- Name: collage collage_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.collage
    ADD CONSTRAINT collage_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: group_event group_event_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_event
    ADD CONSTRAINT group_event_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: hidden_photo hidden_photo_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hidden_photo
    ADD CONSTRAINT hidden_photo_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: hidden_photo hidden_photo_photographer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.hidden_photo
    ADD CONSTRAINT hidden_photo_photographer_id_fkey FOREIGN KEY (photographer_id) REFERENCES public.player(id) ON DELETE CASCADE;


--
-- Name: membership membership_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.membership
    ADD CONSTRAINT membership_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: membership membership_player_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.membership
    ADD CONSTRAINT membership_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player(id) ON DELETE CASCADE;


--
-- Name: photo photo_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo
    ADD CONSTRAINT photo_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: photo photo_photographer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo
    ADD CONSTRAINT photo_photographer_id_fkey FOREIGN KEY (photographer_id) REFERENCES public.player(id) ON DELETE CASCADE;


--
-- Name: play_group play_group_creator_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.play_group
    ADD CONSTRAINT play_group_creator_id_fkey FOREIGN KEY (creator_id) REFERENCES public.player(id) ON DELETE SET NULL;


--
-- Name: staff_session staff_session_staff_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_session
    ADD CONSTRAINT staff_session_staff_id_fkey FOREIGN KEY (staff_id) REFERENCES public.staff(id) ON DELETE CASCADE;


--
-- Name: staff_venue staff_venue_staff_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staff_venue
    ADD CONSTRAINT staff_venue_staff_id_fkey FOREIGN KEY (staff_id) REFERENCES public.staff(id) ON DELETE CASCADE;


--
-- Name: task_answer task_answer_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_answer
    ADD CONSTRAINT task_answer_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: task_answer task_answer_player_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_answer
    ADD CONSTRAINT task_answer_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player(id) ON DELETE SET NULL;


--
-- Name: task_choice task_choice_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_choice
    ADD CONSTRAINT task_choice_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: task_choice task_choice_photo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_choice
    ADD CONSTRAINT task_choice_photo_id_fkey FOREIGN KEY (photo_id) REFERENCES public.photo(id) ON DELETE CASCADE;


--
-- Name: task_claim task_claim_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_claim
    ADD CONSTRAINT task_claim_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: task_claim task_claim_player_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_claim
    ADD CONSTRAINT task_claim_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player(id) ON DELETE CASCADE;


--
-- Name: upload_key upload_key_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_key
    ADD CONSTRAINT upload_key_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: upload_key upload_key_player_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_key
    ADD CONSTRAINT upload_key_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player(id) ON DELETE CASCADE;


--
-- Name: visit_mission visit_mission_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_mission
    ADD CONSTRAINT visit_mission_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- Name: visit_task visit_task_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_task
    ADD CONSTRAINT visit_task_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.play_group(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


