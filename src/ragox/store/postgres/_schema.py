"""PostgreSQL schema versions with forward migrations (numbered apart from SQLite's).

Every table's key starts with the tenant where a row belongs to one (documents,
revisions, anchors, jobs, answers' links), so that a Citus deployment can
distribute by it. Lexical rows carry their partition (tenant and exact reader-group
set, as in the SQLite backend) and a postings table holds their pre-analyzed terms
with frequencies; BM25 is computed in SQL from those and per-partition counters.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ANN_MAX_DIMENSIONS", "ANN_SQL", "MIGRATIONS", "SCHEMA_VERSION"]

#: pgvector's HNSW index holds vectors of at most this many dimensions.
ANN_MAX_DIMENSIONS: Final = 2000


_V1: Final = (
    "CREATE EXTENSION IF NOT EXISTS vector",
    """CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    "INSERT INTO settings(key, value) VALUES('index_generation', '0')",
    "INSERT INTO settings(key, value) VALUES('erasure_generation', '0')",
    """CREATE TABLE documents (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        current_revision TEXT,
        created_at TEXT NOT NULL,
        language TEXT,
        PRIMARY KEY (tenant, document_id)
    )""",
    """CREATE TABLE revisions (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        seq BIGINT NOT NULL,
        source_sha256 TEXT NOT NULL,
        media_type TEXT NOT NULL,
        filename TEXT NOT NULL,
        size BIGINT NOT NULL,
        state TEXT NOT NULL,
        failed_stage TEXT,
        error_code TEXT,
        error_message TEXT,
        manifest_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        supplied_by TEXT,
        PRIMARY KEY (tenant, document_id, revision),
        FOREIGN KEY (tenant, document_id)
            REFERENCES documents(tenant, document_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX revisions_by_source ON revisions(tenant, document_id, source_sha256)",
    "CREATE INDEX revisions_by_manifest ON revisions(manifest_id)",
    "CREATE INDEX revisions_by_sha ON revisions(source_sha256)",
    """CREATE TABLE revision_groups (
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        group_name TEXT NOT NULL,
        PRIMARY KEY (tenant, document_id, revision, group_name),
        FOREIGN KEY (tenant, document_id, revision)
            REFERENCES revisions(tenant, document_id, revision) ON DELETE CASCADE
    )""",
    """CREATE TABLE manifests (
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
    "CREATE INDEX manifests_by_revision ON manifests(tenant, document_id, revision)",
    """CREATE TABLE representations (
        manifest_id TEXT PRIMARY KEY REFERENCES manifests(manifest_id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        alignment BYTEA,
        char_boxes BYTEA,
        page_count INTEGER,
        pages_without_text TEXT NOT NULL DEFAULT '[]',
        warnings TEXT NOT NULL DEFAULT '[]',
        language TEXT
    )""",
    """CREATE TABLE blocks (
        manifest_id TEXT NOT NULL REFERENCES representations(manifest_id) ON DELETE CASCADE,
        block_index INTEGER NOT NULL,
        kind TEXT NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        locator TEXT NOT NULL,
        page INTEGER,
        x0 DOUBLE PRECISION, y0 DOUBLE PRECISION, x1 DOUBLE PRECISION, y1 DOUBLE PRECISION,
        source_start INTEGER,
        source_end INTEGER,
        PRIMARY KEY (manifest_id, block_index)
    )""",
    'CREATE INDEX blocks_by_range ON blocks(manifest_id, start, "end")',
    """CREATE TABLE search_texts (
        manifest_id TEXT PRIMARY KEY REFERENCES representations(manifest_id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        alignment BYTEA NOT NULL,
        cleaner TEXT,
        splitter TEXT,
        chunker TEXT,
        analyzer TEXT
    )""",
    # rowid: a number per chunk row (as SQLite's), the key of its lexical row and
    # postings, and the tie-break of equal BM25 scores in both backends.
    """CREATE TABLE chunks (
        chunk_id TEXT PRIMARY KEY,
        rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
        manifest_id TEXT NOT NULL REFERENCES representations(manifest_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        search_start INTEGER NOT NULL,
        search_end INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        blocks TEXT NOT NULL,
        chunker TEXT,
        splitter TEXT
    )""",
    "CREATE INDEX chunks_by_manifest ON chunks(manifest_id, ordinal)",
    """CREATE TABLE embeddings (
        chunk_id TEXT NOT NULL,
        embedder_key TEXT NOT NULL,
        vector vector NOT NULL,
        PRIMARY KEY (chunk_id, embedder_key)
    )""",
    """CREATE TABLE anchors (
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
    "CREATE INDEX anchors_by_manifest ON anchors(tenant, manifest_id)",
    """CREATE TABLE anchor_links (
        tenant TEXT NOT NULL,
        old_anchor_id TEXT NOT NULL,
        new_anchor_id TEXT NOT NULL,
        method TEXT NOT NULL,
        authorized_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tenant, old_anchor_id, new_anchor_id)
    )""",
    """CREATE TABLE answers (
        answer_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        principal TEXT NOT NULL,
        created_at TEXT NOT NULL,
        json TEXT NOT NULL
    )""",
    "CREATE INDEX answers_by_age ON answers(created_at)",
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
    """CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        state TEXT NOT NULL,
        stage TEXT,
        error_code TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        pid INTEGER,
        host TEXT,
        heartbeat_at TEXT,
        FOREIGN KEY (tenant, document_id, revision)
            REFERENCES revisions(tenant, document_id, revision) ON DELETE CASCADE
    )""",
    "CREATE INDEX jobs_by_revision ON jobs(tenant, document_id, revision, created_at)",
    """CREATE TABLE api_keys (
        key_hash TEXT PRIMARY KEY,
        principal TEXT NOT NULL,
        tenant TEXT NOT NULL,
        groups TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        write_prefixes TEXT NOT NULL DEFAULT '[]',
        operate BOOLEAN NOT NULL DEFAULT FALSE
    )""",
    "CREATE INDEX api_keys_by_tenant ON api_keys(tenant, key_hash)",
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
    """CREATE TABLE reprocess_reports (
        report_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        created_at TEXT NOT NULL,
        json TEXT NOT NULL
    )""",
    "CREATE INDEX reprocess_reports_by_tenant ON reprocess_reports(tenant, created_at)",
    # Originals, content-addressed, so that every worker and replica reads them.
    """CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        data BYTEA NOT NULL
    )""",
    # Lexical partitions: one per tenant and exact reader-group set, with the row and
    # token counts BM25 needs (kept in the transactions that add or remove rows).
    """CREATE TABLE lexical_partitions (
        partition_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant TEXT NOT NULL,
        groups TEXT NOT NULL,
        rows BIGINT NOT NULL DEFAULT 0,
        tokens BIGINT NOT NULL DEFAULT 0,
        UNIQUE (tenant, groups)
    )""",
    """CREATE TABLE lexical_partition_groups (
        tenant TEXT NOT NULL,
        group_name TEXT NOT NULL,
        partition_id BIGINT NOT NULL REFERENCES lexical_partitions(partition_id)
            ON DELETE CASCADE,
        PRIMARY KEY (tenant, group_name, partition_id)
    )""",
    # One row per chunk of a current revision: its partition and length in terms.
    """CREATE TABLE lexical_rows (
        rowid BIGINT PRIMARY KEY,
        manifest_id TEXT NOT NULL,
        partition_id BIGINT NOT NULL REFERENCES lexical_partitions(partition_id),
        length INTEGER NOT NULL
    )""",
    "CREATE INDEX lexical_rows_by_manifest ON lexical_rows(manifest_id, partition_id)",
    "CREATE INDEX lexical_rows_by_partition ON lexical_rows(partition_id)",
    # Postings: (partition, term) → rows with the term's frequency; the key is the
    # lookup path of a query (a few terms in the reader's partitions).
    """CREATE TABLE lexical_postings (
        partition_id BIGINT NOT NULL,
        term TEXT NOT NULL,
        rowid BIGINT NOT NULL,
        tf INTEGER NOT NULL,
        PRIMARY KEY (partition_id, term, rowid)
    )""",
    "CREATE INDEX lexical_postings_by_row ON lexical_postings(rowid)",
)

#: ``(version, statements)`` in order; never edit a released entry, append one.
# Version 2: what SQLite's schemas 20, 22 and 23 added: the job queue (worker,
# lease, attempts), OCR blocks and table cells.
_V2: Final = (
    "ALTER TABLE jobs ADD COLUMN worker TEXT",
    "ALTER TABLE jobs ADD COLUMN lease_seconds DOUBLE PRECISION",
    "ALTER TABLE jobs ADD COLUMN lease_until TEXT",
    "ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX jobs_by_state ON jobs(state, created_at)",
    "ALTER TABLE blocks ADD COLUMN ocr BOOLEAN NOT NULL DEFAULT FALSE",
    "ALTER TABLE blocks ADD COLUMN cell TEXT",
)

#: The HNSW index of the recorded embedder's vectors, created when it is missing
#: (schema migration 4 and every embedder swap run it): partial on that embedder's
#: rows, over their vectors cast to its dimension, for inner-product order.
ANN_SQL: Final = f"""
DO $ann$
DECLARE
    recorded TEXT;
    dims INTEGER;
BEGIN
    SELECT s.value INTO recorded FROM settings s WHERE s.key = 'embedder_key';
    IF recorded IS NULL THEN
        RETURN;
    END IF;
    SELECT vector_dims(e.vector) INTO dims FROM embeddings e
        WHERE e.embedder_key = recorded LIMIT 1;
    IF dims IS NULL OR dims > {ANN_MAX_DIMENSIONS} THEN
        RETURN;
    END IF;
    EXECUTE format(
        'CREATE INDEX IF NOT EXISTS %I ON embeddings USING hnsw '
        '((vector::vector(%s)) vector_ip_ops) WHERE embedder_key = %L',
        'embeddings_hnsw_' || left(md5(recorded), 16), dims, recorded);
END
$ann$
"""

# Version 4: the HNSW index of the recorded embedder's vectors (a home with vectors
# gets it here; later embedders get theirs when they are swapped in).
_V4: Final = (ANN_SQL,)

# Version 5: what SQLite's schema 26 added: a queued job's OCR mode (NULL: auto).
_V5: Final = ("ALTER TABLE jobs ADD COLUMN ocr TEXT",)

# Version 6: what SQLite's schema 28 added (issue 15): a reader's revisions found from
# its groups, and each representation's chunk count kept as chunks are written and
# deleted (statement triggers over the statement's rows: one row per representation
# and statement, a cascade included), so that status reads a row instead of counting
# a million index entries. The small columns need no index of their own here: the
# text beside them is TOASTed out of the row. Each statement may run again over its
# own result (a test that sets an older version number): it then recounts.
_V6: Final = (
    "CREATE INDEX IF NOT EXISTS revision_groups_by_group "
    "ON revision_groups(tenant, group_name, document_id, revision)",
    """CREATE TABLE IF NOT EXISTS chunk_counts (
        manifest_id TEXT PRIMARY KEY,
        chunks BIGINT NOT NULL
    )""",
    """INSERT INTO chunk_counts(manifest_id, chunks)
        SELECT manifest_id, COUNT(*) FROM chunks GROUP BY manifest_id
        ON CONFLICT (manifest_id) DO UPDATE SET chunks = excluded.chunks""",
    """CREATE OR REPLACE FUNCTION chunk_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO chunk_counts(manifest_id, chunks)
            SELECT manifest_id, COUNT(*) FROM added GROUP BY manifest_id
            ON CONFLICT (manifest_id) DO UPDATE SET chunks = chunk_counts.chunks + excluded.chunks;
        RETURN NULL;
    END $$""",
    """CREATE OR REPLACE FUNCTION chunk_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE chunk_counts c SET chunks = c.chunks - gone.n
            FROM (SELECT manifest_id, COUNT(*) AS n FROM removed GROUP BY manifest_id) gone
            WHERE c.manifest_id = gone.manifest_id;
        DELETE FROM chunk_counts c WHERE c.chunks <= 0
            AND c.manifest_id IN (SELECT manifest_id FROM removed);
        RETURN NULL;
    END $$""",
    "DROP TRIGGER IF EXISTS chunk_counts_insert ON chunks",
    "DROP TRIGGER IF EXISTS chunk_counts_delete ON chunks",
    """CREATE TRIGGER chunk_counts_insert AFTER INSERT ON chunks
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION chunk_counts_add()""",
    """CREATE TRIGGER chunk_counts_delete AFTER DELETE ON chunks
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
        EXECUTE FUNCTION chunk_counts_remove()""",
)

# Version 7: the generation of each lexical partition (SQLite's schema 27 keeps it
# in its partitions' table): a number that every write changing what a reader of
# the partition could find raises, in the writer's transaction. A searcher keys
# its caches of a reader's scope by its own partitions' generations, so a write in
# groups the reader cannot read changes nothing the reader could time. A table of
# its own, not a column of ``lexical_partitions``: a transaction raises it as its
# last step, for its partitions in id order, so writes that hold a partition's
# counters (indexing) and writes that do not (vectors) never wait for each other in
# opposite orders. A partition without a row is at generation 0; partition ids are
# never reused (an identity), so a pruned partition's row is only swept. Idempotent:
# a database whose version was set back (a test of an earlier migration) runs it
# again.
_V7: Final = (
    """CREATE TABLE IF NOT EXISTS lexical_generations (
        partition_id BIGINT PRIMARY KEY,
        generation BIGINT NOT NULL
    )""",
)

# Version 8: what SQLite's schema 31 added (issue 15): each representation's number of
# chunks that have a vector, per embedder, kept by statement triggers as vectors and
# chunks are written and deleted (a cascade included), so that status subtracts it
# from the kept chunk count instead of looking up every chunk's vector. A chunk's id
# is derived from its representation and span: a chunk written again (reprocess)
# finds the vector it had, and one dropped with its representation (retention)
# leaves its vector counted nowhere. A vector's upsert that updates only the vector
# changes no count: the update triggers are of rows whose ids change. Chunks and
# vectors are written a row per statement (``executemany``), so each trigger's
# statement is planned once per session and kept (the plan is made again when
# ANALYZE changes the tables' statistics): run through EXECUTE, planned at every
# row, ingestion cost the server half as much again. Idempotent: a database whose
# version was set back recounts every row.
_COUNT_VECTORS: Final = """CREATE OR REPLACE FUNCTION {name}() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        {sql};{then}
        RETURN NULL;
    END $$"""
#: after a removal: the rows of the representations it touched that fell to zero
_SWEEP: Final = (
    "\n        DELETE FROM vector_counts WHERE vectors <= 0 "
    "AND manifest_id IN (SELECT c.manifest_id FROM {rows});"
)
_ADD_VECTORS: Final = (
    "INSERT INTO vector_counts(manifest_id, embedder_key, vectors) "
    "SELECT c.manifest_id, e.embedder_key, COUNT(*) FROM {rows} "
    "GROUP BY c.manifest_id, e.embedder_key "
    "ON CONFLICT (manifest_id, embedder_key) "
    "DO UPDATE SET vectors = vector_counts.vectors + excluded.vectors"
)
_LESS_VECTORS: Final = (
    "UPDATE vector_counts v SET vectors = v.vectors - gone.n FROM "
    "(SELECT c.manifest_id, e.embedder_key, COUNT(*) AS n FROM {rows} "
    "GROUP BY c.manifest_id, e.embedder_key) gone "
    "WHERE v.manifest_id = gone.manifest_id AND v.embedder_key = gone.embedder_key"
)
_WITH_CHUNKS: Final = "{table} e JOIN chunks c ON c.chunk_id = e.chunk_id"
_WITH_VECTORS: Final = "{table} c JOIN embeddings e ON e.chunk_id = c.chunk_id"
_V8: Final = (
    """CREATE TABLE IF NOT EXISTS vector_counts (
        manifest_id TEXT NOT NULL,
        embedder_key TEXT NOT NULL,
        vectors BIGINT NOT NULL,
        PRIMARY KEY (manifest_id, embedder_key)
    )""",
    "DELETE FROM vector_counts",
    _ADD_VECTORS.format(rows=_WITH_CHUNKS.format(table="embeddings")),
    _COUNT_VECTORS.format(
        name="vector_counts_vectors_added",
        sql=_ADD_VECTORS.format(rows=_WITH_CHUNKS.format(table="added")),
        then="",
    ),
    _COUNT_VECTORS.format(
        name="vector_counts_vectors_removed",
        sql=_LESS_VECTORS.format(rows=_WITH_CHUNKS.format(table="removed")),
        then=_SWEEP.format(rows=_WITH_CHUNKS.format(table="removed")),
    ),
    _COUNT_VECTORS.format(
        name="vector_counts_chunks_added",
        sql=_ADD_VECTORS.format(rows=_WITH_VECTORS.format(table="added")),
        then="",
    ),
    _COUNT_VECTORS.format(
        name="vector_counts_chunks_removed",
        sql=_LESS_VECTORS.format(rows=_WITH_VECTORS.format(table="removed")),
        then=_SWEEP.format(rows=_WITH_VECTORS.format(table="removed")),
    ),
    # ids changed in place (nothing does today): the old rows' counts go, the new come
    """CREATE OR REPLACE FUNCTION vector_counts_moved() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_TABLE_NAME = 'embeddings' THEN
            UPDATE vector_counts v SET vectors = v.vectors - 1 FROM chunks c
                WHERE c.chunk_id = OLD.chunk_id AND v.manifest_id = c.manifest_id
                AND v.embedder_key = OLD.embedder_key;
            INSERT INTO vector_counts(manifest_id, embedder_key, vectors)
                SELECT c.manifest_id, NEW.embedder_key, 1 FROM chunks c
                WHERE c.chunk_id = NEW.chunk_id
                ON CONFLICT (manifest_id, embedder_key)
                DO UPDATE SET vectors = vector_counts.vectors + 1;
        ELSE
            UPDATE vector_counts v SET vectors = v.vectors - 1 FROM embeddings e
                WHERE e.chunk_id = OLD.chunk_id AND v.manifest_id = OLD.manifest_id
                AND v.embedder_key = e.embedder_key;
            INSERT INTO vector_counts(manifest_id, embedder_key, vectors)
                SELECT NEW.manifest_id, e.embedder_key, 1 FROM embeddings e
                WHERE e.chunk_id = NEW.chunk_id
                ON CONFLICT (manifest_id, embedder_key)
                DO UPDATE SET vectors = vector_counts.vectors + 1;
        END IF;
        DELETE FROM vector_counts WHERE vectors <= 0;
        RETURN NULL;
    END $$""",
    *(
        f"DROP TRIGGER IF EXISTS vector_counts_{table}_{event} ON {table}"
        for table in ("embeddings", "chunks")
        for event in ("insert", "delete", "update")
    ),
    """CREATE TRIGGER vector_counts_embeddings_insert AFTER INSERT ON embeddings
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION vector_counts_vectors_added()""",
    """CREATE TRIGGER vector_counts_embeddings_delete AFTER DELETE ON embeddings
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
        EXECUTE FUNCTION vector_counts_vectors_removed()""",
    """CREATE TRIGGER vector_counts_embeddings_update
        AFTER UPDATE OF chunk_id, embedder_key ON embeddings FOR EACH ROW
        WHEN (OLD.chunk_id IS DISTINCT FROM NEW.chunk_id
            OR OLD.embedder_key IS DISTINCT FROM NEW.embedder_key)
        EXECUTE FUNCTION vector_counts_moved()""",
    """CREATE TRIGGER vector_counts_chunks_insert AFTER INSERT ON chunks
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION vector_counts_chunks_added()""",
    """CREATE TRIGGER vector_counts_chunks_delete AFTER DELETE ON chunks
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
        EXECUTE FUNCTION vector_counts_chunks_removed()""",
    """CREATE TRIGGER vector_counts_chunks_update
        AFTER UPDATE OF chunk_id, manifest_id ON chunks FOR EACH ROW
        WHEN (OLD.chunk_id IS DISTINCT FROM NEW.chunk_id
            OR OLD.manifest_id IS DISTINCT FROM NEW.manifest_id)
        EXECUTE FUNCTION vector_counts_moved()""",
)

#: A scope's languages kept between processes (issue 15), as SQLite's schema 32: under
#: a digest of the scope (no tenant or group name) with the scope's partitions and
#: generations they were read at; ``stored`` orders them for the bound of
#: ``SCOPE_LANGUAGES_KEPT`` (a set stored again takes a new number).
_V9: Final = (
    "CREATE SEQUENCE IF NOT EXISTS scope_languages_stored",
    """CREATE TABLE IF NOT EXISTS scope_languages (
        scope_key TEXT PRIMARY KEY,
        generations TEXT NOT NULL,
        languages TEXT NOT NULL,
        stored BIGINT NOT NULL DEFAULT nextval('scope_languages_stored'))""",
    "CREATE INDEX IF NOT EXISTS scope_languages_by_stored ON scope_languages(stored)",
)

MIGRATIONS: Final[tuple[tuple[int, tuple[str, ...]], ...]] = (
    (1, _V1),
    (2, _V2),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
    (9, _V9),
)

SCHEMA_VERSION: Final = MIGRATIONS[-1][0]
