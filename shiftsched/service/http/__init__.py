"""The HTTP face: the v1 public API app, its gate, its errors and their rendering, and
its OpenAPI document."""
