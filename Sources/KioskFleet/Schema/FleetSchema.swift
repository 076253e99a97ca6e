/// The central schema in PostgreSQL (schema `fleet`): versioned, append-only migrations
/// recorded in `fleet.schema_migrations`.
///
/// Roles: `fleet_kiosk` (a group; each kiosk logs in as its own member role, made by
/// `fleet add-kiosk`) and `fleet_operator` (a group for people and reports). Row-level security
/// ties a kiosk role to its `kiosk_id` through `fleet.kiosks.role_name`: it inserts only its
/// own decisions and heartbeats, reads only its own rows and the decks assigned to it, and owns
/// nothing, so it cannot alter or drop anything.
package enum FleetSchema {
    /// The payload version this KioskCards sends (`decisions.payload_version`).
    /// 1: the first fleet payload (no boot id, clock flag or retraction); 2: with them;
    /// 3: with each decision's local id, position, input method and flags, and the kiosk's
    /// visits, events and maintenance log (central schema 5); 4: with each decision's
    /// accessibility mode and language (central schema 7); 5: with each event's visit and which
    /// QR code it showed (central schema 12).
    package static let payloadVersion = 5

    /// The schema version the report (`report --postgres`) needs: visits and positions.
    package static let reportSchemaVersion = 5

    /// The oldest central schema this KioskCards can sync with (it needs the instance id).
    package static let minimumSchemaVersion = 3

    /// The central database's instance id (`fleet.instance`). A kiosk's sync cursor is kept per
    /// instance: pointed at a new server, or at one whose id an operator renewed after restoring
    /// an older backup, it sends everything again (the server ignores what it has).
    package static func instanceID(_ db: PostgresConnection) throws(FleetError) -> String {
        guard let id = try db.execute("SELECT id::text FROM fleet.instance").scalar else {
            throw FleetError(kind: .schemaTooOld, message: "fleet.instance is empty; run fleet init")
        }
        return id
    }

    /// One migration: a description for `schema_migrations` and the SQL run in its transaction.
    package struct Migration: Sendable {
        package var description: String
        package var sql: String
    }

    /// Entry k brings the schema from version k to k + 1. Append only: never edit a shipped one.
    package static let migrations: [Migration] = [
        Migration(
            description: "decisions, heartbeats, kiosks, decks; roles and row-level security",
            sql: """
                DO $$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_kiosk') THEN
                        CREATE ROLE fleet_kiosk NOLOGIN;
                    END IF;
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_operator') THEN
                        CREATE ROLE fleet_operator NOLOGIN;
                    END IF;
                END
                $$;

                CREATE TABLE fleet.payload_versions (
                    version integer PRIMARY KEY,
                    description text NOT NULL
                );
                INSERT INTO fleet.payload_versions VALUES
                    (1, 'decision without boot_id, clock_synced, retracts_uid'),
                    (2, 'decision with boot_id, clock_synced, retracts_uid');

                CREATE TABLE fleet.kiosks (
                    kiosk_id text PRIMARY KEY CHECK (kiosk_id ~ '^[A-Za-z0-9._-]{1,64}$'),
                    role_name name NOT NULL UNIQUE,
                    group_name text,
                    created_at timestamptz NOT NULL DEFAULT now()
                );

                CREATE TABLE fleet.decisions (
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    decision_uid text NOT NULL,
                    payload_version integer NOT NULL REFERENCES fleet.payload_versions,
                    session_id text NOT NULL,
                    deck_id text NOT NULL,
                    deck_version integer NOT NULL,
                    card_id text NOT NULL,
                    action text NOT NULL,
                    wall_time timestamptz NOT NULL,
                    wall_ms bigint NOT NULL,
                    monotonic_ns bigint NOT NULL,
                    dwell_ms bigint NOT NULL,
                    boot_id text,
                    clock_synced boolean,
                    retracts_uid text,
                    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    PRIMARY KEY (kiosk_id, decision_uid)
                );

                CREATE TABLE fleet.heartbeats (
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    sent_at timestamptz NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    app_version text NOT NULL,
                    deck_applied text,
                    deck_assigned text,
                    last_flip timestamptz,
                    last_touch timestamptz,
                    fps real,
                    unsent integer NOT NULL,
                    storage_failing boolean NOT NULL,
                    uptime_s bigint NOT NULL,
                    cpu_temp_c real,
                    throttled text
                );
                CREATE INDEX heartbeats_kiosk_received ON fleet.heartbeats (kiosk_id, received_at DESC);

                CREATE TABLE fleet.decks (
                    deck_sha256 text PRIMARY KEY CHECK (deck_sha256 ~ '^[0-9a-f]{64}$'),
                    deck_id text NOT NULL,
                    version integer NOT NULL,
                    body bytea NOT NULL,
                    published_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE TABLE fleet.deck_assignments (
                    kiosk_id text PRIMARY KEY REFERENCES fleet.kiosks,
                    deck_sha256 text NOT NULL REFERENCES fleet.decks,
                    assigned_at timestamptz NOT NULL DEFAULT now()
                );

                -- The server's receive time is the server's: a kiosk cannot supply its own.
                CREATE FUNCTION fleet.stamp_received() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    NEW.received_at := clock_timestamp();
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER decisions_received BEFORE INSERT ON fleet.decisions
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_received();
                CREATE TRIGGER heartbeats_received BEFORE INSERT ON fleet.heartbeats
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_received();

                -- The kiosk the logged-in role belongs to (NULL for anyone else). SECURITY
                -- DEFINER so kiosk roles need no access to fleet.kiosks itself.
                CREATE FUNCTION fleet.current_kiosk() RETURNS text
                    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, fleet AS $$
                    SELECT kiosk_id FROM fleet.kiosks WHERE role_name = session_user
                $$;
                REVOKE ALL ON FUNCTION fleet.current_kiosk() FROM PUBLIC;

                REVOKE ALL ON SCHEMA fleet FROM PUBLIC;
                GRANT USAGE ON SCHEMA fleet TO fleet_kiosk, fleet_operator;
                GRANT EXECUTE ON FUNCTION fleet.current_kiosk() TO fleet_kiosk, fleet_operator;
                GRANT SELECT ON fleet.schema_migrations, fleet.payload_versions TO fleet_kiosk, fleet_operator;
                GRANT SELECT, INSERT ON fleet.decisions, fleet.heartbeats TO fleet_kiosk;
                GRANT SELECT ON fleet.decks, fleet.deck_assignments TO fleet_kiosk;
                GRANT SELECT ON ALL TABLES IN SCHEMA fleet TO fleet_operator;
                GRANT INSERT, UPDATE, DELETE ON fleet.decks, fleet.deck_assignments TO fleet_operator;
                GRANT INSERT, UPDATE ON fleet.kiosks TO fleet_operator;

                ALTER TABLE fleet.kiosks ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.decisions ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.heartbeats ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.decks ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.deck_assignments ENABLE ROW LEVEL SECURITY;

                CREATE POLICY operator_all ON fleet.kiosks TO fleet_operator USING (true) WITH CHECK (true);
                CREATE POLICY operator_all ON fleet.decisions TO fleet_operator USING (true);
                CREATE POLICY operator_all ON fleet.heartbeats TO fleet_operator USING (true);
                CREATE POLICY operator_all ON fleet.decks TO fleet_operator USING (true) WITH CHECK (true);
                CREATE POLICY operator_all ON fleet.deck_assignments TO fleet_operator
                    USING (true) WITH CHECK (true);

                CREATE POLICY own_rows_read ON fleet.decisions FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_insert ON fleet.decisions FOR INSERT TO fleet_kiosk
                    WITH CHECK (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_read ON fleet.heartbeats FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_insert ON fleet.heartbeats FOR INSERT TO fleet_kiosk
                    WITH CHECK (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_assignment ON fleet.deck_assignments FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY assigned_decks ON fleet.decks FOR SELECT TO fleet_kiosk
                    USING (EXISTS (
                        SELECT FROM fleet.deck_assignments a
                        WHERE a.deck_sha256 = decks.deck_sha256 AND a.kiosk_id = fleet.current_kiosk()));
                """),
        Migration(
            description: "reports by receive time; retractions by the decision they take back",
            sql: """
                CREATE INDEX decisions_received_at ON fleet.decisions (received_at);
                CREATE INDEX decisions_retracts ON fleet.decisions (kiosk_id, retracts_uid)
                    WHERE retracts_uid IS NOT NULL;
                """),
        Migration(
            description: "an instance id: kiosks keep one sync cursor per central database",
            sql: """
                CREATE TABLE fleet.instance (
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    id uuid NOT NULL DEFAULT gen_random_uuid()
                );
                INSERT INTO fleet.instance DEFAULT VALUES;
                GRANT SELECT ON fleet.instance TO fleet_kiosk, fleet_operator;
                """),
        Migration(
            description: "deck images as content-addressed blobs; the history of assignments (rollback)",
            sql: """
                CREATE TABLE fleet.blobs (
                    sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
                    body bytea NOT NULL,
                    CHECK (encode(sha256(body), 'hex') = sha256)
                );
                CREATE TABLE fleet.deck_images (
                    deck_sha256 text NOT NULL REFERENCES fleet.decks,
                    path text NOT NULL,
                    blob_sha256 text NOT NULL REFERENCES fleet.blobs,
                    PRIMARY KEY (deck_sha256, path)
                );
                CREATE TABLE fleet.assignment_history (
                    id bigserial PRIMARY KEY,
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    deck_sha256 text NOT NULL REFERENCES fleet.decks,
                    assigned_at timestamptz NOT NULL DEFAULT now(),
                    assigned_by name NOT NULL DEFAULT session_user,
                    rollback boolean NOT NULL DEFAULT false
                );
                ALTER TABLE fleet.decks ADD CONSTRAINT decks_body_hash CHECK (encode(sha256(body), 'hex') = deck_sha256);

                GRANT SELECT ON fleet.blobs, fleet.deck_images TO fleet_kiosk;
                GRANT SELECT, INSERT, UPDATE ON fleet.blobs, fleet.deck_images, fleet.assignment_history TO fleet_operator;
                GRANT USAGE ON SEQUENCE fleet.assignment_history_id_seq TO fleet_operator;
                ALTER TABLE fleet.blobs ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.deck_images ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.assignment_history ENABLE ROW LEVEL SECURITY;
                CREATE POLICY operator_all ON fleet.blobs TO fleet_operator USING (true) WITH CHECK (true);
                CREATE POLICY operator_all ON fleet.deck_images TO fleet_operator USING (true) WITH CHECK (true);
                CREATE POLICY operator_all ON fleet.assignment_history TO fleet_operator
                    USING (true) WITH CHECK (true);
                CREATE POLICY assigned_images ON fleet.deck_images FOR SELECT TO fleet_kiosk
                    USING (EXISTS (
                        SELECT FROM fleet.deck_assignments a
                        WHERE a.deck_sha256 = deck_images.deck_sha256 AND a.kiosk_id = fleet.current_kiosk()));
                CREATE POLICY assigned_blobs ON fleet.blobs FOR SELECT TO fleet_kiosk
                    USING (EXISTS (
                        SELECT FROM fleet.deck_images i JOIN fleet.deck_assignments a ON a.deck_sha256 = i.deck_sha256
                        WHERE i.blob_sha256 = blobs.sha256 AND a.kiosk_id = fleet.current_kiosk()));
                """),
        // 4 → 5: what the report reads (docs/REPORT.md, docs/FLEET.md), with payload version 3.
        // Every new row is insert-only for a kiosk, keyed so a re-sent batch changes nothing:
        // visits by (kiosk, session), events by their uid, maintenance entries by their content.
        Migration(
            description: "report rows: decision position, input method, flags; visits, kiosk events, maintenance log",
            sql: """
                INSERT INTO fleet.payload_versions VALUES
                    (3, 'decision with local_id, position, input_method, discarded, too_fast; visits, events, maintenance');

                ALTER TABLE fleet.decisions
                    ADD COLUMN local_id bigint,
                    ADD COLUMN position integer,
                    ADD COLUMN input_method text,
                    ADD COLUMN discarded boolean,
                    ADD COLUMN too_fast boolean;

                CREATE TABLE fleet.visits (
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    session_id text NOT NULL,
                    payload_version integer NOT NULL REFERENCES fleet.payload_versions,
                    deck_id text NOT NULL,
                    deck_version integer NOT NULL,
                    started_wall_ms bigint NOT NULL,
                    started_monotonic_ns bigint NOT NULL,
                    ended_wall_ms bigint,
                    end_reason text,
                    cards_shown integer,
                    accessibility_used boolean,
                    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    PRIMARY KEY (kiosk_id, session_id)
                );
                CREATE INDEX visits_started ON fleet.visits (started_wall_ms);

                CREATE TABLE fleet.kiosk_events (
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    event_uid text NOT NULL,
                    payload_version integer NOT NULL REFERENCES fleet.payload_versions,
                    kind text NOT NULL,
                    wall_ms bigint NOT NULL,
                    monotonic_ns bigint NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    PRIMARY KEY (kiosk_id, event_uid)
                );
                CREATE INDEX kiosk_events_wall_ms ON fleet.kiosk_events (wall_ms);

                CREATE TABLE fleet.maintenance (
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    wall_ms bigint NOT NULL,
                    state text NOT NULL,
                    note text NOT NULL,
                    payload_version integer NOT NULL REFERENCES fleet.payload_versions,
                    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    PRIMARY KEY (kiosk_id, wall_ms, state, note)
                );

                CREATE TRIGGER visits_received BEFORE INSERT ON fleet.visits
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_received();
                CREATE TRIGGER kiosk_events_received BEFORE INSERT ON fleet.kiosk_events
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_received();
                CREATE TRIGGER maintenance_received BEFORE INSERT ON fleet.maintenance
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_received();

                GRANT SELECT, INSERT ON fleet.visits, fleet.kiosk_events, fleet.maintenance TO fleet_kiosk;
                GRANT SELECT ON fleet.visits, fleet.kiosk_events, fleet.maintenance TO fleet_operator;
                ALTER TABLE fleet.visits ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.kiosk_events ENABLE ROW LEVEL SECURITY;
                ALTER TABLE fleet.maintenance ENABLE ROW LEVEL SECURITY;
                CREATE POLICY operator_all ON fleet.visits TO fleet_operator USING (true);
                CREATE POLICY operator_all ON fleet.kiosk_events TO fleet_operator USING (true);
                CREATE POLICY operator_all ON fleet.maintenance TO fleet_operator USING (true);
                CREATE POLICY own_rows_read ON fleet.visits FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_insert ON fleet.visits FOR INSERT TO fleet_kiosk
                    WITH CHECK (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_read ON fleet.kiosk_events FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_insert ON fleet.kiosk_events FOR INSERT TO fleet_kiosk
                    WITH CHECK (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_read ON fleet.maintenance FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                CREATE POLICY own_rows_insert ON fleet.maintenance FOR INSERT TO fleet_kiosk
                    WITH CHECK (kiosk_id = fleet.current_kiosk());
                """),
        Migration(
            description: "decks down: assignment changes notify the kiosk; heartbeats carry the last deck error",
            sql: """
                ALTER TABLE fleet.heartbeats ADD COLUMN deck_error text;
                -- One channel per kiosk, named by a hash of its id, with no payload: a kiosk that
                -- listens on another's channel learns only that something changed there.
                CREATE FUNCTION fleet.notify_deck_assignment() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('fleet_deck_' || md5(NEW.kiosk_id), '');
                    RETURN NULL;
                END
                $$;
                CREATE TRIGGER deck_assignments_notify AFTER INSERT OR UPDATE ON fleet.deck_assignments
                    FOR EACH ROW EXECUTE FUNCTION fleet.notify_deck_assignment();
                """),
        // 6 → 7: payload version 4, what the kiosk's store has kept since its migrations 6 and 7.
        Migration(
            description: "decision accessibility mode and language (payload version 4)",
            sql: """
                INSERT INTO fleet.payload_versions VALUES
                    (4, 'decision with accessibility_mode, language');
                ALTER TABLE fleet.decisions
                    ADD COLUMN accessibility_mode boolean,
                    ADD COLUMN language text;
                """),
        // 7 → 8: a kiosk role is treated as possibly stolen. Its limits live in one function,
        // fleet.limit_kiosk_role, which this migration runs on every existing kiosk role and
        // `fleet add-kiosk` on each new one (connection limit and timeouts are per role: a
        // group role's settings are not inherited). docs/FLEET.md "A stolen kiosk password".
        Migration(
            description:
                "kiosk roles limited: connections, timeouts, no temp tables or large objects, batch size; heartbeat warnings",
            sql: """
                CREATE FUNCTION fleet.limit_kiosk_role(role name) RETURNS void LANGUAGE plpgsql AS $$
                BEGIN
                    EXECUTE format('ALTER ROLE %I CONNECTION LIMIT \(kioskConnectionLimit)', role);
                    EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', role, '\(kioskStatementTimeout)');
                    EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', role,
                        '\(kioskIdleInTransactionTimeout)');
                    IF current_setting('server_version_num')::integer >= 140000 THEN
                        EXECUTE format('ALTER ROLE %I SET idle_session_timeout = %L', role, '\(kioskIdleSessionTimeout)');
                    END IF;
                END
                $$;
                REVOKE ALL ON FUNCTION fleet.limit_kiosk_role(name) FROM PUBLIC;
                SELECT fleet.limit_kiosk_role(r.rolname) FROM pg_auth_members m
                    JOIN pg_roles g ON g.oid = m.roleid AND g.rolname = 'fleet_kiosk'
                    JOIN pg_roles r ON r.oid = m.member;

                -- TEMP is PUBLIC's by default and cannot be revoked from one role alone: take it
                -- from PUBLIC, give it back to operators (the report builds temp tables).
                DO $$
                BEGIN
                    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
                    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO fleet_operator', current_database());
                END
                $$;
                -- Large objects: nobody in the fleet uses them; creating one needs these.
                REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea),
                    lo_import(text), lo_import(text, oid) FROM PUBLIC;

                -- What a kiosk wants its operator to know about itself (fleet-tls = insecure).
                ALTER TABLE fleet.heartbeats ADD COLUMN warning text;

                -- Images are compressed already: stored uncompressed, a kiosk's download reads
                -- each blob piece by piece (substring) without the server inflating it whole.
                ALTER TABLE fleet.blobs ALTER COLUMN body SET STORAGE EXTERNAL;

                -- What one kiosk statement may insert into one table. A kiosk sends at most
                -- \(FleetUpload.maxBatch) rows per table per round, a few hundred bytes each.
                CREATE TABLE fleet.kiosk_limits (
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    max_rows integer NOT NULL,
                    max_bytes bigint NOT NULL
                );
                INSERT INTO fleet.kiosk_limits VALUES (true, \(kioskMaxRowsPerStatement), \(kioskMaxBytesPerStatement));
                GRANT SELECT ON fleet.kiosk_limits TO fleet_operator;
                CREATE FUNCTION fleet.limit_kiosk_insert() RETURNS trigger
                    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, fleet AS $$
                DECLARE
                    n bigint;
                    size bigint;
                    lim fleet.kiosk_limits;
                BEGIN
                    IF fleet.current_kiosk() IS NULL THEN
                        RETURN NULL;
                    END IF;
                    SELECT * INTO lim FROM fleet.kiosk_limits;
                    SELECT count(*), coalesce(sum(octet_length(r::text)), 0) INTO n, size FROM new_rows r;
                    IF n > lim.max_rows OR size > lim.max_bytes THEN
                        RAISE EXCEPTION USING ERRCODE = '54000',
                            MESSAGE = format('a kiosk may insert at most %s rows and %s bytes into %s.%s at once; this batch had %s rows, %s bytes',
                                lim.max_rows, lim.max_bytes, TG_TABLE_SCHEMA, TG_TABLE_NAME, n, size),
                            HINT = 'use a smaller fleet sync --batch, or raise fleet.kiosk_limits';
                    END IF;
                    RETURN NULL;
                END
                $$;
                REVOKE ALL ON FUNCTION fleet.limit_kiosk_insert() FROM PUBLIC;
                CREATE TRIGGER decisions_kiosk_limit AFTER INSERT ON fleet.decisions
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fleet.limit_kiosk_insert();
                CREATE TRIGGER heartbeats_kiosk_limit AFTER INSERT ON fleet.heartbeats
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fleet.limit_kiosk_insert();
                CREATE TRIGGER visits_kiosk_limit AFTER INSERT ON fleet.visits
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fleet.limit_kiosk_insert();
                CREATE TRIGGER kiosk_events_kiosk_limit AFTER INSERT ON fleet.kiosk_events
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fleet.limit_kiosk_insert();
                CREATE TRIGGER maintenance_kiosk_limit AFTER INSERT ON fleet.maintenance
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fleet.limit_kiosk_insert();
                """),
        // 8 → 9: what `fleet status` needs to tell a running kiosk from a rescue sync, a kiosk
        // closed by its schedule from a silent one, and the panel's own touch-to-flip.
        Migration(
            description:
                "heartbeat source (app or sync), schedule closed until, touch-to-flip percentiles; one hash per deck id@version",
            sql: """
                ALTER TABLE fleet.heartbeats
                    ADD COLUMN source text CHECK (source IN ('app', 'sync')),
                    ADD COLUMN schedule_closed boolean,
                    ADD COLUMN opens_at timestamptz,
                    ADD COLUMN input_to_flip_p50_ms real,
                    ADD COLUMN input_to_flip_p95_ms real,
                    ADD COLUMN input_to_flip_p99_ms real,
                    ADD COLUMN input_to_flip_max_ms real,
                    ADD COLUMN input_to_flip_samples integer;
                -- A deck's content: its file and every image (FleetDecks.contentHash). fleet publish
                -- refuses new content under an existing id@version; decks published twice with
                -- different content before this version keep both rows (so not a unique index).
                ALTER TABLE fleet.decks ADD COLUMN content_sha256 text CHECK (content_sha256 ~ '^[0-9a-f]{64}$');
                CREATE INDEX decks_id_version ON fleet.decks (deck_id, version);
                """),
        // 9 → 10: staged rollouts (FleetRollouts). A group's deck goes to its canaries first;
        // `fleet status` or the fleet-check timer promotes it to the rest after the hold.
        Migration(
            description: "staged deck rollouts: canaries first, the rest of the group after a hold",
            sql: """
                CREATE TABLE fleet.rollouts (
                    id bigserial PRIMARY KEY,
                    group_name text NOT NULL,
                    deck_sha256 text NOT NULL REFERENCES fleet.decks,
                    canaries text[] NOT NULL CHECK (cardinality(canaries) > 0),
                    hold interval NOT NULL,
                    started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    hold_until timestamptz NOT NULL,
                    state text NOT NULL DEFAULT 'holding'
                        CHECK (state IN ('holding', 'promoted', 'stopped', 'superseded')),
                    reason text,
                    changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    changed_by name,
                    started_by name NOT NULL DEFAULT session_user
                );
                -- One open (holding or stopped) rollout per group: a new publish supersedes it.
                CREATE UNIQUE INDEX rollouts_open_per_group ON fleet.rollouts (group_name)
                    WHERE state IN ('holding', 'stopped');
                GRANT SELECT, INSERT, UPDATE ON fleet.rollouts TO fleet_operator;
                GRANT USAGE ON SEQUENCE fleet.rollouts_id_seq TO fleet_operator;
                ALTER TABLE fleet.rollouts ENABLE ROW LEVEL SECURITY;
                CREATE POLICY operator_all ON fleet.rollouts TO fleet_operator USING (true) WITH CHECK (true);
                """),
        // 10 → 11: screenshots from afar (FleetScreenshots). An operator inserts a request, the
        // kiosk (told by NOTIFY on its own channel) answers it once: a PNG of its frame or a
        // refusal. A kiosk sees and answers only its own requests; no kiosk reads another's.
        Migration(
            description: "screenshots from afar: an operator's request, the kiosk's PNG or refusal, with their times",
            sql: """
                CREATE TABLE fleet.screenshots (
                    id bigserial PRIMARY KEY,
                    kiosk_id text NOT NULL REFERENCES fleet.kiosks,
                    requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    requested_by name NOT NULL DEFAULT session_user,
                    state text NOT NULL DEFAULT 'requested'
                        CHECK (state IN ('requested', 'taken', 'refused', 'expired')),
                    answered_at timestamptz,
                    taken_wall_ms bigint,
                    width integer,
                    height integer,
                    png bytea CHECK (octet_length(png) <= \(screenshotMaxBytes)),
                    reason text CHECK (octet_length(reason) <= 1000),
                    CHECK ((state = 'taken') = (png IS NOT NULL))
                );
                CREATE INDEX screenshots_kiosk_requested ON fleet.screenshots (kiosk_id, requested_at DESC);
                -- The answer's time is the server's; the frame's own (taken_wall_ms) is the kiosk's.
                CREATE FUNCTION fleet.stamp_screenshot_answer() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.state <> OLD.state THEN
                        NEW.answered_at := clock_timestamp();
                    END IF;
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER screenshots_answered BEFORE UPDATE ON fleet.screenshots
                    FOR EACH ROW EXECUTE FUNCTION fleet.stamp_screenshot_answer();
                -- The kiosk's channel (a hash of its id, no payload, as for decks) on a request;
                -- the waiting operator's channel, with the request id, on an answer.
                CREATE FUNCTION fleet.notify_screenshot() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'INSERT' THEN
                        PERFORM pg_notify('fleet_shot_' || md5(NEW.kiosk_id), '');
                    ELSIF NEW.state <> OLD.state THEN
                        PERFORM pg_notify('fleet_shot_answered', NEW.id::text);
                    END IF;
                    RETURN NULL;
                END
                $$;
                CREATE TRIGGER screenshots_notify AFTER INSERT OR UPDATE ON fleet.screenshots
                    FOR EACH ROW EXECUTE FUNCTION fleet.notify_screenshot();

                GRANT SELECT, INSERT, UPDATE (state) ON fleet.screenshots TO fleet_operator;
                GRANT USAGE ON SEQUENCE fleet.screenshots_id_seq TO fleet_operator;
                GRANT SELECT (id, kiosk_id, requested_at, state) ON fleet.screenshots TO fleet_kiosk;
                GRANT UPDATE (state, taken_wall_ms, width, height, png, reason) ON fleet.screenshots TO fleet_kiosk;
                ALTER TABLE fleet.screenshots ENABLE ROW LEVEL SECURITY;
                CREATE POLICY operator_all ON fleet.screenshots TO fleet_operator USING (true) WITH CHECK (true);
                CREATE POLICY own_requests_read ON fleet.screenshots FOR SELECT TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk());
                -- A kiosk answers its own open request once: 'requested' becomes 'taken' or 'refused'.
                CREATE POLICY own_requests_answer ON fleet.screenshots FOR UPDATE TO fleet_kiosk
                    USING (kiosk_id = fleet.current_kiosk() AND state = 'requested')
                    WITH CHECK (kiosk_id = fleet.current_kiosk() AND state IN ('taken', 'refused'));
                """),
        // 11 → 12: payload version 5, what the kiosk's store has kept since its migration 8: the
        // visit of a `qr_shown` event and which code it showed, `code_of` 'card' (its id in
        // `card_id`) or 'end' (the end state's). Existing rows keep NULL: an unknown code.
        Migration(
            description: "kiosk event visit and QR code shown: card id or the end state (payload version 5)",
            sql: """
                INSERT INTO fleet.payload_versions VALUES
                    (5, 'kiosk event with session_id, card_id, code_of');
                ALTER TABLE fleet.kiosk_events
                    ADD COLUMN session_id text,
                    ADD COLUMN card_id text,
                    ADD COLUMN code_of text;
                """),
    ]

    package static var schemaVersion: Int { migrations.count }

    // A kiosk role's limits (migration 7 → 8, `fleet.limit_kiosk_role`).

    /// Connections one kiosk role may hold. The kiosk's sync worker uses one (decisions,
    /// heartbeats, decks and LISTEN share it); one more for a `fleet sync --once` run by hand
    /// on the kiosk while the app runs, and one for a reconnect while the server has not yet
    /// noticed the old connection died (TCP keepalives: about 35 s).
    package static let kioskConnectionLimit = 3
    /// The longest statement a kiosk runs: a batch insert, or one download chunk.
    package static let kioskStatementTimeout = "30s"
    /// A kiosk's transactions never wait for anything but its own quick writes.
    package static let kioskIdleInTransactionTimeout = "1min"
    /// A healthy kiosk sends a heartbeat every minute (fleet-heartbeat), so its session is
    /// never this idle; a slower one reconnects after it (PostgreSQL 14 and newer).
    package static let kioskIdleSessionTimeout = "15min"
    /// Rows one kiosk statement may insert into one table: twice what a kiosk sends.
    package static let kioskMaxRowsPerStatement = 2 * FleetUpload.maxBatch
    /// Bytes one kiosk statement may insert into one table (a decision row is about 300).
    package static let kioskMaxBytesPerStatement = 4 << 20

    /// The largest screenshot the server keeps: a 3840×2160 frame as an uncompressed PNG
    /// (about 33 MB) would not fit; a kiosk's screen, mostly flat colour, is far smaller.
    package static let screenshotMaxBytes = 16 << 20

    /// What `migrate` did.
    package struct MigrationReport: Hashable, Sendable {
        /// The version found (0: a database without the fleet schema).
        package var from: Int
        package var to: Int
        /// The descriptions of the migrations applied, in order.
        package var applied: [String]
    }

    /// Creates or upgrades the schema: each missing migration in its own transaction with its
    /// row in `schema_migrations`, under an advisory lock so two `fleet init`s never race.
    /// Idempotent: a second run applies nothing. Refuses a schema newer than this KioskCards.
    package static func migrate(_ db: PostgresConnection) throws(FleetError) -> MigrationReport {
        try db.execute("SELECT pg_advisory_lock(7246001)")
        defer { _ = try? db.execute("SELECT pg_advisory_unlock(7246001)") }
        try db.execute("CREATE SCHEMA IF NOT EXISTS fleet")
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS fleet.schema_migrations (
                version integer PRIMARY KEY,
                description text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let current = try currentVersion(db)
        if current > schemaVersion {
            throw FleetError(
                kind: .schemaTooNew,
                message:
                    "the central schema is at version \(current), newer than this KioskCards knows (\(schemaVersion));"
                    + " run fleet init with the newer KioskCards")
        }
        var applied: [String] = []
        for version in current..<schemaVersion {
            let migration = migrations[version]
            try db.transaction { db in
                try db.execute(migration.sql)
                try db.execute(
                    "INSERT INTO fleet.schema_migrations (version, description) VALUES ($1, $2)",
                    [String(version + 1), migration.description])
            }
            applied.append(migration.description)
        }
        return MigrationReport(from: current, to: schemaVersion, applied: applied)
    }

    /// The highest applied migration (0 when there is none).
    package static func currentVersion(_ db: PostgresConnection) throws(FleetError) -> Int {
        let rows = try db.execute("SELECT coalesce(max(version), 0) FROM fleet.schema_migrations")
        return Int(rows.scalar ?? "0") ?? 0
    }

    /// For a kiosk: checks that the server has a fleet schema it can talk to and that it
    /// still accepts this KioskCards' payload version; the error says which side to upgrade.
    package static func checkCompatible(_ db: PostgresConnection) throws(FleetError) {
        let exists = try db.execute("SELECT to_regclass('fleet.schema_migrations') IS NOT NULL").scalar == "t"
        guard exists else {
            throw FleetError(
                kind: .schemaTooOld,
                message: "no fleet schema in this database; run 'KioskCards fleet init --postgres URL' on it")
        }
        let version = try currentVersion(db)
        if version < minimumSchemaVersion {
            throw FleetError(
                kind: .schemaTooOld,
                message: "the central schema is at version \(version); this KioskCards needs \(minimumSchemaVersion)")
        }
        _ = try negotiatePayload(db, upTo: payloadVersion)
    }

    /// The oldest payload version this KioskCards still sends, to a server not yet migrated.
    package static let oldestPayloadVersion = 2

    /// The newest payload version, at most `newest`, that the server accepts: this one, or an
    /// older one down to `oldestPayloadVersion` on a server not yet migrated. Then the columns
    /// that server lacks stay on the kiosk: with 4, each event's visit and QR code; with 3 also
    /// each decision's accessibility mode and
    /// language; with 2 also the report's columns, and the visits wait locally until the server
    /// is upgraded.
    package static func negotiatePayload(_ db: PostgresConnection, upTo newest: Int = payloadVersion)
        throws(FleetError) -> Int
    {
        let oldest = min(newest, oldestPayloadVersion)
        let rows = try db.execute(
            "SELECT max(version) FROM fleet.payload_versions WHERE version BETWEEN $1 AND $2",
            [String(oldest), String(newest)])
        guard let best = rows.scalar.flatMap({ Int($0) }) else {
            let version = try currentVersion(db)
            throw FleetError(
                kind: .schemaTooNew,
                message:
                    "the central schema (version \(version)) no longer accepts payload versions \(oldest) to \(newest)"
                    + "; upgrade this KioskCards")
        }
        return best
    }
}
