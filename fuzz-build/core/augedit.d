fuzz-build/core/augedit.o: core/augedit.c core/augedit.h core/sysroot.h \
  core/vw.h config.h

core/augedit.h:

core/sysroot.h:

core/vw.h:

config.h:
