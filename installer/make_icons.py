"""Draw Findling's icon with Qt and write resources/icons/findling.{png,ico,icns}.
ICO and ICNS are written by hand around PNG data (both formats accept PNG entries), so no
image library beyond Qt is needed.   python installer/make_icons.py"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPen  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render(size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 256
    p.setBrush(QColor("#2f5d9e"))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(QRectF(8 * s, 8 * s, 240 * s, 240 * s), 48 * s, 48 * s)
    p.setBrush(QColor("#ffffff"))
    for i, width in enumerate((120, 150, 96)):  # lines of a page
        p.drawRoundedRect(QRectF(44 * s, (58 + i * 34) * s, width * s, 16 * s), 8 * s, 8 * s)
    pen = QPen(QColor("#ffd34d"), 22 * s)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawEllipse(QPointF(150 * s, 150 * s), 46 * s, 46 * s)  # the lens
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.drawLine(QPointF(184 * s, 184 * s), QPointF(218 * s, 218 * s))
    p.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)


def write_ico(path: Path, pngs: dict[int, bytes]) -> None:
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(blob), offset + len(blobs))
        blobs += blob
    path.write_bytes(header + entries + blobs)


def write_icns(path: Path, pngs: dict[int, bytes]) -> None:
    kinds = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}
    body = b"".join(kinds[size] + struct.pack(">I", 8 + len(png)) + png for size, png in sorted(pngs.items()))
    path.write_bytes(b"icns" + struct.pack(">I", 8 + len(body)) + body)


def main() -> int:
    QGuiApplication(sys.argv[:1])
    OUT.mkdir(parents=True, exist_ok=True)
    pngs = {size: render(size) for size in (16, 32, 64, 128, 256, 512)}
    (OUT / "findling.png").write_bytes(pngs[256])
    write_ico(OUT / "findling.ico", {k: v for k, v in pngs.items() if k <= 256})
    write_icns(OUT / "findling.icns", pngs)
    print(f"wrote icons to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
