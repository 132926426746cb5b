"""Answers from the user's own files: passages from a hybrid search, a generator's sentences each
checked against the passages it cites, the passages' own sentences where nothing generated holds,
and a decline where the files do not answer (docs/pipeline.md, "Ask")."""
