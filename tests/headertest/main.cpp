// C++ pass: the umbrella header and every public header (generated units) compile as C++11.
#include "hoodie/hoodie.h"
int main() { return HOODIE_VERSION_NUMBER > 0 ? 0 : 1; }
