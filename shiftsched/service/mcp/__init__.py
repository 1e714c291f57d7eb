"""The MCP face: the operations as tools for assistants, and the OAuth server that lets
an assistant act for an account."""
