"""The exit codes every hscc command uses: 0 success; 1 the run failed (engine error,
results not writable); 2 bad input or usage (invalid scenario, missing file, not a run
directory); 130 interrupted (Ctrl-C). A module of its own, importing nothing, so that a
Ctrl-C while the command line is still loading exits with its code too (`hscc.__main__`)."""

OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130
