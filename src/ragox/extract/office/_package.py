"""The checks every OOXML file passes before a library parses it.

An Office file is a ZIP archive of XML parts. Before python-docx, python-pptx or
openpyxl sees one, this module reads only the ZIP directory (and the first bytes of
each XML part) and refuses:

* a password-protected file: Office encrypts a whole OOXML package into a Compound
  File Binary container (magic ``D0 CF 11 E0``) with an ``EncryptionInfo`` and an
  ``EncryptedPackage`` stream ([MS-OFFCRYPTO] §2.3.4), so the file is not a ZIP at
  all → ``ENCRYPTED_OFFICE``; any other CFB file is a legacy binary format (.doc,
  .xls, .ppt) → ``UNSUPPORTED_TYPE``;
* what is not a readable ZIP, or lacks ``[Content_Types].xml`` or the format's main
  part → ``CORRUPT_OFFICE``;
* an archive that would expand past the limits below: members' declared sizes are
  checked before anything is inflated, and Python's ``zipfile`` never returns more
  than a member declares (a member that inflates further fails its CRC check) →
  ``ZIP_BOMB``;
* a macro-enabled package (a ``macroEnabled`` content type or a ``vbaProject.bin``
  part) → ``MACRO_ENABLED``: nothing in it is run, but such files are refused rather
  than half-read, so that a reader is never shown the text of a document whose
  behaviour nobody checked;
* an XML part that declares a DTD (OOXML never does; internal entities are how
  "billion laughs" documents expand) → ``CORRUPT_OFFICE``.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Final

from ragox.extract._model import ErrorCode, ExtractionError

__all__ = [
    "MAX_MEMBERS",
    "MAX_RATIO",
    "MAX_UNCOMPRESSED_BYTES",
    "MAX_XML_BYTES",
    "Package",
    "may_be_xml",
    "open_package",
    "parse_failure",
    "xml_encoding",
]

#: Largest total the XML parts of a document or a presentation may expand to: python-
#: docx and python-pptx parse each part a relationship names into a tree (240 header
#: parts of 1 MiB in a 463 kB file took 3.7 GB); a long manual's XML is a few tens of MB
MAX_XML_BYTES: Final = 64 * 1024 * 1024
#: Largest total a package may expand to, in bytes (its parts' declared sizes).
MAX_UNCOMPRESSED_BYTES: Final = 256 * 1024 * 1024
#: Most parts a package may have.
MAX_MEMBERS: Final = 10_000
#: Highest expansion ratio of one part that expands to more than :data:`RATIO_FLOOR`.
#: Real OOXML parts compress 5 to 50 times; zip bombs a thousand times and more.
MAX_RATIO: Final = 200
RATIO_FLOOR: Final = 1024 * 1024

_CFB_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: a CFB directory entry's name is UTF-16LE ([MS-CFB] §2.6.1)
_ENCRYPTION_INFO: Final = "EncryptionInfo".encode("utf-16-le")
_ENCRYPTED_PACKAGE: Final = "EncryptedPackage".encode("utf-16-le")
#: how much of an XML part is read at a time for its prolog (a DTD must precede the root)
_PROLOG_BYTES: Final = 4096
#: the longest prolog an XML part may have (its declaration, comments and processing
#: instructions before the root element; an Office program writes under 100 bytes)
MAX_PROLOG_BYTES: Final = 1 << 20
#: what may stand before the root element, then what follows it: the root's start tag,
#: a DTD (refused), or nothing yet (the prolog goes on past what was read)
_PROLOG: Final = re.compile(
    r"\A(?:\s+|<\?.*?\?>|<!--.*?-->)*(<!DOCTYPE|<!ENTITY|<[A-Za-z_:])?", re.DOTALL
)


def xml_encoding(head: bytes) -> str | None:
    """The encoding an XML parser reads a part in, from its first bytes (XML 1.0
    appendix F: a byte-order mark, or "<" in UTF-32, UTF-16 or UTF-8, after white
    space in UTF-8), else None: the part does not start as XML (an image)."""
    for mark, codec in _XML_STARTS:
        if head.startswith(mark):
            return codec
    return "utf-8" if head.lstrip(b" \t\r\n")[:1] == b"<" else None


#: how each encoding's XML starts, longest patterns first
_XML_STARTS: Final = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\x00<", "utf-16-be"),
    (b"<\x00", "utf-16-le"),
)


def may_be_xml(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> bool:
    """The part starts as XML does (:func:`xml_encoding`); an image or another binary
    part does not."""
    if member.is_dir() or member.file_size == 0:
        return False
    with archive.open(member) as part:
        head = part.read(64)
    return xml_encoding(head) is not None


def _parsed_as_xml(content_types: bytes) -> Callable[[str], bool]:
    """Whether the package declares a part (by its name) of a content type that an
    Office library parses as XML: an Office type (``application/vnd.…+xml``) or
    ``application/xml``, by the part's Override or its extension's Default. An SVG
    picture (``image/svg+xml``) or an HTML chunk (``application/xhtml+xml``) is not
    parsed as the document's XML, and may carry its own DOCTYPE."""
    # (in its own encoding; part names compare without case, as OPC says)
    encoding = xml_encoding(content_types[:4]) or "utf-8"
    text = content_types.decode(encoding, errors="replace")
    defaults = {m.group(1).lower(): m.group(2) for m in _DEFAULT.finditer(text)}
    overrides = {m.group(1).lower(): m.group(2) for m in _OVERRIDE.finditer(text)}

    def parsed(name: str) -> bool:
        kind = overrides.get("/" + name.lower())
        if kind is None:
            kind = defaults.get(name.rsplit(".", 1)[-1].lower() if "." in name else "")
        return kind is not None and (
            kind.lower() == "application/xml"
            or (kind.lower().startswith("application/vnd.") and kind.lower().endswith("+xml"))
        )

    return parsed


_ATTRIBUTE: Final = r"""\s*=\s*["']([^"']*)["']"""
_DEFAULT: Final = re.compile(
    r"<(?:\w+:)?Default\b[^>]*?\bExtension" + _ATTRIBUTE + r"[^>]*?\bContentType" + _ATTRIBUTE
)
_OVERRIDE: Final = re.compile(
    r"<(?:\w+:)?Override\b[^>]*?\bPartName" + _ATTRIBUTE + r"[^>]*?\bContentType" + _ATTRIBUTE
)


def _declares_dtd(part: IO[bytes]) -> bool:
    """Whether an XML part declares a DTD: its prolog, read however many comments come
    before the root (a DTD behind 4 KiB of comment once passed a check of the first 4
    KiB), is refused past :data:`MAX_PROLOG_BYTES`."""
    data = b""
    while True:
        more = part.read(max(_PROLOG_BYTES, len(data)))  # doubling: no quadratic rereads
        data += more
        encoding = xml_encoding(data[:4]) or "utf-8"
        text = data.decode(encoding, errors="replace").lstrip("\ufeff\ufffe")
        found = _PROLOG.match(text)
        opening = found.group(1) if found else None
        if (found.start(1) if found and opening else len(text)) > MAX_PROLOG_BYTES:
            raise ExtractionError(
                ErrorCode.CORRUPT_OFFICE,
                f"an XML part's prolog is over {MAX_PROLOG_BYTES} bytes",
            )
        if opening is not None:
            return opening.startswith("<!")  # a DTD; else the root element's start tag
        if not more:
            return False  # no root element at all: the XML parser refuses it


#: where each format keeps its comments (PowerPoint one part per slide, Excel per sheet)
_COMMENT_PARTS: Final = (
    "ppt/comments/",
    "word/comments.xml",
    "xl/comments",
    "xl/threadedComments/",
)


@dataclass(frozen=True, slots=True)
class Package:
    """A checked OOXML package: its part names and the flags read from them."""

    data: bytes
    names: frozenset[str]
    #: a comments part is present (Word comments, Excel notes, PowerPoint comments)
    has_comments: bool


def _refuse_cfb(data: bytes, kind: str) -> ExtractionError:
    if _ENCRYPTION_INFO in data and _ENCRYPTED_PACKAGE in data:
        return ExtractionError(
            ErrorCode.ENCRYPTED_OFFICE, f"the {kind} file is password-protected (encrypted)"
        )
    return ExtractionError(
        ErrorCode.UNSUPPORTED_TYPE,
        f"a legacy binary Office file, not an OOXML {kind}; save it as {kind}",
    )


def open_package(
    data: bytes, kind: str, main_part: str, max_xml_bytes: int | None = None
) -> Package:
    """Check ``data`` as an OOXML package of ``kind`` ("DOCX", …) whose main part is
    ``main_part``; raise :class:`ExtractionError` with a code for what it refuses.
    ``max_xml_bytes``: the most its XML parts may expand to together (a library that
    parses every part it is pointed at holds them all as trees, about 15 times their
    size)."""
    if not data:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "file is empty")
    if data.startswith(_CFB_MAGIC):
        raise _refuse_cfb(data, kind)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,  # a damaged "version needed to extract" or method field
    ):
        raise ExtractionError(ErrorCode.CORRUPT_OFFICE, f"not a readable {kind} (ZIP)") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise ExtractionError(
                ErrorCode.ZIP_BOMB, f"{len(members)} parts, the limit is {MAX_MEMBERS}"
            )
        total = 0
        for member in members:
            total += member.file_size
            if member.file_size > RATIO_FLOOR and (
                member.file_size > MAX_RATIO * max(member.compress_size, 1)
            ):
                raise ExtractionError(
                    ErrorCode.ZIP_BOMB,
                    f"a part expands {member.file_size // max(member.compress_size, 1)} times, "
                    f"the limit is {MAX_RATIO}",
                )
        if total > MAX_UNCOMPRESSED_BYTES:
            raise ExtractionError(
                ErrorCode.ZIP_BOMB,
                f"expands to {total} bytes, the limit is {MAX_UNCOMPRESSED_BYTES}",
            )
        names = frozenset(member.filename for member in members)
        if "[Content_Types].xml" not in names or main_part not in names:
            raise ExtractionError(ErrorCode.CORRUPT_OFFICE, f"not a {kind} package")
        if any(name.lower().endswith("vbaproject.bin") for name in names):
            raise ExtractionError(ErrorCode.MACRO_ENABLED, f"the {kind} carries macros (VBA)")
        try:
            content_types = archive.read("[Content_Types].xml")
            parsed = _parsed_as_xml(content_types)
            xml_bytes = 0
            for member in members:
                # every part an Office library parses as XML, whatever its name: a
                # relationship may name "word/real.dat" as the main document
                if member.filename.endswith((".xml", ".rels")) or (
                    parsed(member.filename) and may_be_xml(archive, member)
                ):
                    xml_bytes += member.file_size
                    if max_xml_bytes is not None and xml_bytes > max_xml_bytes:
                        raise ExtractionError(
                            ErrorCode.ZIP_BOMB,
                            f"its XML parts expand to more than {max_xml_bytes} bytes",
                        )
                    with archive.open(member) as part:
                        declared = _declares_dtd(part)
                    if declared:
                        raise ExtractionError(
                            ErrorCode.CORRUPT_OFFICE, f"an XML part of the {kind} declares a DTD"
                        )
        except ExtractionError:
            raise
        except (
            zipfile.BadZipFile,
            zlib.error,
            OSError,
            ValueError,
            EOFError,
            NotImplementedError,
            RuntimeError,
        ):  # RuntimeError: a ZIP-encrypted part (zipfile wants a password)
            raise ExtractionError(
                ErrorCode.CORRUPT_OFFICE, f"a part of the {kind} is damaged"
            ) from None
    if b"macroEnabled" in content_types:
        raise ExtractionError(ErrorCode.MACRO_ENABLED, f"a macro-enabled {kind}")
    has_comments = any(name.startswith(_COMMENT_PARTS) for name in names)
    return Package(data, names, has_comments)


def parse_failure(kind: str, error: Exception) -> ExtractionError:
    """The refusal for an error a library raised while parsing: ``TOO_COMPLEX`` for XML
    nested past libxml2's depth limit (256 levels unless told otherwise), else
    ``CORRUPT_OFFICE``; the message names the error's type, never the document's text."""
    if "depth" in str(error).lower() and type(error).__name__ == "XMLSyntaxError":
        return ExtractionError(ErrorCode.TOO_COMPLEX, f"an XML part of the {kind} nests too deep")
    return ExtractionError(ErrorCode.CORRUPT_OFFICE, f"{kind} not parsed ({type(error).__name__})")
