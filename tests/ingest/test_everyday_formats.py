"""Every file a desktop holds: spreadsheets, slides, OpenDocument, RTF, notebooks and mail, each
made with its format's own library and holding one unusual word. One `findling add` finds every
word, the window previews each, and no base64 (an image in a notebook, an e-mail attachment)
ever reaches the index."""

from __future__ import annotations

import base64
import json
import mailbox
import os
import subprocess
import sys
from email.message import EmailMessage

import pytest

from findling.engine import Engine
from findling.pathnames import container_file
from findling.records import SearchMode, SearchRequest
from tests.helpers import draw_page, make_docx, write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
BASE64_PNG = base64.b64encode(PNG * 40).decode()  # long enough to be tokenized if it ever got in

# file name -> the words only it holds
WORDS = {
    "budget.xlsx": ["xlsxunicorn", "sheetzebra"],
    "deck.pptx": ["pptxtitleword", "pptxbodyword", "pptxnotesword", "pptxtableword"],
    "letter.odt": ["odtwalrus", "odtheading"],
    "figures.ods": ["odsnarwhal"],
    "talk.odp": ["odpplatypus"],
    "memo.rtf": ["rtfpelican"],
    "analysis.ipynb": ["notebookmarkdown", "notebookcode", "notebookprinted"],
    "message.eml": ["emlquokka", "attachedaxolotl"],
    "archive.mbox": ["mboxfirstword", "mboxsecondword"],
    "bundle.zip": ["zipmemberword", "zippedsheetword"],
    "sources.tar.gz": ["tarmemberword"],
    "notes.txt.gz": ["gzippedword"],
    "screenshot.png": ["florbulate"],  # words only in the picture: read by OCR
    "scan.pdf": ["quindecagon"],  # a scanned page: a picture, no text layer
    "photo.jpg": ["exifmarmoset"],  # the description in its EXIF
    "trip.7z": ["sevenzipword"],
}


def _xlsx(path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Sheetzebra"
    book.properties.creator = "Ada Xlsxauthor"
    sheet.append(["item", "cost"])
    sheet.append(["xlsxunicorn", 42])
    book.save(path)


def _pptx(path):
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.author = "Grace Pptxauthor"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "pptxtitleword"
    slide.placeholders[1].text = "pptxbodyword"
    slide.notes_slide.notes_text_frame.text = "pptxnotesword"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    table.cell(1, 1).text = "pptxtableword"
    deck.save(path)


def _odf(path, kind):
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation, OpenDocumentSpreadsheet, OpenDocumentText
    from odf.style import MasterPage, PageLayout
    from odf.table import Table, TableCell, TableRow
    from odf.text import H, P

    if kind == "odt":
        from odf.dc import Creator

        doc = OpenDocumentText()
        doc.meta.addElement(Creator(text="Odtauthor Person"))
        doc.text.addElement(H(outlinelevel=1, text="Odtheading"))
        doc.text.addElement(P(text="A letter about the odtwalrus."))
    elif kind == "ods":
        doc = OpenDocumentSpreadsheet()
        table = Table(name="Figures")
        row = TableRow()
        cell = TableCell()
        cell.addElement(P(text="odsnarwhal"))
        row.addElement(cell)
        table.addElement(row)
        doc.spreadsheet.addElement(table)
    else:
        doc = OpenDocumentPresentation()
        layout = PageLayout(name="layout")
        doc.automaticstyles.addElement(layout)
        master = MasterPage(name="master", pagelayoutname=layout)
        doc.masterstyles.addElement(master)
        page = Page(name="Opening", masterpagename=master)
        frame = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text="The odpplatypus slide"))
        frame.addElement(box)
        page.addElement(frame)
        doc.presentation.addElement(page)
    doc.save(str(path))


def _notebook(path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "The notebookmarkdown cell."]},
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": ["notebookcode = 1\n", "print('notebookprinted')"],
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["notebookprinted\n"]},
                    {"output_type": "display_data", "metadata": {}, "data": {"image/png": BASE64_PNG}},
                ],
            },
        ],
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _message(subject, body, attachments=()):
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = "Ada <ada@example.org>"
    message["To"] = "bob@example.org"
    message["Date"] = "Tue, 24 Nov 2026 10:00:00 +0000"
    message.set_content(body)
    for name, data, maintype, subtype in attachments:
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return message


def _mail(folder, tmp_path):
    docx = make_docx(tmp_path / "attached.docx", "Report", "Figures", ["The attachedaxolotl report."])
    eml = _message(
        "Quarterly numbers",
        "Hello, the emlquokka figures are attached.",
        [
            (
                "report.docx",
                docx.read_bytes(),
                "application",
                "vnd.openxmlformats-officedocument.wordprocessingml.document",
            ),
            ("chart.png", PNG * 40, "image", "png"),
        ],
    )
    (folder / "message.eml").write_bytes(bytes(eml))
    box = mailbox.mbox(str(folder / "archive.mbox"))
    box.add(_message("First", "The mboxfirstword message."))
    box.add(_message("Second", "The mboxsecondword message.", [("picture.png", PNG * 40, "image", "png")]))
    box.close()


def _archives(folder, tmp_path):
    import gzip
    import tarfile
    import zipfile

    from openpyxl import Workbook

    sheet_path = tmp_path / "inner.xlsx"
    book = Workbook()
    book.active.append(["zippedsheetword"])
    book.save(sheet_path)
    with zipfile.ZipFile(folder / "bundle.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("docs/inner.md", "# Inner\n\nThe zipmemberword lives here.")
        z.write(sheet_path, "data/inner.xlsx")
        z.writestr("images/photo.png", PNG * 40)
    member = tmp_path / "readme.txt"
    member.write_text("A tarmemberword in a tarball.")
    with tarfile.open(folder / "sources.tar.gz", "w:gz") as tar:
        tar.add(member, arcname="project/readme.txt")
    (folder / "notes.txt.gz").write_bytes(gzip.compress(b"Some gzippedword notes."))
    import py7zr

    with py7zr.SevenZipFile(folder / "trip.7z", "w") as archive:
        archive.writestr(b"# Trip\n\nThe sevenzipword itinerary.", "notes/trip.md")


def _docx(path):
    import docx

    make_docx(path, "Plans", "Plans", ["Nothing unusual in the text."])
    document = docx.Document(str(path))
    document.core_properties.author = "Docxauthor Writer"
    document.save(str(path))


def _photo(path):
    from PIL import Image

    exif = Image.Exif()
    exif[0x010E] = "An exifmarmoset on the balcony"  # ImageDescription
    Image.new("RGB", (64, 48), "teal").save(path, exif=exif)


def make_everyday_folder(folder, tmp_path):
    folder.mkdir(parents=True, exist_ok=True)
    _docx(folder / "plans.docx")
    _xlsx(folder / "budget.xlsx")
    _pptx(folder / "deck.pptx")
    for kind, name in (("odt", "letter.odt"), ("ods", "figures.ods"), ("odp", "talk.odp")):
        _odf(folder / name, kind)
    write(
        folder / "memo.rtf",
        r"{\rtf1\ansi\deff0 {\fonttbl {\f0 Times;}}\f0\fs24 A memo about the \b rtfpelican\b0 .\par}",
    )
    _notebook(folder / "analysis.ipynb")
    _mail(folder, tmp_path)
    _archives(folder, tmp_path)
    draw_page(["The florbulate dashboard"], size=(900, 240), mode="RGB").save(folder / "screenshot.png")
    draw_page(["Your quindecagon permit was approved"]).save(folder / "scan.pdf", resolution=150)
    _photo(folder / "photo.jpg")
    (folder / "outlook.msg").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    (folder / "old.rar").write_bytes(b"Rar!\x1a\x07\x01\x00" + b"\x00" * 56)
    (folder / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + b"olddocword")
    return folder


@pytest.fixture
def everyday(tmp_path, settings, ocr_installed):
    folder = make_everyday_folder(tmp_path / "desk", tmp_path)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        report = engine.index()
        yield engine, folder, report


def test_every_word_of_every_kind_is_found(everyday):
    engine, folder, report = everyday
    assert report.failed == 0, engine.status().problems
    for name, words in WORDS.items():
        for word in words:
            hits = engine.find(SearchRequest(word, SearchMode.KEYWORD)).hits
            # an archive's member is found under its own address: the archive is the file
            assert [os.path.basename(container_file(h.path)) for h in hits] == [name], (word, hits)


def test_no_base64_reaches_the_index(everyday):
    engine, _folder, _report = everyday
    for piece in (BASE64_PNG[:24], BASE64_PNG[100:130], "iVBORw0KGgo"):
        assert engine.find(SearchRequest(piece, SearchMode.KEYWORD)).hits == (), piece
    (message,) = engine.find(SearchRequest("emlquokka", SearchMode.KEYWORD)).hits
    text = engine.document_text(message.doc_id).text
    assert "Attachment: report.docx\n" in text and "Attachment: chart.png (a kind Findling does not read)" in text
    assert "base64" not in text.lower() and "iVBORw0KGgo" not in text
    # an attachment is a document of its own, under its message
    (attached,) = engine.find(SearchRequest("attachedaxolotl", SearchMode.KEYWORD)).hits
    assert attached.path == f"{message.path} › report.docx" and attached.title == "Report"


def test_a_message_attached_to_a_message_is_a_document(tmp_path, settings):
    inner = _message(
        "Budget figures", "The forwardedpangolin numbers.", [("sheet.txt", b"innersheetword", "text", "plain")]
    )
    outer = _message("Fwd: Budget figures", "See the message below.")
    outer.add_attachment(inner)
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "forward.eml").write_bytes(bytes(outer))
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        message = str(folder / "forward.eml")
        (hit,) = engine.find(SearchRequest("forwardedpangolin", SearchMode.KEYWORD)).hits
        assert hit.path == f"{message} › Budget figures.eml" and hit.title == "Budget figures"
        (sheet,) = engine.find(SearchRequest("innersheetword", SearchMode.KEYWORD)).hits
        assert sheet.path == f"{message} › Budget figures.eml › sheet.txt"
        assert "Attachment: Budget figures.eml" in engine.get(message).text


def test_a_mailbox_is_a_listing_of_its_messages(everyday):
    engine, folder, _report = everyday
    box = str(folder / "archive.mbox")
    (first,) = engine.find(SearchRequest("mboxfirstword", SearchMode.KEYWORD)).hits
    assert first.path == f"{box} › 1. First.eml" and first.title == "First" and first.author == "Ada <ada@example.org>"
    assert first.mtime == 1_795_514_400  # its Date header: the date filters see when it was sent
    (second,) = engine.find(SearchRequest("mboxsecondword", SearchMode.KEYWORD)).hits
    assert second.path == f"{box} › 2. Second.eml"
    listing = engine.get(box).text.splitlines()
    assert listing == [
        "1. First · Ada <ada@example.org> · Tue, 24 Nov 2026 10:00:00 +0000",
        "2. Second · Ada <ada@example.org> · Tue, 24 Nov 2026 10:00:00 +0000",
    ]
    assert [h.path for h in engine.find(SearchRequest("mboxsecondword ext:eml", SearchMode.KEYWORD)).hits] == [
        second.path
    ]


def test_archive_members_are_documents_under_their_addresses(everyday):
    engine, folder, _report = everyday
    bundle = str(folder / "bundle.zip")
    (hit,) = engine.find(SearchRequest("zipmemberword", SearchMode.KEYWORD)).hits
    assert hit.path == f"{bundle} › docs/inner.md" and hit.title == "Inner" and hit.ext == "md"
    assert engine.document_text(hit.doc_id).text.startswith("# Inner\n")  # its own headings, its own text
    (sheet,) = engine.find(SearchRequest("zippedsheetword", SearchMode.KEYWORD)).hits
    assert sheet.path == f"{bundle} › data/inner.xlsx"
    (tarred,) = engine.find(SearchRequest("tarmemberword", SearchMode.KEYWORD)).hits
    assert tarred.path == f"{folder / 'sources.tar.gz'} › project/readme.txt"
    # the archive itself: a listing of what it holds, naming what is not read
    listing = engine.get(bundle).text
    unread = "images/photo.png (a kind Findling does not read)"
    assert listing.splitlines() == ["docs/inner.md", "data/inner.xlsx", unread]
    # a member is fetched by its address and by its docid, as a file is
    member = engine.get(hit.path).text
    assert "zipmemberword" in member and engine.get(f"#{hit.docid}").text == member
    assert engine.find(SearchRequest("zipmemberword ext:md", SearchMode.KEYWORD)).hits[0].path == hit.path


AUTHORS = {
    "plans.docx": "Docxauthor Writer",
    "budget.xlsx": "Ada Xlsxauthor",
    "deck.pptx": "Grace Pptxauthor",
    "letter.odt": "Odtauthor Person",
    "message.eml": "Ada <ada@example.org>",
}


def test_authors_are_found_by_their_words_and_filtered_by_author(everyday):
    engine, _folder, _report = everyday

    def names(query):
        return sorted(os.path.basename(h.path) for h in engine.find(SearchRequest(query, SearchMode.KEYWORD)).hits)

    for name, author in AUTHORS.items():
        word = author.split()[1] if name != "message.eml" else "ada"
        assert name in names(word), (name, word)
        hit = next(
            h for h in engine.find(SearchRequest(word, SearchMode.KEYWORD, limit=50)).hits if h.path.endswith(name)
        )
        assert hit.author == author
    assert names("author:xlsxauthor") == ["budget.xlsx"]  # a filter alone lists what it lets through
    assert names("ada author:xlsxauthor") == ["budget.xlsx"]
    # the message and each message of the mailbox: Ada sent them all
    assert names("ada author:example.org") == [
        "archive.mbox › 1. First.eml",
        "archive.mbox › 2. Second.eml",
        "message.eml",
    ]
    assert names("slide title:quarterly") == [] and names("quokka title:quarterly") == []
    assert names("emlquokka title:quarterly") == ["message.eml"]
    # an archive's member goes by its own name, as Recoll's filename: does
    assert names("zipmemberword name:inner") == ["inner.md"] and names("zipmemberword name:deck") == []


def test_legacy_office_files_are_listed_with_why(everyday):
    engine, folder, _report = everyday
    problems = {os.path.basename(p.path): p for p in engine.status().problems}
    assert problems["old.doc"].status == "skipped" and "legacy Word format" in problems["old.doc"].error
    assert engine.find(SearchRequest("olddocword", SearchMode.KEYWORD)).hits == ()
    assert problems["old.rar"].status == "skipped" and "RAR archive" in problems["old.rar"].error
    assert problems["outlook.msg"].status == "skipped" and "saved as .eml" in problems["outlook.msg"].error


def test_titles_and_structure(everyday):
    engine, _folder, _report = everyday

    def text_of(word):
        hit = engine.find(SearchRequest(word, SearchMode.KEYWORD)).hits[0]
        return hit.title, engine.document_text(hit.doc_id).text

    title, text = text_of("emlquokka")
    assert title == "Quarterly numbers" and "From: Ada <ada@example.org>" in text
    _title, text = text_of("pptxbodyword")
    assert "## Slide 1: pptxtitleword" in text and "Notes: pptxnotesword" in text
    _title, text = text_of("xlsxunicorn")
    assert "# Sheetzebra" in text and "xlsxunicorn\t42" in text
    title, _text = text_of("notebookmarkdown")
    assert title == "Analysis"


@pytest.mark.slow
def test_one_findling_add_finds_every_word(tmp_path, ocr_installed):
    folder = make_everyday_folder(tmp_path / "desk", tmp_path)
    env = {**os.environ, "FINDLING_HOME": str(tmp_path / "clihome"), "NO_COLOR": "1"}

    def findling(*args):
        proc = subprocess.run(
            [sys.executable, "-m", "findling", *args], env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "0 failed" in findling("add", str(folder))
    for name, words in WORDS.items():
        for word in words:
            found = json.loads(findling("search", word, "--json"))["results"]
            assert [os.path.basename(container_file(r["path"])) for r in found] == [name], word
