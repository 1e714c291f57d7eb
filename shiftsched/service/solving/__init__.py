"""Where solves run: the pool of solver processes, the queued jobs, their progress and
stop, and the service's graceful stop."""
