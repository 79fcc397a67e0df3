fuzz-build/core/tarsafe.o: core/tarsafe.c core/tarsafe.h core/vw.h \
  config.h

core/tarsafe.h:

core/vw.h:

config.h:
