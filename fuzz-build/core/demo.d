fuzz-build/core/demo.o: core/demo.c core/demo.h core/answers.h core/acs.h \
  core/facts.h core/sysroot.h core/vw.h config.h core/apply.h \
  core/change.h core/exec.h core/unit.h core/findings.h core/nvlink.h \
  core/verify.h

core/demo.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/apply.h:

core/change.h:

core/exec.h:

core/unit.h:

core/findings.h:

core/nvlink.h:

core/verify.h:
