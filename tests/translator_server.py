"""A real, scripted OpenAI-compatible chat-completions server on 127.0.0.1 that answers
and translates: for an answer request it cites the supplied evidence with the claims it
is given (each quote looked up among the fenced passages to find its source id), for a
translation request it renders each fenced passage from its dictionary."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_EVIDENCE = re.compile(
    r"<<<EVIDENCE (\S+) nonce=\w+ [^\n]*>>>\n(.*?)\n<<<END EVIDENCE \1 nonce=\w+>>>", re.DOTALL
)
_PASSAGE = re.compile(
    r"<<<PASSAGE (\d+) nonce=\w+>>>\n(.*?)\n<<<END PASSAGE \1 nonce=\w+>>>", re.DOTALL
)


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        #: (claim text, quote, the sentence of the evidence to cite) per claim
        self.claims: list[tuple[str, str, str]] = []
        self.dictionary: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        #: answer translation requests with an empty list (a malformed reply)
        self.drop_translations = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reply(self, body: dict[str, Any]) -> str:
        self.requests.append(body)
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if system.startswith("You translate passages"):
            passages = [] if self.drop_translations else _PASSAGE.findall(user)
            return json.dumps(
                {
                    "translations": [
                        {"id": int(n), "text": self.dictionary.get(t, f"[?] {t}")}
                        for n, t in passages
                    ]
                }
            )
        evidence = _EVIDENCE.findall(user)
        claims = []
        for text, quote, sentence in self.claims:
            source = next((sid for sid, passage in evidence if sentence in passage), "S1")
            claims.append({"text": text, "source_id": source, "quote": quote})
        return json.dumps({"answer_possible": bool(claims), "missing": None, "claims": claims})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        content = self.server.reply(json.loads(self.rfile.read(length)))
        body = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": "translator-model",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
