fuzz-build/core/json.o: core/json.c core/json.h core/vw.h config.h

core/json.h:

core/vw.h:

config.h:
