"""What the faces say: one wording for every face (presentation), the terminal's painting of
it (terminal), and the JSON the CLI, MCP and HTTP answer with (payloads). Below the faces
themselves, above the engine: the engine says facts, these say them to a person."""
