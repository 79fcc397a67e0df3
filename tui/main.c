#include "vw.h"
int main(void) { return 0; }
