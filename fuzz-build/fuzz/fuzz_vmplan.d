fuzz-build/fuzz/fuzz_vmplan.o: fuzz/fuzz_vmplan.c core/access.h \
  core/answers.h core/acs.h core/facts.h core/sysroot.h core/vw.h \
  config.h core/change.h core/vmplan.h core/unit.h core/findings.h \
  core/nvlink.h fuzz/fuzzutil.h

core/access.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/change.h:

core/vmplan.h:

core/unit.h:

core/findings.h:

core/nvlink.h:

fuzz/fuzzutil.h:
