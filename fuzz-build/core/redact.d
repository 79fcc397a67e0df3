fuzz-build/core/redact.o: core/redact.c core/redact.h core/vw.h config.h

core/redact.h:

core/vw.h:

config.h:
