"""The Answer pane above the results: a question asked with Enter is answered from the files, each
sentence shown as soon as it is checked, each [n] a link to the passage it rests on. A new
question cancels the answer under way (AnswerController); the pane owns its widgets only."""

from __future__ import annotations

import html
import re
import threading

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from findling.answer.sentences import with_citations
from findling.engine import Engine
from findling.faces.presentation import answer_said
from findling.gui.tasks import progress_callback, run_task
from findling.records import Answer, AnswerSentence, Citation, Filters

_QUESTION_START = re.compile(
    r"^(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have|had)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Whether the search field holds a question to answer: it ends with "?", or it begins as a
    question does and runs to four words or more ("how do I cancel the lease"). Keywords
    ("lease cancel") and names are searched, not answered."""
    words = text.split()
    if not words or text.lstrip().startswith(('"', "sym:")):
        return False
    return text.rstrip().endswith("?") and len(words) >= 2 or (bool(_QUESTION_START.match(text)) and len(words) >= 4)


class AnswerController(QObject):
    """Answers on a pool thread, one at a time: a new question sets the old one's cancel, and an
    older answer's sentences never reach the pane."""

    sentence = Signal(object)  # AnswerSentence, checked, to show now
    answered = Signal(object)  # Answer, whole
    failed = Signal(str)

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self._generation = 0
        self._cancel = threading.Event()

    def ask(self, question: str, filters: Filters) -> None:
        self.cancel()
        generation = self._generation
        cancel = self._cancel
        engine = self.engine

        def shown(sentence: AnswerSentence) -> None:
            if generation == self._generation:
                self.sentence.emit(sentence)

        def done(answer: Answer) -> None:
            if generation == self._generation and not answer.cancelled:
                self.answered.emit(answer)

        def failed(exc: BaseException) -> None:
            if generation == self._generation:
                from findling.gui.search import error_text

                self.failed.emit(error_text(exc))

        on_sentence = progress_callback(shown)
        run_task(lambda: engine.ask(question, filters, on_sentence, cancel), done, failed)

    def cancel(self) -> None:
        """The answer under way stops at its next token; what it sends later is dropped."""
        self._cancel.set()
        self._cancel = threading.Event()
        self._generation += 1


class AnswerPane(QWidget):
    """The answer as it grows, then whole: its sentences with [n] links, the passages they cite,
    or the decline with the closest documents."""

    cited = Signal(object)  # Citation: a link was followed

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("answerPane")
        self.heading = QLabel("Answer")
        self.heading.setObjectName("answerHeading")
        self.body = QTextBrowser()
        self.body.setOpenLinks(False)  # a link selects a result here, never opens a browser
        self.body.anchorClicked.connect(self._follow)
        self.body.setMaximumHeight(self.fontMetrics().height() * 9)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.addWidget(self.heading)
        layout.addWidget(self.body)
        self.answer: Answer | None = None
        self.question = ""  # what the pane answers
        self._sentences: list[AnswerSentence] = []
        self.setVisible(False)

    def begin(self, question: str) -> None:
        self.question = question
        self.answer = None
        self._sentences = []
        self.heading.setText("Answering from your files…")
        self.body.setHtml("")
        self.setVisible(True)

    def add(self, sentence: AnswerSentence) -> None:
        self._sentences.append(sentence)
        self.body.setHtml(self._html(self._sentences, ()))

    def show_answer(self, answer: Answer) -> None:
        self.answer = answer
        if answer.abstained:
            self.heading.setText("No answer in your files")
            closest = "".join(
                f"<li>{html.escape(h.title)} <span style='color:gray'>{html.escape(h.path)}</span></li>"
                for h in answer.closest
            )
            self.body.setHtml(
                f"<p>{html.escape(answer_said(answer))}</p>"
                + (f"<p>The closest documents:</p><ul>{closest}</ul>" if closest else "")
            )
            return
        kind = "Quoted from your files" if answer.extractive else "Answer from your files"
        self.heading.setText(f"{kind}: every sentence checked against the passage it cites")
        self.body.setHtml(self._html([s for s in answer.sentences if s.supported], answer.citations))

    def show_failure(self, message: str) -> None:
        self.heading.setText("The answer failed")
        self.body.setHtml(f"<p>{html.escape(message)}</p>")

    def clear(self) -> None:
        self.question = ""
        self.answer = None
        self._sentences = []
        self.body.setHtml("")
        self.setVisible(False)

    def citation(self, n: int) -> Citation | None:
        if self.answer is None:
            return None
        return next((c for c in self.answer.passages if c.n == n), None)

    def _follow(self, url: QUrl) -> None:
        if url.scheme() == "cite" and url.path().isdigit():
            found = self.citation(int(url.path()))
            if found is not None:
                self.cited.emit(found)

    @staticmethod
    def _html(sentences: list[AnswerSentence], citations: tuple[Citation, ...]) -> str:
        def link(n: int) -> str:
            return f"<a href='cite:{n}'>{n}</a>"

        body = " ".join(with_citations(html.escape(s.text), s.cites, link) for s in sentences)
        sources = "".join(
            f"<br><a href='cite:{c.n}'>[{c.n}]</a> {html.escape(c.title)} "
            f"<span style='color:gray'>{html.escape(c.path)}:{c.line}</span>"
            for c in citations
        )
        return f"<p>{body}</p>" + (f"<p style='font-size:small'>{sources}</p>" if sources else "")
