"""Query expansion with a small instruct model: keyword variants for BM25, rephrasings
for the vector lane, and a short hypothetical answer (HyDE), from one prompt in a line
format that is easy to repair. Malformed output is repaired or dropped, never raised."""

from __future__ import annotations

import re
from dataclasses import dataclass

from findling.models.generator import ChatModel, chatml

_ENGLISH = (
    "You rewrite search queries for a document search engine. For the query, write exactly:\n"
    "lex: <keywords for a keyword search>\nlex: <other keywords>\n"
    "sem: <the question rephrased>\nsem: <another rephrasing>\n"
    "hyde: <two sentences that would answer it, as a document would>\n"
    "Write nothing else."
)
_MULTILINGUAL = (
    "You rewrite search queries. Answer in the language of the query, in exactly this format:\n"
    "lex: <keywords>\nlex: <other keywords>\nsem: <rephrasing>\nsem: <another rephrasing>\n"
    "hyde: <two sentences answering it>\nWrite nothing else."
)
_EXAMPLE_QUERY = "how do I undo the last git commit"
_EXAMPLE_ANSWER = (
    "lex: git undo last commit\nlex: git reset HEAD~1 revert commit\n"
    "sem: revert the most recent commit in a git repository\nsem: remove my previous git commit\n"
    "hyde: Use git reset --soft HEAD~1 to undo the last commit and keep its changes staged. "
    "git revert HEAD makes a new commit that reverses it."
)
_LINE = re.compile(r"^\s*(?:[-*\d.)]+\s*)?(lex|sem|hyde|keywords?|rephras\w*|answer)\s*[:\-]\s*(.+)$", re.I)


@dataclass(frozen=True)
class Expansion:
    lexical: tuple[str, ...]
    semantic: tuple[str, ...]
    hyde: str
    raw: str  # the model's output, for the explain panel

    @property
    def empty(self) -> bool:
        return not (self.lexical or self.semantic or self.hyde)


def messages_for(query: str, multilingual: bool = False) -> list[tuple[str, str]]:
    system = _MULTILINGUAL if multilingual else _ENGLISH
    return [("system", system), ("user", _EXAMPLE_QUERY), ("assistant", _EXAMPLE_ANSWER), ("user", query)]


def prompt_for(query: str, multilingual: bool = False) -> str:
    """The conversation as a local ChatML model reads it."""
    return chatml(messages_for(query, multilingual))


def parse_expansion(raw: str, query: str, lexical: int = 2, semantic: int = 2) -> Expansion:
    """Read `lex:/sem:/hyde:` lines, forgiving bullets, numbering and synonyms for the tags;
    drop empty, duplicate and query-identical variants; cap each list."""
    lex: list[str] = []
    sem: list[str] = []
    hyde_parts: list[str] = []
    seen = {query.strip().lower()}
    current = None
    for line in raw.splitlines():
        match = _LINE.match(line)
        if match:
            tag, text = match.group(1).lower(), match.group(2).strip().strip('"').strip()
            current = (
                "lex" if tag.startswith(("lex", "keyword")) else "sem" if tag.startswith(("sem", "rephras")) else "hyde"
            )
        elif current == "hyde" and line.strip():
            hyde_parts.append(line.strip())  # a HyDE passage may run over several lines
            continue
        else:
            continue
        if not text or len(text) > 400:
            continue
        if current == "hyde":
            hyde_parts.append(text)
        elif text.lower() not in seen:
            seen.add(text.lower())
            (lex if current == "lex" else sem).append(text)
    return Expansion(tuple(lex[:lexical]), tuple(sem[:semantic]), " ".join(hyde_parts)[:1200], raw)


def expand(
    generator: ChatModel, query: str, lexical: int = 2, semantic: int = 2, multilingual: bool = False
) -> Expansion:
    raw = generator.chat(messages_for(query, multilingual), max_new_tokens=160)
    return parse_expansion(raw, query, lexical, semantic)
