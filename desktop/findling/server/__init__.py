"""How other processes reach the index: the owner's local endpoint, and the MCP and HTTP servers."""
