fuzz-build/fuzz/fuzz_pci.o: fuzz/fuzz_pci.c core/acs.h core/facts.h \
  core/sysroot.h core/vw.h config.h core/findings.h core/report.h \
  core/tarsafe.h fuzz/fuzzutil.h

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/findings.h:

core/report.h:

core/tarsafe.h:

fuzz/fuzzutil.h:
