fuzz-build/core/pci.o: core/pci.c core/facts.h core/sysroot.h core/vw.h \
  config.h

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:
