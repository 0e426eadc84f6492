"""Schema versions with forward migrations. Each entry moves the schema up by one."""

from __future__ import annotations

from typing import Final

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1: Final = (
    """CREATE TABLE documents (
        document_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        current_revision TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE revisions (
        document_id TEXT NOT NULL REFERENCES documents(document_id) ON DELETE CASCADE,
        revision TEXT NOT NULL,
        seq INTEGER NOT NULL,
        source_sha256 TEXT NOT NULL,
        media_type TEXT NOT NULL,
        filename TEXT NOT NULL,
        size INTEGER NOT NULL,
        state TEXT NOT NULL,
        failed_stage TEXT,
        error_code TEXT,
        error_message TEXT,
        manifest_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (document_id, revision)
    )""",
    "CREATE INDEX revisions_by_source ON revisions(document_id, source_sha256)",
    """CREATE TABLE revision_groups (
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        group_name TEXT NOT NULL,
        PRIMARY KEY (document_id, revision, group_name),
        FOREIGN KEY (document_id, revision)
            REFERENCES revisions(document_id, revision) ON DELETE CASCADE
    )""",
    """CREATE TABLE manifests (
        manifest_id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        json TEXT NOT NULL,
        mac TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (document_id, revision)
            REFERENCES revisions(document_id, revision) ON DELETE CASCADE
    )""",
    "CREATE INDEX manifests_by_revision ON manifests(document_id, revision)",
    """CREATE TABLE representations (
        manifest_id TEXT PRIMARY KEY REFERENCES manifests(manifest_id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        alignment BLOB,
        char_boxes BLOB
    )""",
    """CREATE TABLE blocks (
        manifest_id TEXT NOT NULL REFERENCES representations(manifest_id) ON DELETE CASCADE,
        block_index INTEGER NOT NULL,
        kind TEXT NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        locator TEXT NOT NULL,
        page INTEGER,
        x0 REAL, y0 REAL, x1 REAL, y1 REAL,
        source_start INTEGER,
        source_end INTEGER,
        PRIMARY KEY (manifest_id, block_index)
    )""",
    "CREATE INDEX blocks_by_range ON blocks(manifest_id, start, end)",
    """CREATE TABLE anchors (
        anchor_id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL REFERENCES documents(document_id) ON DELETE CASCADE,
        revision TEXT NOT NULL,
        manifest_id TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL
    )""",
    """CREATE TABLE anchor_links (
        old_anchor_id TEXT NOT NULL,
        new_anchor_id TEXT NOT NULL,
        method TEXT NOT NULL,
        authorized_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (old_anchor_id, new_anchor_id)
    )""",
)

# Version 2: what indexing writes (search text, chunks) and what extraction reports
# beside the text (pages without a text layer, warnings).
_V2: Final = (
    "ALTER TABLE representations ADD COLUMN page_count INTEGER",
    "ALTER TABLE representations ADD COLUMN pages_without_text TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE representations ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]'",
    """CREATE TABLE search_texts (
        manifest_id TEXT PRIMARY KEY REFERENCES representations(manifest_id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        alignment BLOB NOT NULL
    )""",
    """CREATE TABLE chunks (
        chunk_id TEXT PRIMARY KEY,
        manifest_id TEXT NOT NULL REFERENCES representations(manifest_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        search_start INTEGER NOT NULL,
        search_end INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        blocks TEXT NOT NULL
    )""",
    "CREATE INDEX chunks_by_manifest ON chunks(manifest_id, ordinal)",
)

# Version 3: retrieval. Lexical rows live in one FTS5 table per tenant, so that
# BM25 statistics never mix tenants; vectors sit beside the chunks, keyed by the
# content-derived chunk id and the embedder that made them.
_V3: Final = (
    "ALTER TABLE documents ADD COLUMN language TEXT",
    "ALTER TABLE representations ADD COLUMN language TEXT",
    "CREATE INDEX revisions_by_manifest ON revisions(manifest_id)",
    """CREATE TABLE lexical_tables (
        tenant TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
    )""",
    """CREATE TABLE embeddings (
        chunk_id TEXT NOT NULL,
        embedder_key TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (chunk_id, embedder_key)
    )""",
    """CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    "INSERT INTO settings(key, value) VALUES('index_generation', '0')",
)

# Version 4: answer records (question, principal, evidence snapshot, citations, trace).
_V4: Final = (
    """CREATE TABLE answers (
        answer_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        principal TEXT NOT NULL,
        created_at TEXT NOT NULL,
        json TEXT NOT NULL
    )""",
)

# Version 5: ingestion jobs, one row per run over a revision, so that a crash or an
# interrupt is visible as a job that never finished (and workers of a scaled-out
# store can claim queued jobs).
_V5: Final = (
    """CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        state TEXT NOT NULL,
        stage TEXT,
        error_code TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        FOREIGN KEY (document_id, revision)
            REFERENCES revisions(document_id, revision) ON DELETE CASCADE
    )""",
    "CREATE INDEX jobs_by_revision ON jobs(document_id, revision, created_at)",
)

# Version 6: API keys (only a SHA-256 of the secret is stored).
_V6: Final = (
    """CREATE TABLE api_keys (
        key_hash TEXT PRIMARY KEY,
        principal TEXT NOT NULL,
        tenant TEXT NOT NULL,
        groups TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    )""",
)

# Version 7: document ids are per tenant. Documents are keyed by (tenant,
# document_id), so two tenants may each have a document "manual" with their own
# revisions, manifests, anchors and jobs, and an id in use elsewhere is no
# existence oracle. Anchors are keyed by (tenant, anchor_id): an anchor id is a
# content address, and two tenants with the same bytes under the same id and
# revision label get the same one. SQLite cannot change a primary key in place,
# so each table is rebuilt (SQLite's documented procedure: create the new table,
# copy, drop the old one, rename; foreign keys are off while a migration runs and
# checked before it commits). Rows of version 6 take the tenant of their document,
# which was unique then.
_V7: Final = (
    """CREATE TABLE documents_v7 (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        current_revision TEXT,
        created_at TEXT NOT NULL,
        language TEXT,
        PRIMARY KEY (tenant, document_id)
    )""",
    """INSERT INTO documents_v7(tenant, document_id, current_revision, created_at, language)
        SELECT tenant, document_id, current_revision, created_at, language FROM documents""",
    """CREATE TABLE revisions_v7 (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        seq INTEGER NOT NULL,
        source_sha256 TEXT NOT NULL,
        media_type TEXT NOT NULL,
        filename TEXT NOT NULL,
        size INTEGER NOT NULL,
        state TEXT NOT NULL,
        failed_stage TEXT,
        error_code TEXT,
        error_message TEXT,
        manifest_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (tenant, document_id, revision),
        FOREIGN KEY (tenant, document_id)
            REFERENCES documents(tenant, document_id) ON DELETE CASCADE
    )""",
    """INSERT INTO revisions_v7(tenant, document_id, revision, seq, source_sha256, media_type,
        filename, size, state, failed_stage, error_code, error_message, manifest_id,
        created_at, updated_at)
        SELECT d.tenant, r.document_id, r.revision, r.seq, r.source_sha256, r.media_type,
            r.filename, r.size, r.state, r.failed_stage, r.error_code, r.error_message,
            r.manifest_id, r.created_at, r.updated_at
        FROM revisions r JOIN documents d ON d.document_id = r.document_id""",
    """CREATE TABLE revision_groups_v7 (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        group_name TEXT NOT NULL,
        PRIMARY KEY (tenant, document_id, revision, group_name),
        FOREIGN KEY (tenant, document_id, revision)
            REFERENCES revisions(tenant, document_id, revision) ON DELETE CASCADE
    )""",
    """INSERT INTO revision_groups_v7(tenant, document_id, revision, group_name)
        SELECT d.tenant, g.document_id, g.revision, g.group_name
        FROM revision_groups g JOIN documents d ON d.document_id = g.document_id""",
    """CREATE TABLE manifests_v7 (
        manifest_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        json TEXT NOT NULL,
        mac TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (tenant, document_id, revision)
            REFERENCES revisions(tenant, document_id, revision) ON DELETE CASCADE
    )""",
    """INSERT INTO manifests_v7(manifest_id, tenant, document_id, revision, json, mac, created_at)
        SELECT m.manifest_id, d.tenant, m.document_id, m.revision, m.json, m.mac, m.created_at
        FROM manifests m JOIN documents d ON d.document_id = m.document_id""",
    """CREATE TABLE anchors_v7 (
        tenant TEXT NOT NULL,
        anchor_id TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        manifest_id TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        PRIMARY KEY (tenant, anchor_id),
        FOREIGN KEY (tenant, document_id)
            REFERENCES documents(tenant, document_id) ON DELETE CASCADE
    )""",
    """INSERT INTO anchors_v7(tenant, anchor_id, document_id, revision, manifest_id, json,
        created_at, created_by)
        SELECT d.tenant, a.anchor_id, a.document_id, a.revision, a.manifest_id, a.json,
            a.created_at, a.created_by
        FROM anchors a JOIN documents d ON d.document_id = a.document_id""",
    """CREATE TABLE anchor_links_v7 (
        tenant TEXT NOT NULL,
        old_anchor_id TEXT NOT NULL,
        new_anchor_id TEXT NOT NULL,
        method TEXT NOT NULL,
        authorized_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tenant, old_anchor_id, new_anchor_id)
    )""",
    # A link whose anchors were deleted with their document has no tenant left to
    # take; it could never be read, and is not carried over.
    """INSERT INTO anchor_links_v7(tenant, old_anchor_id, new_anchor_id, method, authorized_by,
        created_at)
        SELECT COALESCE(o.tenant, n.tenant), l.old_anchor_id, l.new_anchor_id, l.method,
            l.authorized_by, l.created_at
        FROM anchor_links l
        LEFT JOIN anchors_v7 o ON o.anchor_id = l.old_anchor_id
        LEFT JOIN anchors_v7 n ON n.anchor_id = l.new_anchor_id
        WHERE COALESCE(o.tenant, n.tenant) IS NOT NULL""",
    """CREATE TABLE jobs_v7 (
        job_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        state TEXT NOT NULL,
        stage TEXT,
        error_code TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        FOREIGN KEY (tenant, document_id, revision)
            REFERENCES revisions(tenant, document_id, revision) ON DELETE CASCADE
    )""",
    """INSERT INTO jobs_v7(job_id, tenant, document_id, revision, state, stage, error_code,
        created_at, finished_at)
        SELECT j.job_id, d.tenant, j.document_id, j.revision, j.state, j.stage, j.error_code,
            j.created_at, j.finished_at
        FROM jobs j JOIN documents d ON d.document_id = j.document_id""",
    "DROP TABLE jobs",
    "DROP TABLE anchor_links",
    "DROP TABLE anchors",
    "DROP TABLE manifests",
    "DROP TABLE revision_groups",
    "DROP TABLE revisions",
    "DROP TABLE documents",
    "ALTER TABLE documents_v7 RENAME TO documents",
    "ALTER TABLE revisions_v7 RENAME TO revisions",
    "ALTER TABLE revision_groups_v7 RENAME TO revision_groups",
    "ALTER TABLE manifests_v7 RENAME TO manifests",
    "ALTER TABLE anchors_v7 RENAME TO anchors",
    "ALTER TABLE anchor_links_v7 RENAME TO anchor_links",
    "ALTER TABLE jobs_v7 RENAME TO jobs",
    "CREATE INDEX revisions_by_source ON revisions(tenant, document_id, source_sha256)",
    "CREATE INDEX revisions_by_manifest ON revisions(manifest_id)",
    "CREATE INDEX manifests_by_revision ON manifests(tenant, document_id, revision)",
    "CREATE INDEX jobs_by_revision ON jobs(tenant, document_id, revision, created_at)",
    # Every cache keyed by the index generation (scope languages, vector matrices)
    # starts over.
    "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key='index_generation'",
)

# Version 8: writes follow access. A key carries what it may do besides reading: the
# document id prefixes it may write (JSON list) and whether it operates its tenant.
# Keys of version 7 could upload anywhere; they become read-only keys (an upload right
# nobody chose stays off; the operator re-creates uploaders' keys with --write). Each
# revision records the principal that supplied it (NULL: supplied before version 8).
_V8: Final = (
    "ALTER TABLE api_keys ADD COLUMN write_prefixes TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE api_keys ADD COLUMN operate INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE revisions ADD COLUMN supplied_by TEXT",
)

# Version 9: ingestion jobs carry a lease (the process id and host that run them, and
# a heartbeat), so that a run that died is told apart from one that is still working.
_V9: Final = (
    "ALTER TABLE jobs ADD COLUMN pid INTEGER",
    "ALTER TABLE jobs ADD COLUMN host TEXT",
    "ALTER TABLE jobs ADD COLUMN heartbeat_at TEXT",
)

# Version 10: lexical rows are partitioned by tenant and exact reader-group set (one
# FTS5 table per partition, named in lexical_partitions), so that a reader's BM25
# statistics and query cost come only from partitions it may read. lexical_rows
# says where each chunk's row is (its rowid is the chunk's and the FTS5 row's);
# lexical_partition_groups finds a reader's partitions by its groups.
# The rows of the old per-tenant tables are moved into partitions by
# ragox.store.sqlite._index.upgrade_lexical in the same transaction (table names are
# data, which plain SQL cannot follow).
_V10: Final = (
    """CREATE TABLE lexical_partitions (
        partition_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        groups TEXT NOT NULL,
        name TEXT NOT NULL UNIQUE,
        UNIQUE (tenant, groups)
    )""",
    """CREATE TABLE lexical_rows (
        rowid INTEGER PRIMARY KEY,
        manifest_id TEXT NOT NULL,
        partition_id INTEGER NOT NULL REFERENCES lexical_partitions(partition_id)
    )""",
    """CREATE TABLE lexical_partition_groups (
        tenant TEXT NOT NULL,
        group_name TEXT NOT NULL,
        partition_id INTEGER NOT NULL REFERENCES lexical_partitions(partition_id),
        PRIMARY KEY (tenant, group_name, partition_id)
    )""",
    "CREATE INDEX lexical_rows_by_manifest ON lexical_rows(manifest_id, partition_id)",
    "CREATE INDEX lexical_rows_by_partition ON lexical_rows(partition_id)",
)

# Version 11: retention. Traces leave the answer record for a table of their own (they
# are the operator's diagnostics, kept for their own period); the documents each answer
# drew on are indexed, so that deleting a document finds the answers holding its text;
# answers and traces get an age index for purging; and an erasure counter tells every
# process to drop what it remembers of deleted text.
_V11: Final = (
    """CREATE TABLE answer_traces (
        answer_id TEXT PRIMARY KEY REFERENCES answers(answer_id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        json TEXT NOT NULL
    )""",
    "CREATE INDEX answer_traces_by_age ON answer_traces(created_at)",
    """CREATE TABLE answer_documents (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        answer_id TEXT NOT NULL REFERENCES answers(answer_id) ON DELETE CASCADE,
        PRIMARY KEY (tenant, document_id, answer_id)
    )""",
    "CREATE INDEX answer_documents_by_answer ON answer_documents(answer_id)",
    "CREATE INDEX answers_by_age ON answers(created_at)",
    """INSERT INTO answer_traces(answer_id, created_at, json)
        SELECT answer_id, created_at, json_extract(json, '$.trace') FROM answers
        WHERE json_type(json, '$.trace') = 'object'""",
    """INSERT OR IGNORE INTO answer_documents(tenant, document_id, answer_id)
        SELECT a.tenant, json_extract(e.value, '$.document_id'), a.answer_id
        FROM answers a, json_each(a.json, '$.evidence') e
        WHERE json_extract(e.value, '$.document_id') IS NOT NULL""",
    """INSERT OR IGNORE INTO answer_documents(tenant, document_id, answer_id)
        SELECT a.tenant, json_extract(c.value, '$.document_id'), a.answer_id
        FROM answers a, json_each(a.json, '$.trace.candidates') c
        WHERE json_extract(c.value, '$.document_id') IS NOT NULL""",
    "UPDATE answers SET json = json_remove(json, '$.trace')",
    "INSERT OR IGNORE INTO settings(key, value) VALUES('erasure_generation', '0')",
)

#: Schema 16: every `ragox check` run is recorded (seed 003: a check log names the parser
#: version, document and chunk), for the operator only; a deleted document takes its
#: check runs with it.
_V16: Final = (
    """CREATE TABLE check_runs (
        run_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        manifest_id TEXT NOT NULL,
        parser TEXT NOT NULL,
        created_at TEXT NOT NULL,
        chunks INTEGER NOT NULL,
        fragments INTEGER NOT NULL,
        mismatches TEXT NOT NULL,
        FOREIGN KEY (tenant, document_id)
            REFERENCES documents(tenant, document_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX check_runs_by_document ON check_runs(tenant, document_id, created_at)",
)

# Version 17: versioned processing. The search text records the cleaner that made it,
# the splitter and chunker that cut its chunks and the analyzer of the lexical rows
# made from it; each chunk the chunker and the sentence splitter that cut it. Rows
# written before stay NULL: made by unknown versions, they show as stale until
# ``ragox reprocess`` rebuilds them.
_V17: Final = (
    "ALTER TABLE search_texts ADD COLUMN cleaner TEXT",
    "ALTER TABLE search_texts ADD COLUMN splitter TEXT",
    "ALTER TABLE search_texts ADD COLUMN chunker TEXT",
    "ALTER TABLE search_texts ADD COLUMN analyzer TEXT",
    "ALTER TABLE chunks ADD COLUMN chunker TEXT",
    "ALTER TABLE chunks ADD COLUMN splitter TEXT",
    # Each rebuild's migration report (ids, outcomes and counts; never document text),
    # so that the anchors left for review can be listed after the command has ended.
    """CREATE TABLE reprocess_reports (
        report_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        created_at TEXT NOT NULL,
        json TEXT NOT NULL
    )""",
    "CREATE INDEX reprocess_reports_by_tenant ON reprocess_reports(tenant, created_at)",
    # A rebuild reads the anchors of one representation.
    "CREATE INDEX anchors_by_manifest ON anchors(tenant, manifest_id)",
)

# Version 20: a job queue. An upload in queue mode (`ragox serve --queue`) stores the
# original and a QUEUED job; `ragox worker` processes claim jobs with a lease (worker
# id, lease length, lease end) that they renew, and a RUNNING job whose lease ran out
# is reclaimed by another worker as a new run (attempts counts the claims). Runs of
# `ragox ingest` keep no lease end and are never reclaimed.
_V20: Final = (
    "ALTER TABLE jobs ADD COLUMN worker TEXT",
    "ALTER TABLE jobs ADD COLUMN lease_seconds REAL",
    "ALTER TABLE jobs ADD COLUMN lease_until TEXT",
    "ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX jobs_by_state ON jobs(state, created_at)",
)
# Version 22: OCR. A block whose text a PDF page's OCR recognized says so (its
# boxes are the engine's estimates, not glyphs); blocks written before are not.
_V22: Final = ("ALTER TABLE blocks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0",)
#: Schema 23: a table-cell block records its place in its table (table, row, column,
#: spans, header flag, the block ids of its header cells) as JSON; other blocks and
#: blocks written before stay NULL.
_V23: Final = ("ALTER TABLE blocks ADD COLUMN cell TEXT",)
#: Schema 26: a queued job carries the upload's OCR mode (``auto``/``off``/``force``),
#: which the worker that claims it runs with; jobs written before (NULL) run ``auto``.
_V26: Final = ("ALTER TABLE jobs ADD COLUMN ocr TEXT",)
#: Schema 27: each lexical partition carries the generation of its last change, drawn
#: from one counter that only grows (so a partition dropped and made again never
#: shows an earlier value): a reader's cached match counts are keyed by its own
#: partitions' generations, so a write to a partition it cannot read changes
#: nothing it sees, not even whether its cache is warm (issue 15).
_V27: Final = (
    "ALTER TABLE lexical_partitions ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
    "INSERT OR IGNORE INTO settings(key, value) VALUES('lexical_generation', '0')",
)

#: Schema 28: what a query reads per document without reading the document (issue 15).
#: - ``revision_groups_by_group``: a reader's revisions found from its groups, so that the
#:   permission query reads the rows of the groups it holds, not every revision of
#:   its tenant (and its time follows what the reader may read).
#: - ``representations_facts``, ``search_texts_versions``: the small columns of a
#:   representation (language, extraction notes) and of its search text (processing
#:   versions), whole in an index. The columns were added after the text (ALTER TABLE
#:   appends), so reading them from the table walks the text's overflow pages: the
#:   languages of a scope and ``ragox status`` read every document's text to find them.
#: - ``chunk_counts``: each representation's number of chunks, kept by triggers in the
#:   statement that writes or deletes a chunk (a cascade included), so that status
#:   reads one row per representation instead of counting a million index entries.
#: Each statement may run again over its own result (a test that sets an older version
#: number on a current database): it then recounts.
_V28: Final = (
    "CREATE INDEX IF NOT EXISTS revision_groups_by_group "
    "ON revision_groups(tenant, group_name, document_id, revision)",
    "CREATE INDEX IF NOT EXISTS representations_facts ON representations("
    "manifest_id, language, page_count, pages_without_text, warnings)",
    "CREATE INDEX IF NOT EXISTS search_texts_versions ON search_texts("
    "manifest_id, cleaner, splitter, chunker, analyzer)",
    """CREATE TABLE IF NOT EXISTS chunk_counts (
        manifest_id TEXT PRIMARY KEY,
        chunks INTEGER NOT NULL
    )""",
    """INSERT OR REPLACE INTO chunk_counts(manifest_id, chunks)
        SELECT manifest_id, COUNT(*) FROM chunks GROUP BY manifest_id""",
    """CREATE TRIGGER IF NOT EXISTS chunk_counts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunk_counts(manifest_id, chunks) VALUES (NEW.manifest_id, 1)
            ON CONFLICT(manifest_id) DO UPDATE SET chunks = chunks + 1;
    END""",
    """CREATE TRIGGER IF NOT EXISTS chunk_counts_delete AFTER DELETE ON chunks BEGIN
        UPDATE chunk_counts SET chunks = chunks - 1 WHERE manifest_id = OLD.manifest_id;
        DELETE FROM chunk_counts WHERE manifest_id = OLD.manifest_id AND chunks = 0;
    END""",
)

#: Schema 30: what ``ragox status``'s summary counts of each revision, one narrow row
#: per revision (issue 15). Read through joins, the manifest's JSON, its search text's
#: versions, its notes and its chunk count cost a quarter of a second for the 14,405
#: revisions of a million-chunk home: five index searches by a 64-character key per
#: revision. Triggers keep each row in the statement that writes the revision, its
#: manifest, its representation or its search text (a cascade included); the row is
#: made again from those tables each time, so the order of the writes does not
#: matter (the representation's and search text's small columns are read from their
#: covering indexes of schema 28, not through their text). Idempotent: a database
#: whose version was set back rebuilds every row.
_FACTS_COLUMNS: Final = (
    "tenant, document_id, revision, state, media_type, manifest_id, parser, "
    "parser_config_sha256, profile, has_versions, cleaner, splitter, chunker, analyzer, "
    "pages_without_text, updated_at"
)
_FACTS_SELECT: Final = """SELECT r.tenant, r.document_id, r.revision, r.state, r.media_type,
            r.manifest_id, json_extract(m.json, '$.parser'),
            json_extract(m.json, '$.parser_config_sha256'), json_extract(m.json, '$.profile'),
            st.manifest_id IS NOT NULL, st.cleaner,
            st.splitter, st.chunker, st.analyzer,
            COALESCE(rep.pages_without_text <> '[]', 0), r.updated_at
        FROM revisions r LEFT JOIN manifests m ON m.manifest_id = r.manifest_id
        LEFT JOIN representations rep INDEXED BY representations_facts
            ON rep.manifest_id = r.manifest_id
        LEFT JOIN search_texts st INDEXED BY search_texts_versions
            ON st.manifest_id = r.manifest_id"""


def _facts_trigger(name: str, event: str, table: str, where: str, before: str = "") -> str:
    """A trigger that makes the rows of the revisions ``where`` selects (``r``) again.
    It deletes them first: a trigger's own ``OR REPLACE`` gives way to the outer
    statement's conflict handling (the upsert of a search text failed on the
    existing row)."""
    return (
        f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON {table} BEGIN {before}"
        "DELETE FROM revision_facts WHERE (tenant, document_id, revision) IN "
        f"(SELECT r.tenant, r.document_id, r.revision FROM revisions r WHERE {where}); "
        f"INSERT INTO revision_facts({_FACTS_COLUMNS}) {_FACTS_SELECT} "
        f"WHERE {where}; END"
    )


_SAME_REVISION: Final = (
    "r.tenant = NEW.tenant AND r.document_id = NEW.document_id AND r.revision = NEW.revision"
)
_V30: Final = (
    """CREATE TABLE IF NOT EXISTS revision_facts (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        state TEXT NOT NULL,
        media_type TEXT NOT NULL,
        manifest_id TEXT,
        parser TEXT,
        parser_config_sha256 TEXT,
        profile TEXT,
        has_versions INTEGER NOT NULL,
        cleaner TEXT,
        splitter TEXT,
        chunker TEXT,
        analyzer TEXT,
        pages_without_text INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (tenant, document_id, revision)
    ) WITHOUT ROWID""",
    "DELETE FROM revision_facts",
    f"INSERT INTO revision_facts({_FACTS_COLUMNS}) {_FACTS_SELECT}",
    _facts_trigger("revision_facts_revision_insert", "INSERT", "revisions", _SAME_REVISION),
    _facts_trigger(
        "revision_facts_revision_update",
        "UPDATE",
        "revisions",
        _SAME_REVISION,
        before="DELETE FROM revision_facts WHERE tenant = OLD.tenant "
        "AND document_id = OLD.document_id AND revision = OLD.revision; ",
    ),
    """CREATE TRIGGER IF NOT EXISTS revision_facts_revision_delete AFTER DELETE ON revisions
    BEGIN
        DELETE FROM revision_facts WHERE tenant = OLD.tenant
            AND document_id = OLD.document_id AND revision = OLD.revision;
    END""",
    *(
        _facts_trigger(
            f"revision_facts_{table}_{event.split()[0].lower()}",
            event,
            table,
            f"r.manifest_id = {'OLD' if event == 'DELETE' else 'NEW'}.manifest_id",
        )
        for table in ("manifests", "representations", "search_texts")
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
)

#: Schema 31: each representation's number of chunks that have a vector, per embedder
#: (issue 15), so that ``ragox status`` in a home with vectors reads a row per
#: representation instead of looking up every chunk's vector: its chunks without the
#: index's vector are its kept chunk count less this one (a representation without a
#: row for an embedder, a new embedder's included, has none). Triggers keep it in the
#: statement that writes or deletes a vector or a chunk (a cascade included): a
#: chunk's id is derived from its representation and span, so a chunk written again
#: (reprocess) finds the vector it had, and a chunk dropped with its representation
#: (retention) leaves its vector behind, counted nowhere. A vector's upsert updates
#: only the vector: its count does not change. Idempotent: a database whose version
#: was set back recounts every row.
_VECTORS_OF_CHUNK: Final = """INSERT INTO vector_counts(manifest_id, embedder_key, vectors)
            SELECT manifest_id, {key}, 1 FROM chunks WHERE chunk_id = {chunk}
            ON CONFLICT(manifest_id, embedder_key) DO UPDATE SET vectors = vectors + 1;"""
_VECTORS_OF_EMBEDDINGS: Final = """INSERT INTO vector_counts(manifest_id, embedder_key, vectors)
            SELECT {manifest}, embedder_key, 1 FROM embeddings WHERE chunk_id = {chunk}
            ON CONFLICT(manifest_id, embedder_key) DO UPDATE SET vectors = vectors + 1;"""
_LESS_OF_CHUNK: Final = """UPDATE vector_counts SET vectors = vectors - 1
            WHERE embedder_key = {key}
            AND manifest_id = (SELECT manifest_id FROM chunks WHERE chunk_id = {chunk});
        DELETE FROM vector_counts WHERE vectors = 0 AND embedder_key = {key}
            AND manifest_id = (SELECT manifest_id FROM chunks WHERE chunk_id = {chunk});"""
_LESS_OF_EMBEDDINGS: Final = """UPDATE vector_counts SET vectors = vectors - 1
            WHERE manifest_id = {manifest} AND embedder_key IN
            (SELECT embedder_key FROM embeddings WHERE chunk_id = {chunk});
        DELETE FROM vector_counts WHERE vectors = 0 AND manifest_id = {manifest};"""
_V31: Final = (
    """CREATE TABLE IF NOT EXISTS vector_counts (
        manifest_id TEXT NOT NULL,
        embedder_key TEXT NOT NULL,
        vectors INTEGER NOT NULL,
        PRIMARY KEY (manifest_id, embedder_key)
    ) WITHOUT ROWID""",
    "DELETE FROM vector_counts",
    """INSERT INTO vector_counts(manifest_id, embedder_key, vectors)
        SELECT c.manifest_id, e.embedder_key, COUNT(*) FROM chunks c
        JOIN embeddings e ON e.chunk_id = c.chunk_id GROUP BY c.manifest_id, e.embedder_key""",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_embedding_insert AFTER INSERT ON embeddings "
    f"BEGIN {_VECTORS_OF_CHUNK.format(key='NEW.embedder_key', chunk='NEW.chunk_id')} END",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_embedding_delete AFTER DELETE ON embeddings "
    f"BEGIN {_LESS_OF_CHUNK.format(key='OLD.embedder_key', chunk='OLD.chunk_id')} END",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_embedding_update "
    "AFTER UPDATE OF chunk_id, embedder_key ON embeddings "
    f"BEGIN {_LESS_OF_CHUNK.format(key='OLD.embedder_key', chunk='OLD.chunk_id')} "
    f"{_VECTORS_OF_CHUNK.format(key='NEW.embedder_key', chunk='NEW.chunk_id')} END",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_chunk_insert AFTER INSERT ON chunks BEGIN "
    f"{_VECTORS_OF_EMBEDDINGS.format(manifest='NEW.manifest_id', chunk='NEW.chunk_id')} END",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_chunk_delete AFTER DELETE ON chunks BEGIN "
    f"{_LESS_OF_EMBEDDINGS.format(manifest='OLD.manifest_id', chunk='OLD.chunk_id')} END",
    "CREATE TRIGGER IF NOT EXISTS vector_counts_chunk_update "
    "AFTER UPDATE OF chunk_id, manifest_id ON chunks BEGIN "
    f"{_LESS_OF_EMBEDDINGS.format(manifest='OLD.manifest_id', chunk='OLD.chunk_id')} "
    f"{_VECTORS_OF_EMBEDDINGS.format(manifest='NEW.manifest_id', chunk='NEW.chunk_id')} END",
)

#: A scope's languages under its partitions' generations (``SqliteIndex.languages``):
#: kept between processes, keyed by a digest of the scope.
_V32: Final = (
    """CREATE TABLE IF NOT EXISTS scope_languages (
        scope_key TEXT PRIMARY KEY,
        generations TEXT NOT NULL,
        languages TEXT NOT NULL
    )""",
)

#: ``(version, statements)`` in order; never edit a released entry, append one.
MIGRATIONS: Final[tuple[tuple[int, tuple[str, ...]], ...]] = (
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
    (9, _V9),
    (10, _V10),
    (11, _V11),
    (16, _V16),
    (17, _V17),
    (20, _V20),
    (22, _V22),
    (23, _V23),
    (26, _V26),
    (27, _V27),
    (28, _V28),
    (30, _V30),
    (31, _V31),
    (32, _V32),
)

SCHEMA_VERSION: Final = MIGRATIONS[-1][0]
