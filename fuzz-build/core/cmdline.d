fuzz-build/core/cmdline.o: core/cmdline.c core/cmdline.h core/vw.h \
  config.h

core/cmdline.h:

core/vw.h:

config.h:
