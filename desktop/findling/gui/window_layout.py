"""The main window's widgets, made once: the search bar, the results, the preview and explain tabs,
the folders dock and the menu; MainWindow is made of it (and of what it does with them)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QComboBox,
    QCompleter,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from findling.engine import Engine
from findling.errors import MAX_QUERY_CHARS
from findling.gui.answer_pane import AnswerPane
from findling.gui.date_range import CUSTOM
from findling.gui.explain_view import ScoreBars, StageTimeline
from findling.gui.flow_layout import FlowLayout, pair
from findling.gui.history import SavedSearches, SearchHistory
from findling.gui.item_models import ExplainModel, ResultsModel, SourcesModel
from findling.gui.keyboard import KeyboardNavigation
from findling.gui.preview import PreviewPane, PreviewPanel
from findling.gui.snippet_delegate import SnippetDelegate
from findling.gui.state import window_state
from findling.gui.strips import FacetBar, NameRow
from findling.records import SearchMode
from findling.search.facets import DATE_RANGES, SORTS, TYPE_GROUPS


class WindowLayout(QMainWindow):
    """Builds the window's widgets and lays them out; the slots they connect to are MainWindow's
    and its other parts' (named here for the type checker)."""

    engine: Engine
    results: ResultsModel
    explain_model: ExplainModel
    sources_model: SourcesModel
    answer_pane: AnswerPane
    answer_explain: QLabel
    # the slots the widgets connect to: MainWindow's and its other parts'
    _build_answer_pane: Callable[..., Any]
    _debounce: QTimer
    _from_history: Callable[..., Any]
    _on_current_changed: Callable[..., Any]
    _on_date_choice: Callable[..., Any]
    _resort: Callable[..., Any]
    _result_menu: Callable[..., Any]
    _saved_menu: Callable[..., Any]
    _show_saved: Callable[..., Any]
    _source_menu: Callable[..., Any]
    _toggle_details: Callable[..., Any]
    apply_facet: Callable[..., Any]
    choose_folder: Callable[..., Any]
    choose_shared: Callable[..., Any]
    current_hit: Callable[..., Any]
    focus_search: Callable[..., Any]
    more_like_this: Callable[..., Any]
    open_path: Callable[..., Any]
    open_preview_page: Callable[..., Any]
    open_result: Callable[..., Any]
    remove_selected_source: Callable[..., Any]
    run_saved: Callable[..., Any]
    run_search: Callable[..., Any]
    save_search: Callable[..., Any]
    search_like: Callable[..., Any]
    show_about: Callable[..., Any]
    show_help: Callable[..., Any]
    show_history: Callable[..., Any]
    show_models: Callable[..., Any]
    show_settings: Callable[..., Any]
    toggle_pause: Callable[..., Any]
    update_index: Callable[..., Any]

    def _build_ui(self) -> None:
        self._build_search_bar()
        self._build_results()
        self._build_answer_pane()
        self._build_preview_and_explain()
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.answer_pane)
        splitter.addWidget(self.results_view)
        splitter.addWidget(self.tabs)
        splitter.setSizes([160, 420, 320])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addLayout(self.top_bar)
        layout.addWidget(self.names)
        layout.addWidget(self.facets)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self._build_folders_dock()
        self.statusBar().showMessage("Ready")
        store = window_state(self.engine.home)
        self.history = SearchHistory(store)
        self.saved = SavedSearches(store)
        self.history_popup = QCompleter(self)
        self.history_popup.setWidget(self.search_field)
        self.history_popup.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.history_popup.activated.connect(self._from_history)
        self._show_saved()
        self.keyboard = KeyboardNavigation(
            self.search_field,
            self.results_view,
            [self.mode_box, self.type_box, self.date_box, self.folder_box, self.sort_box],
            self.open_result,
            self.show_history,
        )

    def _build_search_bar(self) -> None:
        self.search_field = QLineEdit()
        self.search_field.setMaxLength(MAX_QUERY_CHARS)  # the cap every face has, said in the tooltip
        self.search_field.setToolTip(f"A search or question of up to {MAX_QUERY_CHARS:,} characters")
        self.search_field.setPlaceholderText("Search your files…  (Ctrl+K; Enter for the full pipeline)")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.textEdited.connect(lambda _t: self._debounce.start())
        self.search_field.returnPressed.connect(lambda: self.run_search(full=True))
        self.mode_box = QComboBox()
        for mode in SearchMode:
            self.mode_box.addItem(mode.label, mode)
        self.type_box = QComboBox()
        self.type_box.addItems(list(TYPE_GROUPS))
        self.date_box = QComboBox()
        self.date_box.addItems(list(DATE_RANGES))
        self.date_box.addItem(CUSTOM, "custom")
        self._custom_range: tuple[date, date] | None = None
        self._date_choice = 0  # the last range in force: a cancelled custom range goes back to it
        self.folder_box = QComboBox()
        # as wide as a short name, whatever folders it lists (their list opens as wide as they
        # need): a long folder name once made the window wider than the screen allowed
        self.folder_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.folder_box.setMinimumContentsLength(8)
        self.folder_box.addItem("All folders", "")
        for box in (self.mode_box, self.type_box, self.folder_box):
            box.currentIndexChanged.connect(lambda _i: self.run_search(full=False))
        self.date_box.currentIndexChanged.connect(self._on_date_choice)
        self.symbols_button = QToolButton()
        self.symbols_button.setText("Symbols")
        self.symbols_button.setCheckable(True)
        self.symbols_button.setToolTip(
            "Definitions: the first word names a function, class or method that source files define "
            "(as sym:WORD in the query; a prefix is enough), the other words rank them"
        )
        self.symbols_button.toggled.connect(lambda _on: self.run_search(full=False))
        self.sort_box = QComboBox()
        self.sort_box.addItems(list(SORTS))
        self.sort_box.currentIndexChanged.connect(lambda _i: self._resort())
        self.names = NameRow()
        self.names.chosen.connect(lambda path: self.open_path(path))
        self.facets = FacetBar()
        self.facets.chosen.connect(self.apply_facet)
        self.indexed_folders: list[str] = []

        self.filter_bar = QWidget()
        # the boxes wrap onto a second row where the window is narrow (a row of them once held
        # the window at 1,095 pixels and more); each keeps its label beside it
        filters = FlowLayout(self.filter_bar)
        for label, box in (
            ("Mode", self.mode_box),
            ("Type", self.type_box),
            ("Modified", self.date_box),
            ("In", self.folder_box),
            ("Sort", self.sort_box),
        ):
            filters.addWidget(pair(QLabel(label), box))
        filters.addWidget(self.symbols_button)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.filter_bar.setSizePolicy(policy)
        # The field beside the boxes where the window is wide, above them where it is not:
        # at 1024 pixels the boxes alone would leave the field a few letters wide.
        self.top_bar = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.top_bar.addWidget(self.search_field, 1)
        self.top_bar.addWidget(self.filter_bar, 0, Qt.AlignmentFlag.AlignLeft)

    def _build_results(self) -> None:
        self.results_view = QTableView()
        self.results_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a deep path keeps its file's end
        self.results_view.setModel(self.results)
        self.results_view.setItemDelegateForColumn(1, SnippetDelegate(self.results_view))
        self.results_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.results_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_view.verticalHeader().setVisible(False)
        self.results_view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() * 3 + 10)
        header = self.results_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.ResizeToContents)
        # a click on a header sorts by that column (again: the other way); Snippet: by rank
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(self.results.sort)
        self.results_view.setColumnWidth(0, 220)
        self.results_view.setColumnWidth(3, 180)
        self.results_view.doubleClicked.connect(lambda index: self.open_result(index.row()))
        self.results_view.activated.connect(lambda index: self.open_result(index.row()))
        self.results_view.selectionModel().currentRowChanged.connect(self._on_current_changed)
        self.results_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.results_view.customContextMenuRequested.connect(self._result_menu)

    def _build_preview_and_explain(self) -> None:
        self.preview = PreviewPane()
        self.preview.find_similar.connect(self.search_like)
        self.preview_panel = PreviewPanel(self.preview)
        self.preview_panel.more_like_this.connect(lambda: self.more_like_this(self.current_hit()))
        self.preview_panel.open_page.connect(self.open_preview_page)
        explain = self._build_explain_page()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.preview_panel, "Preview")
        self.tabs.addTab(explain, "Explain")
        self.explain_page = explain

    def _build_explain_page(self) -> QWidget:
        """How the query was answered, and why the selected result ranked where it did."""
        self.explain_summary = QLabel("Run a query to see how it was answered.")
        self.explain_summary.setWordWrap(True)
        self.explain_summary.setTextFormat(Qt.TextFormat.PlainText)  # holds the query and model text
        self.explain_summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explain_sentence = QLabel()
        self.explain_sentence.setObjectName("explainSentence")
        self.explain_sentence.setWordWrap(True)
        self.explain_sentence.setTextFormat(Qt.TextFormat.PlainText)
        self.explain_sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.timeline = StageTimeline()
        self.score_bars = ScoreBars()
        self.explain_view = QTableView()
        self.explain_view.setModel(self.explain_model)
        self.explain_view.verticalHeader().setVisible(False)
        self.explain_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.explain_view.horizontalHeader().setStretchLastSection(True)
        self.explain_view.setVisible(False)  # the numbers behind the sentence, on demand
        self.details_button = QToolButton()
        self.details_button.setText("Details ▸")
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle_details)
        self.why_not_answer = QLabel()  # "Why not this file?": drop one on this tab
        self.why_not_answer.setObjectName("whyNotAnswer")
        self.why_not_answer.setWordWrap(True)
        self.why_not_answer.setTextFormat(Qt.TextFormat.PlainText)
        self.why_not_answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why_not_answer.setFrameShape(QFrame.Shape.StyledPanel)
        self.why_not_answer.setVisible(False)
        explain = QWidget()
        explain.setToolTip("Drop a file here to ask why it is not among the results")
        explain_layout = QVBoxLayout(explain)
        explain_layout.addWidget(self.why_not_answer)
        explain_layout.addWidget(self.answer_explain)
        explain_layout.addWidget(self.explain_sentence)
        self.explain_graphs = QWidget()  # Details swaps them for the table: room enough at 1024×640
        graphs = QHBoxLayout(self.explain_graphs)
        graphs.setContentsMargins(0, 0, 0, 0)
        stages = QVBoxLayout()
        stages.addWidget(self.explain_summary)
        stages.addWidget(self.timeline, 1)
        graphs.addLayout(stages, 3)
        graphs.addWidget(self.score_bars, 2)
        explain_layout.addWidget(self.explain_graphs, 1)
        explain_layout.addWidget(self.details_button)
        explain_layout.addWidget(self.explain_view, 1)
        return explain

    def _build_folders_dock(self) -> None:
        """The folders, what indexing is doing, what the index holds, and the saved searches."""
        self.sources_view = QListView()
        self.sources_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.sources_view.setModel(self.sources_model)
        self.sources_view.setAlternatingRowColors(True)
        self.sources_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.sources_view.customContextMenuRequested.connect(self._source_menu)
        add = QPushButton("Add folder…")
        add.clicked.connect(self.choose_folder)
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected_source)
        self.pause_button = QPushButton("Pause")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress_label = QLabel("Drop folders or files here to index them.")
        self.progress_label.setWordWrap(True)
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)  # holds file names
        dock_widget = QWidget()
        dock_layout = QVBoxLayout(dock_widget)
        dock_layout.addWidget(self.sources_view, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addWidget(self.pause_button)
        dock_layout.addLayout(buttons)
        dock_layout.addWidget(self.progress)
        dock_layout.addWidget(self.progress_label)
        self.index_label = QLabel("")  # what the index holds: documents, and the share semantic search sees
        self.index_label.setWordWrap(True)
        dock_layout.addWidget(self.index_label)
        saved_title = QLabel("Saved searches")
        saved_title.setEnabled(False)
        self.saved_view = QListWidget()
        self.saved_view.setMaximumHeight(140)
        self.saved_view.itemClicked.connect(lambda item: self.run_saved(item.text()))
        self.saved_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.saved_view.customContextMenuRequested.connect(self._saved_menu)
        dock_layout.addWidget(saved_title)
        dock_layout.addWidget(self.saved_view)
        dock = QDockWidget("Folders", self)
        dock.setObjectName("folders")
        dock.setWidget(dock_widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

    SEARCH_FIELD_MIN = 300

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_top_bar()

    ROOMY_RESULTS = 1000  # pixels of the central area from which Modified and Size are shown

    def _fit_top_bar(self) -> None:
        """The filter boxes beside the search field when both fit, else under it."""
        central = self.centralWidget()
        if central is None:
            return
        wide = central.width() >= self.SEARCH_FIELD_MIN + self.filter_bar.sizeHint().width() + 24
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.top_bar.direction() != direction:
            self.top_bar.setDirection(direction)
        # The snippet is what a result is read by: on a narrow window the date and size
        # columns give it their room (the preview and the tooltips still say both).
        roomy = central.width() >= self.ROOMY_RESULTS
        for column in (4, 5):
            self.results_view.setColumnHidden(column, not roomy)

    def _build_menu(self) -> None:
        menus = {
            "&File": (
                ("Add folder…", self.choose_folder, QKeySequence.StandardKey.Open),
                ("Attach shared collection…", self.choose_shared, None),
                ("Update index", self.update_index, QKeySequence("F5")),
                ("Models…", self.show_models, None),
                ("Settings…", self.show_settings, QKeySequence.StandardKey.Preferences),
                ("Quit", self.close, QKeySequence.StandardKey.Quit),
            ),
            "&Search": (
                ("Save this search…", self.save_search, QKeySequence.StandardKey.Save),
                ("Recent searches", self.show_history, None),
            ),
            "&Help": (
                ("Keyboard and search syntax", self.show_help, QKeySequence.StandardKey.HelpContents),
                ("About Findling", self.show_about, None),
            ),
        }
        for title, entries in menus.items():
            menu = self.menuBar().addMenu(title)
            for text, slot, shortcut in entries:
                menu.addAction(self._action(text, slot, shortcut))
        # keys without a menu entry
        for keys, slot in (
            ("F3", self.preview_panel.next_hit),
            ("Shift+F3", self.preview_panel.previous_hit),
            ("Ctrl+K", self.focus_search),
            ("Ctrl+L", self.focus_search),
        ):
            self.addAction(self._action("", slot, QKeySequence(keys)))

    def _action(self, text: str, slot, shortcut) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(shortcut)
        return action
