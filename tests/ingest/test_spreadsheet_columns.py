"""A spreadsheet row keeps its empty cells' places: its values stood under other columns'
headings (`Lunch\tfree` under `Item\tCost`)."""

from __future__ import annotations

from findling.ingest.extract import extract


def _xlsx(path) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Budget"
    sheet.append(["Item", "Cost", "Note"])
    sheet.append(["Kindergarten fees", 420, "spring"])
    sheet.append(["Lunch", None, "free"])
    sheet["B6"] = "alone in B"  # rows 4 and 5 empty; a row beginning in its second column
    book.save(path)
    return path.read_bytes()


def _ods(path) -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    table = Table(name="Budget")
    for values in (["Item", "Cost", "Note"], ["Lunch", "", "free"]):
        row = TableRow()
        for value in values:
            cell = TableCell()
            if value:
                cell.addElement(P(text=value))
            row.addElement(cell)
        table.addElement(row)
    doc.spreadsheet.addElement(table)
    doc.save(str(path))
    return path.read_bytes()


def test_an_xlsx_row_keeps_its_empty_cells_places(tmp_path):
    text = extract("budget.xlsx", _xlsx(tmp_path / "budget.xlsx")).text
    assert text.splitlines()[-4:] == [
        "Item\tCost\tNote",
        "Kindergarten fees\t420\tspring",
        "Lunch\t\tfree",
        "\talone in B",
    ]


def test_an_ods_row_keeps_its_empty_cells_places(tmp_path):
    text = extract("budget.ods", _ods(tmp_path / "budget.ods")).text
    assert text.splitlines()[-2:] == ["Item\tCost\tNote", "Lunch\t\tfree"]
