"""E-mail: a message (.eml) or a mailbox (.mbox) read with the standard library's `email`.
Each message gives its subject (as a heading), sender, recipients and date, its body (an HTML
body through the HTML reader) and the names of its attachments; each attachment is a document
of its own (`message.eml › report.docx`), read by the extractor of its kind (extract.py), and
each message of a mailbox is one (`archive.mbox › 3. Subject.eml`). Encoded parts are decoded
first: no base64 ever reaches the index; an attachment of a kind Findling does not read is
named, not read. A message attached to a message is a document too (`message.eml › Fwd: x.eml`),
as deep as documents inside files nest (extract.py)."""

from __future__ import annotations

import email.policy
import email.utils
import re
from collections.abc import Callable
from email.message import EmailMessage
from email.parser import BytesParser

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed, SubDocument
from findling.ingest.extractors.html import html_to_text

# (file name, bytes) -> the attachment as a document, or why it is not one; given by extract.py,
# which knows every format (and how deep attachments already nest).
ReadAttachment = Callable[[str, bytes], SubDocument | str]
# (address name, the message, its date, its size in bytes) -> the message as a document of its mailbox
MessageDocument = Callable[[str, Parsed, float, int], SubDocument]

MAX_MESSAGES = 20_000
MAX_ATTACHMENTS = 100  # per message
MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024
# CPython's header parser takes time quadratic in a header's length (a 60 KB From: of words took
# seconds, and a mailbox with one timed out whole): a header, with its folded lines, is read to
# this many bytes (RFC 5322 asks for lines of at most 998), the rest left out.
MAX_HEADER_BYTES = 4096
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:")
_MBOX_SEPARATOR = re.compile(rb"^From [^\n]*\n", re.MULTILINE)
_QUOTED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)


def _header(message: EmailMessage, name: str) -> str:
    try:
        return " ".join(str(message.get(name, "") or "").split())
    except (ValueError, TypeError, IndexError):  # a malformed encoded word: the header is skipped
        return ""


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):  # an unknown charset or a broken encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        return html_to_text(content.encode("utf-8")).text
    return content


def _message(
    message: EmailMessage, read_attachment: ReadAttachment, notes: list[str]
) -> tuple[str, str, list[SubDocument]]:
    """(subject, the message as text, its attachments as documents). A message attached to it
    is one of them too (`Fwd: budget.eml`), read as a message file is, with its own attachments."""
    attached: list[SubDocument] = []
    subject = _header(message, "subject")
    lines = [f"# {subject or '(no subject)'}", ""]
    for name in ("from", "to", "cc", "date"):
        value = _header(message, name)
        if value:
            lines.append(f"{name.capitalize()}: {value}")
    lines += ["", _body(message).strip()]
    for count, attachment in enumerate(message.iter_attachments()):
        if count >= MAX_ATTACHMENTS:
            notes.append(f"only the first {MAX_ATTACHMENTS} attachments of a message were read")
            break
        filename, payload = _attachment(attachment)
        if not filename or payload is None:
            continue
        if len(payload) > MAX_ATTACHMENT_BYTES:
            lines.append(f"Attachment: {filename} (over {MAX_ATTACHMENT_BYTES >> 20} MB: not read)")
            continue
        read = read_attachment(filename, payload)
        if isinstance(read, str):
            lines.append(f"Attachment: {filename} ({read})")
            continue
        attached.append(read)
        lines.append(f"Attachment: {filename}" + ("" if read.extracted is not None else " (could not be read)"))
    return subject, "\n".join(lines).strip(), attached


def _attachment(part: EmailMessage) -> tuple[str, bytes | None]:
    """(its name, its decoded bytes) of an attachment; an attached message as a message file."""
    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if not isinstance(inner, EmailMessage):
            return "", None
        name = f"{_subject_name(_header(inner, 'subject')) or 'attached message'}.eml"
        try:
            return name, inner.as_bytes()
        except (ValueError, TypeError, LookupError, UnicodeError):  # headers it cannot write back
            return name, None
    payload = part.get_payload(decode=True)
    return part.get_filename() or "", payload if isinstance(payload, bytes) else None


def bounded_headers(data: bytes) -> bytes:
    """The message with each header cut at MAX_HEADER_BYTES: the message's own headers, and those
    of its parts (the lines after a `--boundary` line up to the blank line), where they are."""
    if len(data) < MAX_HEADER_BYTES:
        return data
    out: list[bytes] = []
    in_headers, length = True, 0
    for line in data.splitlines(keepends=True):
        if in_headers and not line.strip():
            in_headers = False
        elif not in_headers and line.startswith(b"--"):
            in_headers, length = True, 0
            out.append(line)
            continue
        elif in_headers:
            if _HEADER_LINE.match(line):
                length = 0
            elif not line[:1].isspace():  # not a header after all: a body that follows a "--" line
                in_headers = False
            if in_headers:
                if length >= MAX_HEADER_BYTES:
                    continue
                if length + len(line) > MAX_HEADER_BYTES:
                    ending = line[len(line.rstrip(b"\r\n")) :]
                    line = line[: MAX_HEADER_BYTES - length].rstrip(b"\r\n") + ending
                length += len(line)
        out.append(line)
    return b"".join(out)


def _parse(data: bytes) -> EmailMessage:
    message = BytesParser(policy=email.policy.default).parsebytes(bounded_headers(data))
    assert isinstance(message, EmailMessage)
    return message


def extract_eml(data: bytes, read_attachment: ReadAttachment) -> Parsed:
    if not data.strip():
        raise ExtractionError("the message is empty")
    notes: list[str] = []
    try:
        message = _parse(data)
        subject, text, attached = _message(message, read_attachment, notes)
    except (ValueError, TypeError, IndexError, LookupError) as exc:
        raise ExtractionError(f"cannot read the message: {exc}") from exc
    except RecursionError:
        raise ExtractionError("the message's parts nest too deeply to be read") from None
    return Parsed(
        text,
        subject,
        tuple(dict.fromkeys(notes)),
        author=_header(message, "from"),
        members=tuple(attached),
        dated=_sent(message),
    )


def _sent(message: EmailMessage) -> float:
    """When the message was sent, from its Date header; 0 when it has none that parses."""
    try:
        return email.utils.parsedate_to_datetime(_header(message, "date")).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return 0.0


def _subject_name(subject: str) -> str:
    """A subject as part of a message's address: one line, no `/`, at most 80 characters."""
    return " ".join(subject.replace("/", "-").split())[:80]


def _address(number: int, subject: str) -> str:
    """A message's name in its mailbox's address: numbered, as subjects repeat."""
    return f"{number}. {_subject_name(subject) or '(no subject)'}.eml"


def extract_mbox(data: bytes, read_attachment: ReadAttachment, as_document: MessageDocument) -> Parsed:
    """The mailbox as a listing of its messages (number, subject, sender, date), each message a
    document of its own with its attachments."""
    starts = [m.end() for m in _MBOX_SEPARATOR.finditer(data)]
    if not starts:
        raise ExtractionError("cannot read the mailbox: no message starts with a `From ` line (not an mbox file?)")
    ends = [m.start() for m in _MBOX_SEPARATOR.finditer(data)][1:] + [len(data)]
    notes: list[str] = []
    lines, messages = [], []
    for number, (start, end) in enumerate(zip(starts, ends), 1):
        if number > MAX_MESSAGES:
            notes.append(f"only the first {MAX_MESSAGES:,} messages were read")
            break
        try:
            message = _parse(_QUOTED_FROM.sub(rb"\1", data[start:end]))
            subject, text, attached = _message(message, read_attachment, notes)
        except (ValueError, TypeError, IndexError, LookupError):
            notes.append("a message that could not be read was left out")
            continue
        except RecursionError:  # parts nested thousands deep: that message alone is left out
            notes.append(f"message {number}'s parts nest too deeply: left out")
            continue
        sender = _header(message, "from")
        name = _address(number, subject)
        parsed = Parsed(text, subject or "(no subject)", author=sender, members=tuple(attached))
        messages.append(as_document(name, parsed, _sent(message), end - start))  # its bytes: its size
        lines.append(" · ".join(part for part in (name.removesuffix(".eml"), sender, _header(message, "date")) if part))
    return Parsed("\n".join(lines), "", tuple(dict.fromkeys(notes)), members=tuple(messages))
