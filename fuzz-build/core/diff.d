fuzz-build/core/diff.o: core/diff.c core/diff.h core/vw.h config.h

core/diff.h:

core/vw.h:

config.h:
