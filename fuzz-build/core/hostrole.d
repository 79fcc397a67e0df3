fuzz-build/core/hostrole.o: core/hostrole.c core/facts.h core/sysroot.h \
  core/vw.h config.h

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:
