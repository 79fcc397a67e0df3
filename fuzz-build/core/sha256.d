fuzz-build/core/sha256.o: core/sha256.c core/sha256.h

core/sha256.h:
