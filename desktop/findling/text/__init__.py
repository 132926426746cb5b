"""Text analysis shared by indexing and search: tokens, stems, stopwords, languages."""
