"""The definitions in a source file (functions, methods, classes, structs, interfaces...), found
with tree-sitter: each with its qualified name, signature, doc comment and where it lies.

The grammars are the tree-sitter project's own wheels, one per language (the language pack
downloads its grammars at run time, which an offline desktop app cannot rely on). Each is
imported on first use, so a search that reads no code never loads one. A query per language
finds the definition nodes in C; nesting (what a method's class is) comes from their ranges."""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from findling.records import CodeSymbol
from findling.text.code_languages import language_of

# Larger sources are generated or minified: their windows are enough, and parsing them is slow.
MAX_PARSED_BYTES = 1_000_000
MAX_SYMBOLS = 5_000
MAX_DEPTH = 32  # definitions inside definitions, at most
_SIGNATURE_CHARS = 200
_DOC_CHARS = 400


@dataclass(frozen=True)
class _Grammar:
    module: str
    function: str
    query: str  # captures each definition node as its kind
    comment: tuple[str, ...]  # how a line of a doc comment above a definition begins
    sample: tuple[str, str]  # (extension, source defining `f`): the installed app's self-test reads it


_C_FAMILY = ("//", "/*", "*")
_JS_QUERY = """
(function_declaration) @function
(generator_function_declaration) @function
(class_declaration) @class
(method_definition) @method
(variable_declarator value: [(arrow_function) (function_expression)]) @function
"""
_TS_QUERY = (
    _JS_QUERY
    + """
(abstract_class_declaration) @class
(interface_declaration) @interface
(type_alias_declaration) @type
(enum_declaration) @enum
(internal_module) @namespace
"""
)
_C_QUERY = """
(function_definition) @function
(struct_specifier body: (_)) @struct
(union_specifier body: (_)) @struct
(enum_specifier body: (_)) @enum
"""
_GRAMMARS: dict[str, _Grammar] = {
    "python": _Grammar(
        "tree_sitter_python",
        "language",
        "(function_definition) @function (class_definition) @class",
        ("#",),
        ("py", "def f():\n    pass\n"),
    ),
    "javascript": _Grammar("tree_sitter_javascript", "language", _JS_QUERY, _C_FAMILY, ("js", "function f() {}\n")),
    "typescript": _Grammar(
        "tree_sitter_typescript", "language_typescript", _TS_QUERY, _C_FAMILY, ("ts", "function f(): void {}\n")
    ),
    "tsx": _Grammar(
        "tree_sitter_typescript", "language_tsx", _TS_QUERY, _C_FAMILY, ("tsx", "function f() { return <a/>; }\n")
    ),
    "go": _Grammar(
        "tree_sitter_go",
        "language",
        """(function_declaration) @function (method_declaration) @method
           (type_spec type: (struct_type)) @struct (type_spec type: (interface_type)) @interface
           (type_spec type: [(type_identifier) (qualified_type) (generic_type) (function_type) (map_type)
                             (slice_type) (pointer_type) (channel_type) (array_type)]) @type""",
        ("//", "/*", "*"),
        ("go", "package p\nfunc f() {}\n"),
    ),
    "rust": _Grammar(
        "tree_sitter_rust",
        "language",
        """(function_item) @function (function_signature_item) @function (struct_item) @struct
           (enum_item) @enum (trait_item) @trait (impl_item) @impl (mod_item body: (_)) @module
           (macro_definition) @macro (union_item) @struct (type_item) @type""",
        ("//", "/*", "*", "#["),
        ("rs", "fn f() {}\n"),
    ),
    "java": _Grammar(
        "tree_sitter_java",
        "language",
        """(class_declaration) @class (interface_declaration) @interface (enum_declaration) @enum
           (record_declaration) @class (annotation_type_declaration) @interface
           (method_declaration) @method (constructor_declaration) @method""",
        (*_C_FAMILY, "@"),
        ("java", "class f {}\n"),
    ),
    "c": _Grammar("tree_sitter_c", "language", _C_QUERY, _C_FAMILY, ("c", "void f(void) {}\n")),
    "cpp": _Grammar(
        "tree_sitter_cpp",
        "language",
        _C_QUERY + "(class_specifier body: (_)) @class (namespace_definition) @namespace",
        (*_C_FAMILY, "template"),
        ("cc", "void f() {}\n"),
    ),
    "csharp": _Grammar(
        "tree_sitter_c_sharp",
        "language",
        """(class_declaration) @class (struct_declaration) @struct (interface_declaration) @interface
           (enum_declaration) @enum (record_declaration) @class (method_declaration) @method
           (constructor_declaration) @method (property_declaration) @property
           (namespace_declaration) @namespace (file_scoped_namespace_declaration) @namespace""",
        ("///", "//", "/*", "*", "["),
        ("cs", "class f {}\n"),
    ),
    "ruby": _Grammar(
        "tree_sitter_ruby",
        "language",
        "(method) @method (singleton_method) @method (class) @class (module) @module",
        ("#",),
        ("rb", "def f\nend\n"),
    ),
    "bash": _Grammar("tree_sitter_bash", "language", "(function_definition) @function", ("#",), ("sh", "f() { :; }\n")),
}
# Imported by name on first use: the installer bundles them by this list.
GRAMMAR_MODULES = tuple(sorted({g.module for g in _GRAMMARS.values()}))
# Kinds that hold others: a function inside one is its method, and its name qualifies theirs.
_CONTAINERS = {"class", "struct", "interface", "enum", "trait", "impl", "module", "namespace"}
_TYPE_ARGS = re.compile(r"<[^<>]*>")
_SPACES = re.compile(r"\s+")

_local = threading.local()


def _parser(language: str) -> tuple[Any, Any]:  # (Parser, Query): tree_sitter is imported on first use
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    found = cache.get(language)
    if found is None:
        from tree_sitter import Language, Parser, Query

        grammar = _GRAMMARS[language]
        lang = Language(getattr(importlib.import_module(grammar.module), grammar.function)())
        found = cache[language] = (Parser(lang), Query(lang, grammar.query))
    return found


def _text(node: Any, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _declared_name(node: Any, source: bytes) -> str:
    """A C or C++ function's name, under its pointer and reference declarators."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return ""
    name = declarator.child_by_field_name("declarator")
    return _text(name, source) if name is not None else ""


def _receiver(node: Any, source: bytes) -> str:
    """The type a Go method belongs to: `func (s *Server) Serve()` -> Server."""
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    for param in receiver.named_children:
        kind = param.child_by_field_name("type")
        if kind is not None:
            return _TYPE_ARGS.sub("", _text(kind, source)).lstrip("*").strip()
    return ""


def _name(node: Any, kind: str, source: bytes) -> str:
    if node.type == "function_definition" and node.child_by_field_name("declarator") is not None:
        return _declared_name(node, source)
    if kind == "impl":
        trait = node.child_by_field_name("trait")
        own = node.child_by_field_name("type")
        name = _text(own, source) if own is not None else ""
        return _TYPE_ARGS.sub("", name) + (f" ({_text(trait, source)})" if trait is not None else "")
    name_node = node.child_by_field_name("name")
    return _text(name_node, source) if name_node is not None else ""


def _signature(node: Any, source: bytes, first_line: bool = False) -> str:
    """The definition up to its body, on one line: `def parse_known_args(self, args=None):`."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and body.start_byte > node.start_byte else node.end_byte
    head = source[node.start_byte : end].decode("utf-8", "replace")
    if body is None or first_line:
        head = head.split("\n", 1)[0]
    head = _SPACES.sub(" ", head).strip().rstrip("{").strip()
    return head[:_SIGNATURE_CHARS]


def _python_docstring(node: Any, source: bytes) -> str:
    body = node.child_by_field_name("body")
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children or first.named_children[0].type != "string":
        return ""
    raw = _text(first.named_children[0], source)
    return raw.strip("rRbBuUfF").strip("\"'").strip()


class _Offsets:
    """Byte offsets of the UTF-8 source as character offsets of the text."""

    def __init__(self, text: str) -> None:
        self._ascii = text.isascii()
        if not self._ascii:
            points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            widths = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
            self._starts = np.concatenate(([0], np.cumsum(widths)))

    def char(self, byte: int) -> int:
        if self._ascii:
            return byte
        return int(np.searchsorted(self._starts, byte, side="right")) - 1


def _leading_comments(text: str, start: int, markers: tuple[str, ...]) -> tuple[int, str]:
    """Where the comment block right above `start` begins (no blank line between), and its
    text without the comment markers."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start, ""  # code before the definition on its line
    lines: list[str] = []
    at = line_start
    while at > 0:
        prev_start = text.rfind("\n", 0, at - 1) + 1
        line = text[prev_start : at - 1].strip()
        if not line or not line.startswith(markers):
            break
        lines.append(line)
        at = prev_start
    if not lines:
        return start, ""
    words = [ln.lstrip("/#*!").rstrip("*/").strip() for ln in reversed(lines)]
    return at, " ".join(w for w in words if w and not w.startswith(("[", "@")))


def find_symbols(text: str, ext: str) -> tuple[CodeSymbol, ...]:
    """The definitions in a source file's text, in order; () for a language without a grammar
    or a file too large to parse."""
    language = language_of(ext)
    if language is None:
        return ()
    source = text.encode("utf-8", "surrogatepass")
    if len(source) > MAX_PARSED_BYTES:
        return ()
    parser, query = _parser(language)
    from tree_sitter import QueryCursor

    tree = parser.parse(source)
    found: dict[int, tuple[str, Any]] = {}  # node id -> (kind, node): one pattern per node
    for kind, nodes in QueryCursor(query).captures(tree.root_node).items():
        for node in nodes:
            found.setdefault(node.id, (kind, node))
    ordered = sorted(found.values(), key=lambda kn: (kn[1].start_byte, -kn[1].end_byte))
    read = _Reader(text, source, language)
    symbols: list[CodeSymbol] = []
    scopes: list[tuple[int, str, str]] = []  # (end byte, qualified name, kind) of the open definitions
    for kind, node in ordered:
        while scopes and scopes[-1][0] < node.end_byte:
            scopes.pop()
        if len(scopes) >= MAX_DEPTH:
            continue  # generated nesting: its outer definitions name it well enough
        symbol = read.symbol(node, kind, scopes[-1] if scopes else None)
        if symbol is None:
            continue
        symbols.append(symbol)
        scopes.append((node.end_byte, symbol.qualname, symbol.kind))  # a function's own functions are named under it
        if len(symbols) >= MAX_SYMBOLS:
            break
    return tuple(symbols)


class _Reader:
    """One definition node as a symbol, named within its owner."""

    def __init__(self, text: str, source: bytes, language: str) -> None:
        self.text = text
        self.source = source
        self.language = language
        self.markers = _GRAMMARS[language].comment
        self.offsets = _Offsets(text)

    def symbol(self, node: Any, kind: str, owner: tuple[int, str, str] | None) -> CodeSymbol | None:
        source = self.source
        name = _name(node, kind, source).strip()
        if not name:
            return None
        if self.language == "go" and kind == "method":
            receiver = _receiver(node, source)
            qualified = f"{receiver}.{name}" if receiver else name
        else:
            qualified = f"{owner[1]}.{name}" if owner else name
        if kind == "function" and owner is not None and owner[2] in _CONTAINERS - {"module", "namespace"}:
            kind = "method"
        anchor = node
        parent = node.parent
        if parent is not None and parent.type in ("decorated_definition", "template_declaration", "export_statement"):
            anchor = parent  # decorators, `template <...>` and `export` belong to the definition
        if node.type in ("variable_declarator", "type_spec") and parent is not None and len(parent.named_children) == 1:
            anchor = parent  # `const f = () => ...`, `type Foo struct`: the whole declaration
        start, comment = _leading_comments(self.text, self.offsets.char(anchor.start_byte), self.markers)
        doc = _python_docstring(node, source) if self.language == "python" else comment
        return CodeSymbol(
            name=name if kind == "impl" else name.split(".")[-1].split("::")[-1],
            qualname=qualified.replace("::", "."),
            kind=kind,
            start=start,
            end=self.offsets.char(max(node.end_byte, anchor.end_byte)),
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            signature=_signature(node, source, first_line=self.language == "ruby"),
            doc=_SPACES.sub(" ", doc)[:_DOC_CHARS],
        )


def grammar_check() -> str:
    """Every grammar loads and finds the definition in its sample (the bundled app's self-test)."""
    failed = [
        lang for lang, g in _GRAMMARS.items() if [s.name for s in find_symbols(g.sample[1], g.sample[0])] != ["f"]
    ]
    if failed:
        raise RuntimeError(f"no definition found in {', '.join(failed)}")
    return f"{len(_GRAMMARS)} grammars read their samples"
