/* Services not implemented yet. */
#include "services/svc.h"
#include "util/error.h"
#define STUB(name) return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s is not implemented yet", name)
hoodie_status hoodie_log_compaction(const char *b, const hoodie_service_opts *o, hoodie_service_result *r) { (void)b; (void)o; (void)r; STUB("log compaction"); }
hoodie_status hoodie_clustering(const char *b, const hoodie_service_opts *o, hoodie_service_result *r) { (void)b; (void)o; (void)r; STUB("clustering"); }
hoodie_status hoodie_archive(const char *b, const hoodie_service_opts *o, hoodie_service_result *r) { (void)b; (void)o; (void)r; STUB("archive"); }
hoodie_status hoodie_rollback(const char *b, const hoodie_service_opts *o, const char *i, hoodie_service_result *r) { (void)b; (void)o; (void)i; (void)r; STUB("rollback"); }
hoodie_status hoodie_savepoint_create(const char *b, const hoodie_service_opts *o, const char *i, hoodie_service_result *r) { (void)b; (void)o; (void)i; (void)r; STUB("savepoint"); }
hoodie_status hoodie_savepoint_delete(const char *b, const hoodie_service_opts *o, const char *i) { (void)b; (void)o; (void)i; STUB("savepoint"); }
hoodie_status hoodie_savepoint_list(const char *b, const hoodie_service_opts *o, char **out) { (void)b; (void)o; (void)out; STUB("savepoint"); }
hoodie_status hoodie_restore(const char *b, const hoodie_service_opts *o, const char *i, hoodie_service_result *r) { (void)b; (void)o; (void)i; (void)r; STUB("restore"); }
