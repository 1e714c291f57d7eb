"""The account dashboard (server-rendered pages) and its security helpers."""
