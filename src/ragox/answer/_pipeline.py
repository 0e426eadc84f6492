"""Question → permitted evidence → draft → validated citations → answer record.

The caller supplies the hits of a search that already ran inside the
principal's scope; nothing here widens it. The record keeps seed 001's
checklist trace: candidates with their ranks per retriever, the selected
context, and every dropped citation with its reason.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from ragox.access import Principal
from ragox.anchor import Anchor, AnchorLookup, ResolutionStatus
from ragox.answer._context import ContextConfig, select_context
from ragox.answer._messages import MESSAGES, in_other_languages, messages_for, question_language
from ragox.answer._model import (
    Citation,
    Draft,
    Evidence,
    Generator,
    GeneratorError,
    Translation,
    Translator,
)
from ragox.answer._names import topic_names, unmentioned_names, writes_name
from ragox.answer._support import AnswerKind, answer_kind, asks_which_version, joins_verb
from ragox.answer._validate import Validated, validate
from ragox.search import Hit, analyze_query, detect_language, tokens
from ragox.search._analyze import index_form, is_search_stopword
from ragox.search._synonyms import synonyms_of_word
from ragox.store import Store, StoreError, utc_now

__all__ = [
    "AnswerRecord",
    "Redaction",
    "StoredClaim",
    "WithdrawnCitation",
    "answer_question",
    "citation_json",
    "compose",
    "missing_terms",
]

#: the English abstention; German and Russian questions get theirs (``_messages``)
ABSTAIN_TEXT = MESSAGES["en"].abstain


@dataclass(frozen=True, slots=True)
class StoredClaim:
    text: str
    source_id: str
    anchor_id: str


@dataclass(frozen=True, slots=True)
class WithdrawnCitation:
    """A citation whose document was deleted: its ids stay, its anchor (which quoted
    the document) is gone."""

    source_id: str
    anchor_id: str


@dataclass(frozen=True, slots=True)
class Redaction:
    """Why and when text was removed from a stored record (ids only, never text)."""

    reason: str
    document_id: str
    at: str


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    answer_id: str
    created_at: str
    principal: str
    tenant: str
    groups: tuple[str, ...]
    question: str
    generator: str
    answer: str
    abstained: bool
    missing: str | None
    claims: tuple[StoredClaim, ...]
    citations: tuple[Citation, ...]
    evidence: tuple[Evidence, ...]
    trace: dict[str, Any]
    withdrawn: tuple[WithdrawnCitation, ...] = ()
    redactions: tuple[Redaction, ...] = ()
    #: the language the reader asked the answer in (``ask --answer-language``)
    answer_language: str | None = None
    #: what the answer says about itself beside its claims (in the answer's
    #: language), e.g. that its generator could not translate
    notices: tuple[str, ...] = ()
    #: earlier turns of a conversation the generator was given beside the evidence
    #: (the chat route's): text no replay can check against today's access
    context_turns: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "answer_id": self.answer_id,
            "created_at": self.created_at,
            "principal": self.principal,
            "tenant": self.tenant,
            "groups": list(self.groups),
            "question": self.question,
            "generator": self.generator,
            "answer": self.answer,
            "abstained": self.abstained,
            "missing": self.missing,
            "claims": [
                {"text": c.text, "source_id": c.source_id, "anchor_id": c.anchor_id}
                for c in self.claims
            ],
            "citations": [citation_json(c) for c in self.citations]
            + [
                {
                    "source_id": w.source_id,
                    "anchor_id": w.anchor_id,
                    "status": "ACCESS_DENIED",
                    "redacted": True,
                }
                for w in self.withdrawn
            ],
            "evidence": [
                {
                    "source_id": e.source_id,
                    "document_id": e.document_id,
                    "revision": e.revision,
                    "manifest_id": e.manifest_id,
                    "chunk_ids": list(e.chunk_ids),
                    "start": e.start,
                    "end": e.end,
                    "pages": list(e.pages),
                }
                for e in self.evidence
            ],
            "trace": self.trace,
        }
        if self.answer_language is not None:
            data["answer_language"] = self.answer_language
        if self.notices:
            data["notices"] = list(self.notices)
        if self.context_turns:
            data["context_turns"] = self.context_turns
        if self.redactions:
            data["redactions"] = [
                {"reason": r.reason, "document_id": r.document_id, "at": r.at}
                for r in self.redactions
            ]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnswerRecord:
        return cls(
            answer_id=data["answer_id"],
            created_at=data["created_at"],
            principal=data["principal"],
            tenant=data["tenant"],
            groups=tuple(data["groups"]),
            question=data["question"],
            generator=data["generator"],
            answer=data["answer"],
            abstained=bool(data["abstained"]),
            missing=data["missing"],
            claims=tuple(
                StoredClaim(c["text"], c["source_id"], c["anchor_id"]) for c in data["claims"]
            ),
            citations=tuple(_citation(c) for c in data["citations"] if "anchor" in c),
            evidence=tuple(
                Evidence(
                    e["source_id"],
                    e["document_id"],
                    e["revision"],
                    e["manifest_id"],
                    tuple(e["chunk_ids"]),
                    e["start"],
                    e["end"],
                    "",
                    tuple(e["pages"]),
                )
                for e in data["evidence"]
            ),
            # traces are stored apart from the record (schema 11) and read by the operator
            trace=data.get("trace", {}),
            withdrawn=tuple(
                WithdrawnCitation(c["source_id"], c["anchor_id"])
                for c in data["citations"]
                if "anchor" not in c
            ),
            redactions=tuple(
                Redaction(r["reason"], r["document_id"], r["at"])
                for r in data.get("redactions", [])
            ),
            answer_language=data.get("answer_language"),
            notices=tuple(data.get("notices", ())),
            context_turns=int(data.get("context_turns", 0)),
        )


#: a question's words as written (their capitals tell a name's parts)
_WRITTEN: Final = re.compile(r"[^\W_]+")

#: what readers of an answer take for a citation marker (the web app's cards, the chat
#: route's numbered links, a client's own parser)
_MARKER: Final = re.compile(r"\[(S\d+)\]", re.IGNORECASE)
_FULLWIDTH: Final = "\uff3b\\1\uff3d"


def compose(claims: Sequence[tuple[str, str]]) -> str:
    """Claims with their source ids, in order: ``"… [S1] … [S2]"``.

    Only the markers placed here are markers: one inside a claim's text (a document's
    sentence reading "… as the policy states [S2].", or a model's words) is written with
    fullwidth brackets ("［S2］"), so that no reader of the answer links it to a source
    the claim does not cite. The stored claim and its anchor keep the exact text."""
    return " ".join(f"{_MARKER.sub(_FULLWIDTH, text)} [{source_id}]" for text, source_id in claims)


def citation_json(citation: Citation) -> dict[str, Any]:
    """A citation as answers show it; ``also_in`` lists the same passage elsewhere."""
    data: dict[str, Any] = {
        "source_id": citation.source_id,
        "anchor": citation.anchor.to_json(),
        "status": citation.status.value,
        "also_in": [citation_json(other) for other in citation.also_in],
    }
    if citation.translation is not None:
        # a derived representation, beside the anchor (whose exact stays the source's)
        data["translation"] = citation.translation.to_json()
    return data


def _citation(data: dict[str, Any]) -> Citation:
    return Citation(
        data["source_id"],
        Anchor.from_json(data["anchor"]),
        ResolutionStatus(data["status"]),
        tuple(_citation(other) for other in data.get("also_in", ())),  # absent in older records
        Translation.from_json(data["translation"]) if data.get("translation") else None,
    )


def missing_terms(
    question: str,
    evidence: Sequence[Evidence],
    answer_language: str | None = None,
    *,
    mentioned: Callable[[Sequence[str]], Collection[str]] | None = None,
) -> str:
    """Name the question's content words that no supplied passage contains, in the
    answer's language (the question's, unless the reader asked for another).

    ``mentioned``: of these index terms, those that some passage the reader may read
    holds. A word one of them holds is not named (the message says that *no passage
    you can read* mentions it: "windows" absent from the evidence of "How much does a
    Windows license cost?" was named while the reader's manuals said it many times)."""
    from ragox.answer._extractive import (  # noqa: PLC0415 - loaded by ask
        QUESTION_ONLY_WORDS,
        separable_verb,
    )

    messages = messages_for(question, answer_language)
    text = " ".join(item.text for item in evidence)
    in_evidence = set(analyze_query(text, ["en", "de", "ru"])) if evidence else set()
    # a German verb the question splits ("Wie blende ich … aus?") is mentioned joined
    # with its particle ("ausgeblendet"), which the stemmer may cut short ("ausgebl")
    joined = separable_verb(question)
    if joined and evidence:
        words = tokens(text)
        in_evidence.update(
            stem
            for stem, particle in joined.items()
            if any(joins_verb(word, stem, particle) for word in words)
        )
    absent: dict[str, set[str]] = {}
    for word in dict.fromkeys(tokens(question)):
        # the asker's own pronoun ("Wie ändere *ich* …") or a filler ("eigentlich") is no
        # term: never "not mentioned";
        # nor is a word a search drops ("difference *between*", which no passage need say)
        if len(word) < 3 or is_search_stopword(word) or word.casefold() in QUESTION_ONLY_WORDS:
            continue
        # a word said in the evidence by a synonym ("display" for "show") is mentioned:
        # the passages were found by it
        said = set(analyze_query(word, ["en", "de", "ru"])) | set(synonyms_of_word(word))
        if not said & in_evidence:
            absent[word] = said
    # named as the question writes them ("RAID", not "raid")
    written = {word.casefold(): word for word in _WRITTEN.findall(question)}
    if absent and mentioned is not None:
        # (a word the documents write apart, "SecureBoot" as "Secure Boot", is
        # mentioned where all its parts are: :func:`unmentioned_names` tells)
        held = set(mentioned(sorted(set().union(*absent.values()))))
        absent = {
            word: said
            for word, said in absent.items()
            if not said & held
            and unmentioned_names(written.get(word, word), mentioned, every_word=True)
        }
    if not absent:
        return messages.mentioned_but_unanswered
    named = [written.get(word, word) for word in absent]
    # what the question is about, not what it asks be done with it: "Keine Passage …
    # erwähnt: kriege, Firmenlogo" sent the reader after "kriege"; a German question's
    # nouns and names are capitalised, a Russian verb has its endings
    german = detect_language(question) == "de"
    things = [word for word in named if not _verb_like(word, german)]
    return messages.not_mentioned + ", ".join((things or named)[:8]) + "."


#: the endings of a Russian verb's infinitive and present or future tense
_RUSSIAN_VERB: Final = re.compile(
    r"(?:ть|ти|чь|ться|тись|ет|ит|ут|ют|ат|ят|ем|им|ешь|ишь|ете|ите|ется|ится|ются|ятся"
    r"|утся|атся)$"
)
_CYRILLIC_WORD: Final = re.compile(r"[а-яёА-ЯЁ]+")


def _verb_like(word: str, german: bool) -> bool:
    """Whether a word of the question is a verb (or another word in lower case) of a
    German question, or has a Russian verb's ending."""
    if german:
        return word[:1].islower()
    return _CYRILLIC_WORD.fullmatch(word) is not None and (
        _RUSSIAN_VERB.search(word.casefold()) is not None
    )


def _scope_speaks(question: str, store: Store, principal: Principal) -> bool:
    """Whether some document the principal may read is in the question's language: then
    "ask in English" is no advice (a German question over a German manual whose nearest
    passages were its untranslated English pages was told to ask in English)."""
    from ragox.search import scope_of  # noqa: PLC0415

    return question_language(question) in store.index.languages(scope_of(principal))


def _mentioned(store: Store, principal: Principal) -> Callable[[Sequence[str]], set[str]]:
    """Of some index terms, those that a passage the principal may read now holds."""
    from ragox.search import readable_terms  # noqa: PLC0415

    return readable_terms(store.index, principal)


#: a name in more than one of every ``_TOPIC_SHARE`` passages the reader may read is
#: no topic: "Debian" in Debian's manuals, a company's name in its own documents
_TOPIC_SHARE: Final = 20
#: how far before a passage its document may write the name it is about (a paragraph
#: or two: "OpenSSH is the remote login server …" above "Its configuration file is …")
_TOPIC_REACH: Final = 2000
#: chunks counted at least, as the answer's term weights count them (``MIN_IDF_CHUNKS``):
#: in a home of a few documents every name is rare
_TOPIC_MIN_CHUNKS: Final = 100


def _on_topic(
    question: str, evidence: Sequence[Evidence], store: Store, principal: Principal
) -> list[Evidence]:
    """The evidence that writes a name the question is about, or whose document writes
    it shortly before.

    "Wie richte ich einen SFTP-Server mit chroot für einzelne Benutzer ein?" was
    answered with how debootstrap's chroot gets a boot loader: the passage shared
    "chroot", "Benutzer" and "richten … ein", and other documents mention SFTP. A name
    the question is about (:func:`topic_names`) that is rare among the passages the
    reader may read must be written, however it is spelt (:func:`writes_name`), by the
    passage, its section's title, or its document within :data:`_TOPIC_REACH` before
    it ("Its configuration file is …" below "OpenSSH is the remote login server");
    one such name is enough. (The whole document was too much: a manual that names
    SFTP in one section is not about it in every other.) A passage and its copies in
    other documents stay or go together."""
    from ragox.search import scope_of  # noqa: PLC0415

    names = topic_names(question)
    if not names or not evidence:
        return list(evidence)
    # per name, per word: its index forms (stems in each language)
    forms = {
        name: [
            {index_form(term) for term in analyze_query(word, ["en", "de", "ru"])}
            for word in name.split()
        ]
        for name in names
    }
    total, frequencies = store.index.term_statistics(
        scope_of(principal), sorted(set().union(*(f for words in forms.values() for f in words)))
    )
    most = (max(total, _TOPIC_MIN_CHUNKS) - 9) / _TOPIC_SHARE

    def chunks(word_forms: set[str]) -> int:
        return max(frequencies.get(form, 0) for form in word_forms)

    # a name of several words is as rare as its rarest ("Secure Boot": "secure")
    rare = [
        name
        for name in names
        if all(forms[name]) and min(chunks(word) for word in forms[name]) <= most
    ]
    if not rare:
        return list(evidence)

    def writes(item: Evidence) -> bool:
        try:
            before = store.text(item.manifest_id)[max(0, item.start - _TOPIC_REACH) : item.start]
        except StoreError:
            before = ""  # deleted since it was found: the passage alone
        around = f"{item.section_title or ''}\n{before}\n{item.text}".casefold()
        return any(writes_name(name, around) for name in rare)

    kept = {item.copy_of or item.source_id for item in evidence if writes(item)}
    return [item for item in evidence if (item.copy_of or item.source_id) in kept]


def _trace(
    hits: Sequence[Hit],
    evidence: Sequence[Evidence],
    validated: Validated | None,
    error: str | None,
    translation_error: str | None = None,
    off_topic: Sequence[str] = (),
) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "candidates": [
            {
                "chunk_id": h.chunk_id,
                "document_id": h.document_id,
                "revision": h.revision,
                "score": h.score,
                "found_by": [
                    {"retriever": r.retriever, "rank": r.rank, "score": r.score} for r in h.found_by
                ],
            }
            for hit in hits
            for h in (hit, *hit.also_in)
        ],
        "context": [
            {
                "source_id": e.source_id,
                "document_id": e.document_id,
                "revision": e.revision,
                "start": e.start,
                "end": e.end,
            }
            for e in evidence
        ],
        "dropped": [
            {"source_id": d.source_id, "reason": d.reason.value, "text": d.text}
            for d in (validated.dropped if validated else ())
        ],
        "generator_error": error,
    }
    if translation_error is not None:
        trace["translation_error"] = translation_error
    if off_topic:
        # the evidence not handed to the generator: it writes none of the question's
        # topic names (:func:`_on_topic`)
        trace["off_topic"] = list(off_topic)
    return trace


def answer_question(
    question: str,
    principal: Principal,
    hits: Sequence[Hit],
    store: Store,
    lookup: AnchorLookup,
    generator: Generator,
    context: ContextConfig | None = None,
    answer_language: str | None = None,
    *,
    written: str | None = None,
) -> AnswerRecord:
    """Answer from permitted hits; every shown citation is a resolved anchor.

    ``written``: the question as the reader wrote it, where ``question`` respells it
    (``ragox.search._respell``). A word respelt in Latin letters is what the answer is
    about ("гноме" → "gnome": the passage on GNOME, not one that shares "работать"),
    but no name that no passage mentioning it would refuse the answer outright; and
    where no passage about it answers, the question as written is answered as it was
    before respelling ("старте" → "start", a command in a Russian manual: the console
    font's passage answers "Как поменять шрифт консоли, чтобы он загружался при
    старте?").

    With ``answer_language`` a generator that can translate (:class:`Translator`)
    writes its claims in that language and each quote from a source in another
    language gets a :class:`Translation` beside its anchor, whose exact text stays
    the source's; a generator that cannot translate answers as always, with a notice
    saying so in the answer language.

    A generator error propagates (no partial answer is presented as cited); a failed
    translation only leaves the quotes untranslated (the trace names its code).
    """
    evidence = select_context(
        store,
        hits,
        context or ContextConfig(),
        lead=asks_which_version(question),
        steps=answer_kind(question) is AnswerKind.INSTRUCTION,
    )
    translator = generator if isinstance(generator, Translator) else None
    if answer_language is not None and translator is not None:
        translator = translator.in_language(answer_language)
        generator = translator
    named = question if written is None else written
    unmentioned = unmentioned_names(named, _mentioned(store, principal)) if evidence else []
    off_topic: list[str] = []
    if unmentioned:
        # the question is about something no passage the reader may read names: the
        # other words matched elsewhere ("PostgreSQL" asked, Apache's port quoted)
        missing_name = messages_for(question, answer_language).not_mentioned
        draft = Draft((), True, missing_name + ", ".join(unmentioned[:8]) + ".")
    else:
        # only passages that write what the question is about (or follow closely on
        # where their document does) answer it
        about = _on_topic(question, evidence, store, principal)
        draft = generator.generate(question, about) if about else Draft((), True, None)
        if draft.abstained and named != question:
            # a respelt word may be a word of the reader's own that a Russian manual
            # writes in Latin letters as a command ("старте" → "start"): the question
            # as written is answered as it was before respelling (the console font's
            # passage answers "… при старте?"; "гноме", which no passage holds, weighs
            # as much as it did)
            about = _on_topic(named, evidence, store, principal)
            draft = generator.generate(named, about) if about else draft
        off_topic = [item.source_id for item in evidence if item not in about]
    validated = validate(draft, evidence, store, lookup)
    shown = [(claim.text, claim.citation.source_id) for claim in validated.claims]
    abstained = draft.abstained or not shown
    messages = messages_for(question, answer_language)
    notices: tuple[str, ...] = ()
    translation_error = None
    if answer_language is not None and translator is None:
        # said only where it matters: some passage is not in the answer's language
        manifests = list({item.manifest_id for item in evidence})
        languages = store.index.representation_languages(manifests)
        if any(languages.get(m) != answer_language for m in manifests):
            notices = (messages.cannot_translate.format(generator=generator.name),)
    if abstained:
        missing = draft.missing
        if missing is None and evidence and not _scope_speaks(question, store, principal):
            manifests = list({item.manifest_id for item in evidence})
            languages = store.index.representation_languages(manifests)
            missing = in_other_languages(question, [languages.get(m) for m in manifests], messages)
        missing = missing or missing_terms(
            question, evidence, answer_language, mentioned=_mentioned(store, principal)
        )
        answer = f"{messages.abstain} {missing}"
        claims: tuple[StoredClaim, ...] = ()
        citations: tuple[Citation, ...] = ()
    else:
        missing = None
        answer = compose(shown)
        claims = tuple(
            StoredClaim(c.text, c.citation.source_id, c.citation.anchor.anchor_id)
            for c in validated.claims
        )
        citations = validated.citations
        if answer_language is not None and translator is not None:
            try:
                citations = _translated(citations, evidence, store, translator, answer_language)
            except GeneratorError as error:
                translation_error = error.code
    return AnswerRecord(
        answer_id="ans_" + secrets.token_hex(16),
        created_at=utc_now(),
        principal=principal.name,
        tenant=principal.tenant,
        groups=tuple(sorted(principal.groups)),
        question=question,
        generator=generator.name,
        answer=answer,
        abstained=abstained,
        missing=missing,
        claims=claims,
        citations=citations,
        evidence=tuple(evidence),
        trace=_trace(hits, evidence, validated, None, translation_error, off_topic),
        answer_language=answer_language,
        notices=notices,
        # a generator given a conversation (OpenAIGenerator.with_conversation) says so
        context_turns=int(getattr(generator, "conversation_turns", 0)),
    )


def _translated(
    citations: tuple[Citation, ...],
    evidence: Sequence[Evidence],
    store: Store,
    translator: Translator,
    language: str,
) -> tuple[Citation, ...]:
    """The citations, each whose source is not already in ``language`` with its quote
    translated (one request for all). The anchors are untouched."""
    manifests = {item.source_id: item.manifest_id for item in evidence}
    languages = store.index.representation_languages(list(set(manifests.values())))
    wanted = [c for c in citations if languages.get(manifests.get(c.source_id, "")) != language]
    if not wanted:
        return citations
    texts = translator.translate([c.anchor.quote.exact for c in wanted], language)
    rendered = {
        c.anchor.anchor_id: Translation(
            text,
            language,
            languages.get(manifests.get(c.source_id, "")),
            translator.name,
        )
        for c, text in zip(wanted, texts, strict=True)
    }
    return tuple(
        replace(c, translation=rendered[c.anchor.anchor_id])
        if c.anchor.anchor_id in rendered
        else c
        for c in citations
    )
