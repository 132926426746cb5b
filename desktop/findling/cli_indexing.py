"""The commands that add, remove and index folders, and what they show while they run (a bar in
a terminal, a line every few seconds to a file or a pipe), stopped cleanly by Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

from findling.cli_commands import open_index, settings_of
from findling.errors import FindlingError
from findling.faces import presentation
from findling.faces.explaining import self_test_line
from findling.faces.presentation import embedding_line, embedding_share, report_counts
from findling.pathnames import printable
from findling.records import IndexProgress

if TYPE_CHECKING:
    pass


class ProgressBar:
    """One line on stderr, redrawn in place; to a file or a pipe (a log, `| tee`, cron), a plain
    line at most every LOG_EVERY_S seconds: `add` to a file printed one line in 30 minutes."""

    LOG_EVERY_S = 10.0

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.width = 30
        self._logged_at = 0.0
        self._logged_phase = ""
        self._reader_left = False

    def __call__(self, p: IndexProgress) -> None:
        if not self.enabled:
            self._log(p)
            return
        if p.phase == "scanning":
            line = "scanning folders…"
        elif p.phase == "optimizing":
            line = "optimizing the index…"
        elif p.phase == "done":
            line = ""
        else:
            done, total = p.base + p.done, p.base + p.total  # embedding: of the whole index, as status says
            shown, of = embedding_share(done, total, p.depth)  # the depth pass's, once it is all that is left
            frac = shown / of if of else 1.0
            filled = int(frac * self.width)
            name = printable(os.path.basename(p.current)[:40])
            bar = f"[{'#' * filled}{'.' * (self.width - filled)}]"
            if p.phase == "embedding" and p.depth is not None:  # the time left as the window says it
                line = f"{bar} {embedding_line(done, total, p.depth)}"
            else:
                what = "embedding" if p.phase == "embedding" else "reading"
                line = f"{bar} {what} {done}/{total} {name}"
            if p.failed:
                line += f" ({p.failed} failed)"
        sys.stderr.write("\r\033[K" + line)
        if p.phase == "done":
            sys.stderr.write("\r\033[K")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

    def _log(self, p: IndexProgress) -> None:
        """A line for a reader that is not a terminal: at each new phase, then every LOG_EVERY_S."""
        now = time.monotonic()
        if self._reader_left or p.phase == "done":
            return
        if p.phase == self._logged_phase and now - self._logged_at < self.LOG_EVERY_S:
            return
        self._logged_at, self._logged_phase = now, p.phase
        if p.phase == "scanning":
            line = "scanning folders…"
        elif p.phase == "optimizing":
            line = "optimizing the index…"
        elif p.phase == "embedding" and p.depth is not None:
            line = embedding_line(p.base + p.done, p.base + p.total, p.depth)
        else:
            done, total = p.base + p.done, p.base + p.total
            share = f" ({done / total:.0%})" if total else ""
            what = "embedded" if p.phase == "embedding" else "read"
            line = f"{done:,} of {total:,} {'documents' if p.phase == 'embedding' else 'files'} {what}{share}"
            if p.failed:
                line += f", {p.failed:,} failed"
        try:
            print(f"findling: {line}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            self._reader_left = True  # nothing more to say to a reader that left


def cmd_add(args: argparse.Namespace) -> int:
    """Add, and index the text; return once it is keyword-searchable. Embedding for semantic
    search goes on in the background (`--wait`: here, before returning)."""
    from findling.server.background import continue_in_background

    with open_index(args, take_from_background=True) as engine:
        for path in args.paths:
            source = engine.add_source(
                path, include=args.include or (), exclude=args.exclude or (), gitignore=args.gitignore
            )
            unfollowed = "" if source.gitignore else " (its .gitignore files not followed)"
            print(f"added {printable(source.path)}{unfollowed}")
        if args.no_index:
            return 0
        code = _run_index(engine, embed=args.wait)
        status = engine.status()
        pending = status.embeddable - status.embedded
        if code == 0 and not args.wait and status.embedder and pending > 0:
            where = "in the background" if continue_in_background(engine, args.home) else "in the Findling window"
            print(
                f"keyword-searchable now; embedding {pending:,} documents for semantic search {where} "
                "(findling status shows how far; findling add --wait waits for it)"
            )
    return code


def cmd_remove(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        removed = engine.remove_source(args.path)
        what = "detached" if args.command == "detach" else "removed"
        print(f"{what} {printable(args.path)} ({removed} documents)")
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        r = engine.publish(args.path, args.uri, args.name)
    vectors = f", {r.embedded:,} with vectors by {r.embedder}" if r.embedder else ", no vectors (none made yet)"
    print(
        f"published {printable(r.name)} at {printable(r.uri)} in {r.seconds:.1f}s: publication {r.version}, "
        f"{r.documents:,} documents{vectors} ({r.changed:,} written, {r.removed:,} removed)"
    )
    print(f"others search it with: findling attach {printable(r.uri)}")
    return 0


def cmd_attach(args: argparse.Namespace) -> int:
    """Attach, and copy its documents in; its vectors (or this machine's embedding, where the
    embedder differs from the publisher's) follow as `add`'s do."""
    with open_index(args, take_from_background=True) as engine:
        source = engine.attach(args.uri, args.name)
        print(f"attached {printable(source.shared)} (published from {printable(source.path)})")
        args.no_index = False
        code = _run_index(engine, embed=args.wait)
        status = engine.status()
        pending = status.embeddable - status.embedded
        if code == 0 and not args.wait and status.embedder and pending > 0:
            from findling.server.background import continue_in_background

            continue_in_background(engine, args.home)
    return code


class _StopOnSignal:
    """Ctrl-C or SIGTERM during indexing: the first one stops the run at the next file,
    keeps the batch in flight and ends the workers; a second one quits at once."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, _frame: object) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()

    def __enter__(self) -> threading.Event:
        for signum in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
            if signum is not None:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self.event

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def _run_index(engine, embed: bool = True) -> int:
    if not engine.sources():
        print("no folders to index yet: findling add PATH")
        return 0
    progress = ProgressBar()
    with _StopOnSignal() as stop:
        report = engine.index(progress=progress, cancel=stop, embed=embed)
    progress.clear()
    if report.cancelled or (report.embedding is not None and report.embedding.cancelled):
        kept = [f"{report.added + report.updated:,} files read"]
        if report.embedding is not None and (report.embedding.documents or report.embedding.deepened):
            kept = [presentation.embedded_words(report.embedding)]
        print(f"stopped; kept {', '.join(kept)}; `findling index` continues", file=sys.stderr)
        return 130
    print(f"indexed in {report.seconds:.1f}s: {report_counts(report, every=True)}")
    emb = report.embedding
    if emb is not None and emb.skipped:
        print(f"semantic search is off: {presentation.note_text(emb.skipped, 'terminal')}")
    elif emb is not None and (emb.documents or emb.deepened):
        print(f"embedded with {emb.model} in {emb.seconds:.1f}s: {presentation.embedded_words(emb)}")
    if emb is not None and emb.stopped:
        print(f"embedding stopped: {emb.stopped}")
    for folder, meaning, queries, seconds in emb.weighed if emb is not None else ():
        print(self_test_line(printable(folder), meaning, queries, seconds))
    _notes(engine, report)
    if report.failed:
        print("see the failures with: findling status")
    return 0


def _notes(engine, report) -> None:
    """What the run has to say beside its counts: the shared collections, warnings, folders
    whose .gitignore files left everything out."""
    for line in report.shared:
        print(f"shared: {printable(line)}")
    for warning in report.warnings[:20]:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    for folder in engine.status().sources:
        if folder.left_out and not folder.indexed and folder.source.gitignore:
            print(f"to read them: findling add --no-gitignore {printable(folder.source.path)}", file=sys.stderr)


def cmd_index(args: argparse.Namespace) -> int:
    if args.background:
        return _index_in_background(args)
    if args.compact:
        _compact(args)
    with open_index(args, take_from_background=True) as engine:
        if args.repair:
            found = engine.check_index()
            removed = engine.repair_index()
            print(f"repaired: {'; '.join(found) or 'nothing was wrong'} ({removed:,} documents taken out)")
        return _run_index(engine)


def _compact(args: argparse.Namespace) -> None:
    """The index copied compact into its place (store/compaction.py), held by no process meanwhile:
    a background run hands it over; a window or server holding it is named, and nothing changes."""
    from findling.paths import DB_FILENAME, data_home
    from findling.store.compaction import compact

    with open_index(args, take_from_background=True) as engine:  # a background run lets go of it
        if engine.role != "owner":
            raise FindlingError(
                "another Findling (the window, or findling serve) holds the index: close it, then run "
                "findling index --compact again"
            )
    print("compacting the index…", file=sys.stderr, flush=True)
    before, after = compact(data_home(args.home) / DB_FILENAME, settings_of(args).index.memory_limit_mb)
    given = max(0, before - after) / 1e6
    print(f"compacted: {before / 1e6:,.1f} MB -> {after / 1e6:,.1f} MB ({given:,.1f} MB given back)")


def _index_in_background(args: argparse.Namespace) -> int:
    """The detached run `findling add` starts (server/background.py): it embeds what is pending
    unless a window holds the index, and gives the index to any process that asks for it."""
    from findling.server.background import open_for_background

    handle = open_for_background(args.home, settings_of(args))
    if handle is None:
        return 0
    with handle:
        report = handle.index()
    return 0 if not (report.embedding and report.embedding.cancelled) else 130
