/* Services not implemented yet. */
#include "services/svc.h"
#include "util/error.h"
#define STUB(name) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s is not implemented yet", name)
hoodie_status hoodie_log_compaction(const char *b, const hoodie_service_opts *o, hoodie_service_result *r) { (void)b; (void)o; (void)r; STUB("log compaction"); }
hoodie_status hoodie_archive(const char *b, const hoodie_service_opts *o, hoodie_service_result *r) { (void)b; (void)o; (void)r; STUB("archive"); }
