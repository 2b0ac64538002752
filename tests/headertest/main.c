/* The per-header translation units are generated (see CMakeLists.txt); compiling them is the test. */
#include "hoodie/hoodie.h"
int main(void) { return HOODIE_VERSION_NUMBER > 0 ? 0 : 1; }
