fuzz-build/core/plan.o: core/plan.c core/plan.h core/access.h \
  core/answers.h core/acs.h core/facts.h core/sysroot.h core/vw.h \
  config.h core/change.h core/vmplan.h core/unit.h core/findings.h \
  core/nvlink.h core/hostplan.h core/cmdline.h

core/plan.h:

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

core/hostplan.h:

core/cmdline.h:
