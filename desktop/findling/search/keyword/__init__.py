"""The keyword lane, in tantivy's shape: a query's words and their weights (words), the plan and
the scoring SQL over the postings (sql), the lane that runs it, with MaxScore's shortcuts and the
corpus statistics it caches (lane), quoted phrases and NEAR over word positions (phrases), how
near the words stand in a text (proximity), and the lane's record for the explain panel
(explain)."""
