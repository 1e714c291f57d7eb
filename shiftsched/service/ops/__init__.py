"""Running the service: health, metrics, logs, and the operator's command line."""
