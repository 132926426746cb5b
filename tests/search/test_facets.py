"""Facet counts and orders over a result list."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from findling.records import Hit
from findling.search.facets import date_range, facet_counts, folder_label, sort_hits, type_group

NOW = 1_700_000_000.0
DAY = 86400.0


def _hit(path, ext, age_days, score=0.5):
    return Hit(doc_id=hash(path) % 10_000, path=path, title=path, score=score, mtime=NOW - age_days * DAY, ext=ext)


def test_counts_by_type_date_and_folder():
    hits = [
        _hit("/a/x.md", "md", 0.5),
        _hit("/a/y.pdf", "pdf", 3),
        _hit("/a/sub/z.md", "md", 40),
        _hit("/b/w.rs", "rs", 800),
        _hit("/c/v.bin", "bin", 2),
        _hit("/c/photo.jpg", "jpg", 2),
    ]
    facets = facet_counts(hits, ["/a", "/a/sub", "/b"], NOW)
    assert facets["type"] == [("Markdown", 2), ("Documents", 1), ("Code", 1), ("Other", 1), ("Pictures", 1)]
    assert facets["modified"] == [("Today", 1), ("Past week", 3), ("Past year", 1), ("Older", 1)]
    assert facets["folder"] == [("/a", 2), ("/a/sub", 1), ("/b", 1)]  # the narrowest added folder counts


def test_orders():
    hits = [_hit("/a/b.md", "md", 5, 0.9), _hit("/a/a.md", "md", 1, 0.5), _hit("/a/C.md", "md", 5, 0.4)]
    assert [h.path for h in sort_hits(hits, "Relevance")] == ["/a/b.md", "/a/a.md", "/a/C.md"]
    assert [h.path for h in sort_hits(hits, "Newest first")] == ["/a/a.md", "/a/b.md", "/a/C.md"]
    assert [h.path for h in sort_hits(hits, "Name")] == ["/a/a.md", "/a/b.md", "/a/C.md"]


@given(st.lists(st.tuples(st.sampled_from(["md", "pdf", "txt", "zip", ""]), st.floats(0, 3000)), max_size=30))
def test_every_result_is_counted_once_per_facet(items):
    hits = [_hit(f"/f/{i}.{ext}", ext, age) for i, (ext, age) in enumerate(items)]
    facets = facet_counts(hits, ["/f"], NOW)
    assert sum(n for _, n in facets["type"]) == len(hits) == sum(n for _, n in facets["modified"])
    assert sum(n for _, n in facets["folder"]) == len(hits)
    assert all(
        type_group(h.ext) in dict(facets["type"]) and date_range(h.mtime, NOW) in dict(facets["modified"]) for h in hits
    )


def test_a_file_compressed_on_its_own_is_a_document_of_its_inner_type(tmp_path):
    """The Linux kernel's .rst.gz sources counted as archives, and the Text filter left them
    out: the facet and the filter go by the inner type; a compressed tar stays an archive."""
    import gzip
    import io
    import tarfile

    from findling.engine import Engine
    from findling.records import Filters, SearchMode, SearchRequest
    from findling.search.facets import TYPE_GROUPS, type_extension
    from findling.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cgroups.rst.gz").write_bytes(gzip.compress(b"Control groups\n==============\n\nThe memory controller.\n"))
    (docs / "limits.txt").write_text("The memory controller sets limits.\n")
    (docs / "changelog.gz").write_bytes(gzip.compress(b"memory controller: fixed a leak\n"))
    member = b"The memory controller, archived.\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("old/notes.md")
        info.size = len(member)
        tar.addfile(info, io.BytesIO(member))
    (docs / "backup.tar.gz").write_bytes(buffer.getvalue())
    assert [type_extension(str(docs / n), "gz") for n in ("cgroups.rst.gz", "changelog.gz", "backup.tar.gz")] == [
        "rst",
        "gz",
        "gz",
    ]
    settings = Settings()
    settings.index.workers = 1
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)

        def names(query: str, group: str = "Any type") -> set[str]:
            only = Filters(extensions=TYPE_GROUPS[group])
            return {h.path.split("/")[-1] for h in engine.find(SearchRequest(query, filters=only)).hits}

        assert names("memory controller", "Text") == {"cgroups.rst.gz", "limits.txt"}
        assert names("memory controller", "Archives") == {"changelog.gz"}  # the tar's member is Markdown
        assert names("memory controller", "Markdown") == {"notes.md"}
        assert names("memory ext:rst") == {"cgroups.rst.gz"}
        hits = engine.find(SearchRequest("memory controller", SearchMode.KEYWORD)).hits
        counts = dict(facet_counts(hits, [str(docs)], NOW)["type"])
        assert counts["Text"] == 2


def test_one_folder_is_counted_by_its_subfolders_a_level_at_a_time():
    """Issue 62, 7: narrowing the kernel to arch/x86 took typing `folder:`; the In facet now
    offers the next level down wherever every result is in one folder, or the search is narrowed."""
    hits = [
        _hit("/k/linux/arch/x86/mm/fault.c", "c", 1),
        _hit("/k/linux/arch/x86/entry.S", "S", 1),
        _hit("/k/linux/arch/arm/mm.c", "c", 1),
        _hit("/k/linux/Documentation/mm.rst", "rst", 1),
        _hit("/k/linux/README", "", 1),
    ]
    top = facet_counts(hits, ["/k/linux"], NOW)["folder"]
    assert top == [("/k/linux/arch", 3), ("/k/linux/Documentation", 1), ("/k/linux", 1)]
    inside = facet_counts(hits[:3], ["/k/linux"], NOW, within="/k/linux/arch")["folder"]
    assert inside == [("/k/linux/arch/x86", 2), ("/k/linux/arch/arm", 1)]
    assert folder_label("/k/linux/arch/x86", ["/k/linux", "/elsewhere"]) == "linux/arch/x86"
    assert folder_label("/k/linux", ["/k/linux"]) == "/k/linux"
