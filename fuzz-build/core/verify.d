fuzz-build/core/verify.o: core/verify.c core/verify.h core/answers.h \
  core/acs.h core/facts.h core/sysroot.h core/vw.h config.h core/exec.h \
  core/plan.h core/access.h core/change.h core/vmplan.h core/unit.h \
  core/findings.h core/nvlink.h core/hostplan.h core/cmdline.h

core/verify.h:

core/answers.h:

core/acs.h:

core/facts.h:

core/sysroot.h:

core/vw.h:

config.h:

core/exec.h:

core/plan.h:

core/access.h:

core/change.h:

core/vmplan.h:

core/unit.h:

core/findings.h:

core/nvlink.h:

core/hostplan.h:

core/cmdline.h:
