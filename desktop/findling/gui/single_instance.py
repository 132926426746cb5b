"""One window per index: a second launch asks the first to come forward, then exits, so
the database is never opened twice."""

from __future__ import annotations

import hashlib

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket


def server_name(home: str) -> str:
    return "findling-" + hashlib.sha1(home.encode("utf-8")).hexdigest()[:16]


def ask_running_instance(home: str, timeout_ms: int = 500) -> bool:
    """True when another Findling for this index answered (and was told to show itself)."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(home))
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(b"activate\n")
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    activate = Signal()

    def __init__(self, home: str) -> None:
        super().__init__()
        self._server = QLocalServer(self)
        name = server_name(home)
        QLocalServer.removeServer(name)  # a stale socket from a crashed run
        self._server.listen(name)
        self._server.newConnection.connect(self._accept)

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).strip() == b"activate":
            self.activate.emit()
        socket.disconnectFromServer()

    def close(self) -> None:
        self._server.close()
