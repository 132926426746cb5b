"""How results, explanations and advice read: written once for every face (the CLI paints the
pieces with terminal colours, the GUI with HTML); where a face differs, as in what to do about
a fact (a command, or a menu), the face is named. Pure functions; no markup here."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from findling.errors import FindlingError, Remedy
from findling.pathnames import display_path, under
from findling.records import (
    Activity,
    Answer,
    Attached,
    CostlyFile,
    EmbedDepth,
    EmbedReport,
    Highlight,
    IndexReport,
    Note,
    StoreStatus,
    WhyNotAnswer,
)

# The score is a calibrated chance of relevance (`findling eval --calibration`): 0.2 on a
# result that leads both lanes is a good answer, yet reads as "20 %". Words say it as meant.
_MATCH_WORDS = ((0.5, "strong match"), (0.2, "good match"), (0.0, "fair match"))


# What every face says when Findling declines to answer (answer/asker.py decides when)
DECLINED = "Your files do not seem to answer this."


def answer_said(answer: Answer) -> str:
    """An answer's words as every face shows them: a declined one says so."""
    return DECLINED if answer.abstained else answer.text


_MATCHED = {"all": "every word", "some": "some words", "meaning": "by meaning only"}


def match_label(score: float, weak: bool, matched: str) -> str:
    """A result's label in a list: how strong, then what it matched. A result holding none of
    the words is never above fair unless the user asked by meaning (it read "good match")."""
    strength = match_word(score, weak)
    if matched == "meaning" and strength in ("strong match", "good match"):
        strength = "fair match"
    what = _MATCHED.get(matched)
    return f"{strength} · {what}" if what else strength


def match_word(score: float, weak: bool = False) -> str:
    """How well a result matches, in words: strong, good, fair, or weak (shown only because
    nothing scored well)."""
    if weak:
        return "weak match"
    return next(word for floor, word in _MATCH_WORDS if score >= floor)


def dropped_words(query: str) -> list[str]:
    """The query's words the keyword lane does not require: function words, when it has others."""
    from findling.text.analyzer import is_stopword  # the stemmers load with it: only the window asks

    words = re.findall(r"\w+", query)
    dropped = [w for w in words if is_stopword(w)]
    return dropped if len(dropped) < len(words) else []


def time_left(done: int, total: int, elapsed_s: float) -> str:
    """ "about 3 min left" from the pace so far; "" until the pace is known."""
    if done <= 0 or total <= done or elapsed_s < 2.0:
        return ""
    return f"{duration(elapsed_s / done * (total - done))} left"


def duration(seconds: float) -> str:
    """ "about 3 min", "about 1.5 h", "less than a minute"."""
    if seconds < 60:
        return "less than a minute"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"


def embedded_words(report: EmbedReport) -> str:
    """What an embedding run did, as kept: "809 documents given a first vector; 120 embedded
    whole, 4,088 in all (2,345 vectors)". Status counts every whole document: a run that went on
    from an earlier one says both."""
    earlier = f", {report.whole:,} in all" if report.whole > report.deepened else ""
    whole = f"; {report.deepened:,} embedded whole{earlier}" if report.deepened else ""
    return f"{report.documents:,} documents given a first vector{whole} ({report.vectors:,} vectors)"


def embedding_line(done: int, total: int, depth: EmbedDepth) -> str:
    """Embedding in passes, with the time left from a steady rate (ingest/embed_pace.py), as every
    face says it: the window's bar, `status`, `index` and MCP. `done` of `total`: documents with
    a vector, of the index's."""
    if done < total:
        line = f"Embedding: {done:,} of {total:,} documents searchable by meaning"
        if depth.first_left_s is not None:
            line += f", all in {duration(depth.first_left_s)}"
        if depth.left_s is not None:
            line += f"; every passage in {duration(depth.left_s)}"
        return line
    if depth.whole >= depth.whole_total:  # a run with nothing left (its folders' self-tests may follow)
        return f"Embedding every passage: all {depth.whole_total:,} documents whole"
    line = f"Embedding every passage: {depth.whole:,} of {depth.whole_total:,} documents whole"
    if depth.left_s is not None:
        line += f", {duration(depth.left_s)} left"
    return line


def embedding_share(done: int, total: int, depth: EmbedDepth | None) -> tuple[int, int]:
    """How far a bar stands, as embedding_line says it: documents with a vector of the index's
    until each has one, then documents whole of those to embed whole (a bar full at the first
    pass's end stood still for the hours of the depth pass)."""
    if depth is not None and done >= total and depth.whole_total > 0:
        return min(depth.whole, depth.whole_total), depth.whole_total
    return done, total


def _since(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.0f} min"


def activity_line(activity: Activity, now: float) -> str:
    """What the index is busy with, how far of how many and the time left, in one line that
    every face shows alike: "Embedding 55 of 1,212 documents, about 10 min left"."""
    elapsed = max(0.0, now - activity.started)
    if activity.phase == "scanning":
        return f"Scanning the folders for what changed… ({_since(elapsed)} so far)"
    if activity.phase == "optimizing":
        return f"Optimizing the index for search speed… ({_since(elapsed)} so far)"
    if activity.phase == "embedding" and activity.depth is not None:
        return embedding_line(activity.done, activity.total, activity.depth)
    verb = "Embedding" if activity.phase == "embedding" else "Reading"
    line = f"{verb} {activity.done:,} of {activity.total:,} {activity.unit}"
    left = time_left(activity.done - activity.done_at_start, activity.total - activity.done_at_start, elapsed)
    if left:
        line += f", {left}"
    if activity.failed:
        line += f" ({activity.failed:,} failed)"
    return line


Face = Literal["terminal", "window"]

# What would set a situation right, as each face says it: the terminal names the command, the
# window the menu or gesture (MCP and HTTP callers run commands: they read the terminal's words).
_ADVICE: dict[Remedy, tuple[str, str]] = {
    Remedy.UPDATE_INDEX: ("run findling index", "update the index (File → Update index, F5)"),
    Remedy.UPDATE_OR_WAIT: (
        "run findling index, or wait for the run in progress to reach it",
        "update the index (File → Update index, F5), or wait for the run in progress to reach it",
    ),
    Remedy.ADD_FOLDER: (
        "add its folder with findling add",
        "add its folder (File → Add folder…, or drop it on the window)",
    ),
    Remedy.GET_MODEL: ("findling models pull {subject}", "File → Models… downloads or imports it"),
    Remedy.LIST_MEMBERS: (
        "its listing names what it holds: findling get {subject}",
        "its listing in the preview names what it holds",
    ),
    Remedy.SHOW_MORE: ("ask for more with -n {subject}", ""),
}


def advice(remedy: Remedy | None, subject: str, face: Face) -> str:
    """What the user can do, in this face's words ("" when there is nothing to do here)."""
    if remedy is None:
        return ""
    terminal, window = _ADVICE[remedy]
    return (terminal if face == "terminal" else window).format(subject=subject)


def said(text: str, remedy: Remedy | None, subject: str, face: Face) -> str:
    """A fact and what to do about it, as one sentence: "It is not indexed yet; run findling index."."""
    todo = advice(remedy, subject, face)
    if not todo:
        return text
    if text.endswith("."):
        return f"{text[:-1]}; {todo}."
    return f"{text}; {todo}"


def note_text(note: Note, face: Face) -> str:
    return said(note.text, note.remedy, note.subject, face)


def notes_text(notes: Sequence[Note], face: Face) -> str:
    return "; ".join(note_text(n, face) for n in notes)


def error_text(exc: BaseException, face: Face) -> str:
    """A Findling error as this face says it; any other as its message."""
    if isinstance(exc, FindlingError):
        return said(str(exc), exc.remedy, exc.subject, face)
    return str(exc) or type(exc).__name__


def why_not_summary(answer: WhyNotAnswer, face: Face) -> str:
    return said(answer.summary, answer.remedy, answer.subject, face)


def semantic_line(status: StoreStatus, face: Face) -> str:
    """How much of the index semantic search sees, in words."""
    if not status.embedder:
        return "semantic search: off (no embedding model installed)"
    if not status.embeddable:
        add = "findling add FOLDER" if face == "terminal" else "drop a folder on the window, or File → Add folder…"
        return f"semantic search: on; nothing to embed yet (add a folder: {add})"
    share = 100 if status.embedded >= status.embeddable else min(99, int(100 * status.embedded / status.embeddable))
    line = f"semantic search: {status.embedded:,} of {status.embeddable:,} documents embedded ({share} %)"
    if status.first_only:
        line += f"; {status.first_only:,} of them by their opening so far, the rest follows"
    return line


def held_back_lines(status: StoreStatus) -> list[str]:
    """Documents embedded by their first window only, and why (ingest/machine_made.py)."""
    from findling.ingest.machine_made import REASONS

    return [
        f"{n:,} {'document' if n == 1 else 'documents'} kept at {'its' if n == 1 else 'their'} first window, "
        f"machine-made: {REASONS.get(why, why)}"
        for why, n in status.held_back
    ]


COSTLY_SHOWN = 5
# a folder holding this many of the costliest files is worth excluding as a whole
_GATHERED = 3


def costly_lines(status: StoreStatus, face: Face) -> list[str]:
    """The files that took longest to read, and a folder to exclude where they gather (the
    kernel's generated AMD register headers cost most of a run): none when no file took a
    second."""
    costly = [f for f in status.costliest if f.seconds >= 1.0]
    if not costly:
        return []
    lines = [f"{f.seconds:.1f} s  {display_path(f.path)} ({f.size / 1e6:.1f} MB)" for f in costly[:COSTLY_SHOWN]]
    folder, gathered, source = _gathering(costly, [s.source.path for s in status.sources])
    if gathered >= _GATHERED:
        pattern = os.path.relpath(folder, source).replace(os.sep, "/") + "/"
        if face == "terminal":
            how = f"findling add {display_path(source)} --exclude '{pattern}'"
        else:
            how = f"exclude {pattern} from {display_path(source)}"
        lines.append(f"{gathered} of them are in {display_path(folder)}; if it need not be searched: {how}")
    return lines


def _gathering(costly: Sequence[CostlyFile], sources: Sequence[str]) -> tuple[str, int, str]:
    """The folder below an added one that holds the most of the costly files (the deepest of
    equals: `asic_reg/`, not the driver around it), how many, and the added folder."""
    held: Counter[tuple[str, str]] = Counter()
    for f in costly:
        source = max((s for s in sources if under(f.path, s)), key=len, default="")
        folder = os.path.dirname(f.path)
        while source and folder != source and under(folder, source):
            held[(folder, source)] += 1
            folder = os.path.dirname(folder)
    if not held:
        return "", 0, ""
    (folder, source), count = max(held.items(), key=lambda kv: (kv[1], len(kv[0][0])))
    return folder, count, source


def waiting_line(status: StoreStatus, face: Face) -> str:
    """Files a stopped run found and did not read, and what reads them ("" when none wait): after
    an interrupted `add`, status said "45,718 indexed" and no word of the 32,579 never read."""
    waiting = sum(s.waiting for s in status.sources)
    if not waiting:
        return ""
    files = "file was" if waiting == 1 else "files were"
    return f"{waiting:,} {files} found but not read yet: {advice(Remedy.UPDATE_INDEX, '', face)} to read them"


def highlight_pieces(text: str, highlights: Sequence[Highlight]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is_match) in order; overlapping highlights are merged away."""
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for h in sorted(highlights, key=lambda h: h.start):
        if h.start < pos:
            continue
        if h.start > pos:
            pieces.append((text[pos : h.start], False))
        pieces.append((text[h.start : h.end], True))
        pos = h.end
    if pos < len(text):
        pieces.append((text[pos:], False))
    return pieces


def report_counts(report: IndexReport, every: bool = False) -> str:
    """What an indexing run did: "3 added, 1 updated, 0 removed, 0 failed"; `every` adds moved,
    unchanged and skipped (the terminal's full account)."""
    counts = [("added", report.added), ("updated", report.updated)]
    if every:
        counts.append(("moved", report.moved))
    counts.append(("removed", report.removed))
    if every:
        counts.append(("unchanged", report.unchanged))
    counts.append(("failed", report.failed))
    if every:
        counts.append(("skipped", report.skipped))
    return ", ".join(f"{n} {what}" for what, n in counts) + (" (paused)" if report.cancelled and not every else "")


def why_not_first() -> str:
    """Why-not asked with no list on screen."""
    return (
        "Search first, then drop the file you expected on this tab (or right-click its folder in the Folders "
        "panel) to ask why it is not among the results."
    )


_HOW = {
    "words": "its words and numbers are in one sentence of",
    "quoted": "quoted from",
    "meaning": "closest in meaning to the question, quoted from",
}


def answer_explain(answer: Answer, face: Face = "window") -> list[str]:
    """How an answer was made, for the Explain tab and `ask --json`'s readers: the passages the
    model was given, each sentence and how it was checked, and the time of each stage."""
    lines = []
    if answer.passages:
        given = f"given to {answer.model}" if answer.model else "read (no generator ran)"
        lines.append(f"Passages {given}:")
        for p in answer.passages:
            where = f"{p.path.rsplit('/', 1)[-1]}:{p.line}" + (f", page {p.page}" if p.page else "")
            lines.append(f"  [{p.n}] {where} ({match_word(p.score)}): {' '.join(p.text.split())[:90]}")
    if answer.sentences:
        lines.append("Sentences:")
    for s in answer.sentences:
        text = " ".join(s.text.split())[:90]
        if s.supported:
            cites = ", ".join(f"[{n}]" for n in s.cites)
            lines.append(f"  shown: {text} ({_HOW.get(s.how, s.how)} {cites})")
        elif s.how == "off-topic":
            lines.append(f"  left out: {text} (true or not, it does not speak of the question)")
        elif s.how == "repeated":
            lines.append(f"  left out: {text} (the quotes above say it)")
        else:
            missing = ", ".join(s.missing[:4])
            lines.append(f"  left out: {text} (no passage says it{': missing ' + missing if missing else ''})")
    for note in answer.notes:
        lines.append(note_text(note, face))
    if answer.timings_ms:
        stages = ", ".join(f"{name} {ms:.0f} ms" for name, ms in answer.timings_ms.items())
        first = f"; first sentence after {answer.first_sentence_ms:.0f} ms" if answer.first_sentence_ms else ""
        lines.append(f"Time: {stages}{first}")
    return lines


def shared_line(attached: Attached, now: float) -> str:
    """An attached collection in `status` and the Folders panel: where it is, which publication
    the copy here holds, and whether the last try reached it."""
    held = (
        f"publication {attached.version}, {attached.documents:,} documents"
        if attached.version
        else "nothing copied in yet"
    )
    line = f"shared: {attached.name} from {attached.uri} ({held})"
    if attached.checked:
        minutes = max(0, int((now - attached.checked) // 60))
        line += f", reached {minutes} min ago" if minutes else ", reached just now"
    if attached.error:
        line += f"; not reachable at the last try ({attached.error}): the copy here is searched"
    if attached.embedder and not attached.vectors_used:
        line += f"; its vectors are by {attached.embedder}, not the embedder here: searched by its words"
    return line
