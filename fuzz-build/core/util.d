fuzz-build/core/util.o: core/util.c core/vw.h config.h

core/vw.h:

config.h:
