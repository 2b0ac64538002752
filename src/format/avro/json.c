#include "format/avro/json.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/error.h"

#define AVRO_MAX_DEPTH 64

/* ---- schema ---------------------------------------------------------------------------------------------- */

static const char *jschema_fullname(json_t *node, const char *enclosing_ns, char *buf, size_t cap)
{
    const char *name = json_string_value(json_object_get(node, "name"));
    const char *ns = json_string_value(json_object_get(node, "namespace"));
    if (!name) return NULL;
    if (strchr(name, '.')) return name;
    if (!ns) ns = enclosing_ns;
    if (!ns || !*ns) return name;
    snprintf(buf, cap, "%s.%s", ns, name);
    return buf;
}

static hoodie_status jschema_index(json_t *names, json_t *node, const char *ns, int depth, const char *what)
{
    if (depth > AVRO_MAX_DEPTH) return HOODIE_CORRUPT("%s: Avro schema nested too deeply", what);
    if (json_is_array(node)) {
        size_t i;
        json_t *v;
        json_array_foreach(node, i, v) HOODIE_TRY(jschema_index(names, v, ns, depth + 1, what));
        return HOODIE_OK;
    }
    if (!json_is_object(node)) return HOODIE_OK;
    json_t *type = json_object_get(node, "type");
    const char *t = json_string_value(type);
    if (!t) return jschema_index(names, type, ns, depth + 1, what);
    if (!strcmp(t, "record") || !strcmp(t, "error") || !strcmp(t, "enum") || !strcmp(t, "fixed")) {
        char buf[512];
        const char *full = jschema_fullname(node, ns, buf, sizeof buf);
        if (!full) return HOODIE_CORRUPT("%s: Avro schema: named type without a name", what);
        const char *dot = strrchr(full, '.');
        json_object_set(names, full, node);
        if (dot && !json_object_get(names, dot + 1)) json_object_set(names, dot + 1, node);
        if (strcmp(t, "enum") && strcmp(t, "fixed")) {
            char nsbuf[512];
            const char *inner_ns = "";
            if (dot) {
                snprintf(nsbuf, sizeof nsbuf, "%.*s", (int)(dot - full), full);
                inner_ns = nsbuf;
            }
            json_t *fields = json_object_get(node, "fields");
            size_t i;
            json_t *f;
            if (!json_is_array(fields)) return HOODIE_CORRUPT("%s: Avro schema: record %s without fields", what, full);
            json_array_foreach(fields, i, f) {
                if (!json_is_object(f) || !json_string_value(json_object_get(f, "name")))
                    return HOODIE_CORRUPT("%s: Avro schema: bad field in record %s", what, full);
                HOODIE_TRY(jschema_index(names, json_object_get(f, "type"), inner_ns, depth + 1, what));
            }
        }
        return HOODIE_OK;
    }
    if (!strcmp(t, "array")) return jschema_index(names, json_object_get(node, "items"), ns, depth + 1, what);
    if (!strcmp(t, "map")) return jschema_index(names, json_object_get(node, "values"), ns, depth + 1, what);
    return HOODIE_OK;
}

hoodie_status hoodie_avro_jschema_init(hoodie_avro_jschema *out, json_t *root, const char *what)
{
    hoodie_status rc;
    out->root = json_incref(root);
    out->names = json_object();
    if (!out->names) {
        json_decref(out->root);
        return HOODIE_NOMEM();
    }
    rc = jschema_index(out->names, root, "", 0, what ? what : "schema");
    if (rc) hoodie_avro_jschema_dispose(out);
    return rc;
}

hoodie_status hoodie_avro_jschema_parse(hoodie_avro_jschema *out, const char *text, size_t len, const char *what)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_DECODE_ANY, &err);
    hoodie_status rc;
    out->root = out->names = NULL;
    if (!root) return HOODIE_CORRUPT("%s: Avro schema is not JSON: %s (at %d)", what, err.text, err.position);
    rc = hoodie_avro_jschema_init(out, root, what);
    json_decref(root);
    return rc;
}

void hoodie_avro_jschema_dispose(hoodie_avro_jschema *s)
{
    json_decref(s->root);
    json_decref(s->names);
    s->root = s->names = NULL;
}

/* ---- datum decoding -------------------------------------------------------------------------------------- */

static hoodie_status avro_fail(hoodie_cursor *c, const char *msg, const char *detail)
{
    return hoodie_cursor__fail(c, "%s%s%s", msg, detail ? ": " : "", detail ? detail : "");
}

static int64_t avro_long(hoodie_cursor *c) { return hoodie_zigzag_decode(hoodie_cursor_uvarint(c)); }

static hoodie_status avro_decode(const hoodie_avro_jschema *s, json_t *node, hoodie_cursor *c, json_t **out,
                                 int depth);

static hoodie_status avro_primitive(const hoodie_avro_jschema *s, const char *t, hoodie_cursor *c, json_t **out,
                                    int depth)
{
    json_t *v = NULL;
    if (!strcmp(t, "null")) v = json_null();
    else if (!strcmp(t, "boolean")) {
        uint8_t b = hoodie_cursor_u8(c);
        if (c->status) return c->status;
        if (b > 1) return avro_fail(c, "invalid Avro boolean", NULL);
        v = json_boolean(b);
    } else if (!strcmp(t, "int") || !strcmp(t, "long")) {
        int64_t n = avro_long(c);
        if (c->status) return c->status;
        if (t[0] == 'i' && (n < INT32_MIN || n > INT32_MAX)) return avro_fail(c, "Avro int out of range", NULL);
        v = json_integer((json_int_t)n);
    } else if (!strcmp(t, "float")) {
        uint32_t bits = hoodie_cursor_le32(c);
        float f;
        if (c->status) return c->status;
        memcpy(&f, &bits, 4);
        v = json_real((double)f);
        if (!v) v = json_null(); /* NaN / infinity have no JSON form */
    } else if (!strcmp(t, "double")) {
        uint64_t bits = hoodie_cursor_le64(c);
        double d;
        if (c->status) return c->status;
        memcpy(&d, &bits, 8);
        v = json_real(d);
        if (!v) v = json_null();
    } else if (!strcmp(t, "string") || !strcmp(t, "bytes")) {
        int64_t n = avro_long(c);
        const uint8_t *p;
        if (c->status) return c->status;
        if (n < 0) return avro_fail(c, "negative Avro length", NULL);
        if ((uint64_t)n > hoodie_cursor_left(c)) {
            hoodie_cursor__short(c, (size_t)((uint64_t)n > SIZE_MAX ? SIZE_MAX : (uint64_t)n));
            return c->status;
        }
        p = hoodie_cursor_bytes(c, (size_t)n);
        v = json_stringn_nocheck((const char *)p, (size_t)n);
    } else {
        json_t *named = json_object_get(s->names, t);
        if (!named) {
            const char *dot = strrchr(t, '.');
            if (dot) named = json_object_get(s->names, dot + 1);
        }
        if (!named) return avro_fail(c, "unknown Avro type in schema", t);
        return avro_decode(s, named, c, out, depth + 1);
    }
    if (!v) return HOODIE_NOMEM();
    *out = v;
    return HOODIE_OK;
}

/* Array and map blocks: count (negative: followed by a byte size), terminated by a zero count. */
static hoodie_status avro_blocks(const hoodie_avro_jschema *s, json_t *item, int is_map, hoodie_cursor *c,
                                 json_t *container, int depth)
{
    for (;;) {
        int64_t n = avro_long(c);
        if (c->status) return c->status;
        if (n == 0) return HOODIE_OK;
        if (n < 0) {
            if (n == INT64_MIN) return avro_fail(c, "invalid Avro block count", NULL);
            n = -n;
            (void)avro_long(c);
            if (c->status) return c->status;
        }
        /* every item takes at least one byte unless its type is empty: bound the loop by the input */
        if ((uint64_t)n > hoodie_cursor_left(c) + 1024) return avro_fail(c, "Avro block count exceeds the data", NULL);
        for (int64_t i = 0; i < n; i++) {
            json_t *key = NULL, *v = NULL;
            hoodie_status rc;
            if (is_map) {
                HOODIE_TRY(avro_primitive(s, "string", c, &key, depth));
            }
            rc = avro_decode(s, item, c, &v, depth + 1);
            if (rc) {
                json_decref(key);
                return rc;
            }
            if (is_map) {
                rc = json_object_setn_new_nocheck(container, json_string_value(key), json_string_length(key), v)
                         ? HOODIE_NOMEM() : HOODIE_OK;
                json_decref(key);
            } else {
                rc = json_array_append_new(container, v) ? HOODIE_NOMEM() : HOODIE_OK;
            }
            if (rc) return rc;
        }
    }
}

static hoodie_status avro_decode(const hoodie_avro_jschema *s, json_t *node, hoodie_cursor *c, json_t **out,
                                 int depth)
{
    *out = NULL;
    if (c->status) return c->status;
    if (depth > AVRO_MAX_DEPTH) return avro_fail(c, "Avro value nested too deeply", NULL);
    if (json_is_string(node)) return avro_primitive(s, json_string_value(node), c, out, depth);
    if (json_is_array(node)) { /* union */
        int64_t idx = avro_long(c);
        if (c->status) return c->status;
        if (idx < 0 || (size_t)idx >= json_array_size(node)) return avro_fail(c, "Avro union index out of range", NULL);
        return avro_decode(s, json_array_get(node, (size_t)idx), c, out, depth + 1);
    }
    if (!json_is_object(node)) return avro_fail(c, "invalid Avro schema node", NULL);
    json_t *type = json_object_get(node, "type");
    const char *t = json_string_value(type);
    if (!t) return avro_decode(s, type, c, out, depth + 1);
    if (!strcmp(t, "record") || !strcmp(t, "error")) {
        json_t *obj = json_object(), *fields = json_object_get(node, "fields"), *f;
        size_t i;
        if (!obj) return HOODIE_NOMEM();
        json_array_foreach(fields, i, f) {
            json_t *v;
            hoodie_status rc = avro_decode(s, json_object_get(f, "type"), c, &v, depth + 1);
            if (!rc && json_object_set_new(obj, json_string_value(json_object_get(f, "name")), v)) rc = HOODIE_NOMEM();
            if (rc) {
                json_decref(obj);
                return rc;
            }
        }
        *out = obj;
        return HOODIE_OK;
    }
    if (!strcmp(t, "enum")) {
        int64_t idx = avro_long(c);
        json_t *sym;
        if (c->status) return c->status;
        sym = idx >= 0 ? json_array_get(json_object_get(node, "symbols"), (size_t)idx) : NULL;
        if (!json_is_string(sym)) return avro_fail(c, "Avro enum index out of range", NULL);
        *out = json_incref(sym);
        return HOODIE_OK;
    }
    if (!strcmp(t, "array") || !strcmp(t, "map")) {
        int is_map = t[0] == 'm';
        json_t *cont = is_map ? json_object() : json_array();
        hoodie_status rc;
        if (!cont) return HOODIE_NOMEM();
        rc = avro_blocks(s, json_object_get(node, is_map ? "values" : "items"), is_map, c, cont, depth);
        if (rc) {
            json_decref(cont);
            return rc;
        }
        *out = cont;
        return HOODIE_OK;
    }
    if (!strcmp(t, "fixed")) {
        json_int_t size = json_integer_value(json_object_get(node, "size"));
        const uint8_t *p;
        if (size < 0) return avro_fail(c, "invalid Avro fixed size", NULL);
        p = hoodie_cursor_bytes(c, (size_t)size);
        if (!p) return c->status;
        *out = json_stringn_nocheck((const char *)p, (size_t)size);
        return *out ? HOODIE_OK : HOODIE_NOMEM();
    }
    return avro_primitive(s, t, c, out, depth); /* primitive with attributes (logicalType), or a name */
}

hoodie_status hoodie_avro_decode_json(const hoodie_avro_jschema *s, hoodie_cursor *c, json_t **out)
{
    hoodie_status rc = avro_decode(s, s->root, c, out, 0);
    if (rc && c->status == HOODIE_OK) c->status = rc;
    return rc;
}

/* ---- object container files ------------------------------------------------------------------------------ */

int hoodie_avro_is_ocf(const void *data, size_t len)
{
    return len >= 4 && memcmp(data, "Obj\x01", 4) == 0;
}

hoodie_status hoodie_avro_ocf_open(hoodie_avro_ocf *f, const void *data, size_t len, const char *what)
{
    const char *schema = NULL, *codec = NULL;
    size_t schema_len = 0, codec_len = 0;
    memset(f, 0, sizeof *f);
    f->what = what ? what : "avro file";
    hoodie_cursor_init(&f->c, data, len, 0, f->what);
    if (!hoodie_avro_is_ocf(data, len)) return hoodie_cursor__fail(&f->c, "not an Avro object container file");
    f->c.p += 4;
    /* file metadata: map<bytes> */
    for (;;) {
        int64_t n = avro_long(&f->c);
        if (f->c.status) return f->c.status;
        if (n == 0) break;
        if (n < 0) {
            if (n == INT64_MIN) return hoodie_cursor__fail(&f->c, "invalid metadata count");
            n = -n;
            (void)avro_long(&f->c);
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t kl = avro_long(&f->c);
            const char *k;
            int64_t vl;
            const char *v;
            if (f->c.status) return f->c.status;
            if (kl < 0 || (uint64_t)kl > hoodie_cursor_left(&f->c)) return hoodie_cursor__fail(&f->c, "bad metadata key");
            k = (const char *)hoodie_cursor_bytes(&f->c, (size_t)kl);
            vl = avro_long(&f->c);
            if (f->c.status) return f->c.status;
            if (vl < 0 || (uint64_t)vl > hoodie_cursor_left(&f->c)) return hoodie_cursor__fail(&f->c, "bad metadata value");
            v = (const char *)hoodie_cursor_bytes(&f->c, (size_t)vl);
            if (kl == 11 && !memcmp(k, "avro.schema", 11)) { schema = v; schema_len = (size_t)vl; }
            if (kl == 10 && !memcmp(k, "avro.codec", 10)) { codec = v; codec_len = (size_t)vl; }
        }
    }
    f->sync = hoodie_cursor_bytes(&f->c, 16);
    if (!f->sync) return f->c.status;
    if (!schema) return hoodie_cursor__fail(&f->c, "Avro file without avro.schema");
    if (codec && !(codec_len == 4 && !memcmp(codec, "null", 4))) {
        if (codec_len == 7 && !memcmp(codec, "deflate", 7)) f->deflate = 1;
        else return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: Avro codec '%.*s' not supported", f->what,
                                (int)codec_len, codec);
    }
    HOODIE_TRY(hoodie_avro_jschema_parse(&f->schema, schema, schema_len, f->what));
    return HOODIE_OK;
}

static hoodie_status ocf_inflate(hoodie_avro_ocf *f, const uint8_t *src, size_t n, uint64_t off)
{
    z_stream z;
    size_t cap = n * 4 + 1024, used = 0;
    uint8_t *out = malloc(cap);
    int zr;
    if (!out) return HOODIE_NOMEM();
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) {
        free(out);
        return HOODIE_NOMEM();
    }
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)n;
    do {
        if (used == cap) {
            uint8_t *g = cap < ((size_t)1 << 30) ? realloc(out, cap * 2) : NULL;
            if (!g) {
                inflateEnd(&z);
                free(out);
                return HOODIE_CORRUPT("%s: offset %llu: deflate block too large", f->what, (unsigned long long)off);
            }
            out = g;
            cap *= 2;
        }
        z.next_out = out + used;
        z.avail_out = (uInt)(cap - used);
        zr = inflate(&z, Z_NO_FLUSH);
        used = cap - z.avail_out;
    } while (zr == Z_OK);
    inflateEnd(&z);
    if (zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && z.avail_in == 0)) {
        free(out);
        return HOODIE_CORRUPT("%s: offset %llu: bad deflate data", f->what, (unsigned long long)off);
    }
    free(f->block);
    f->block = out;
    hoodie_cursor_init(&f->bc, out, used, off, f->what);
    return HOODIE_OK;
}

hoodie_status hoodie_avro_ocf_next(hoodie_avro_ocf *f, json_t **out)
{
    *out = NULL;
    while (f->block_left == 0) {
        int64_t count, size;
        const uint8_t *data, *sync;
        uint64_t off;
        if (f->c.status) return f->c.status;
        if (hoodie_cursor_left(&f->c) == 0) return HOODIE_ITEROVER;
        count = avro_long(&f->c);
        size = avro_long(&f->c);
        if (f->c.status) return f->c.status;
        if (count < 0 || size < 0 || (uint64_t)size > hoodie_cursor_left(&f->c))
            return hoodie_cursor__fail(&f->c, "bad Avro block header (count %lld, size %lld)", (long long)count,
                                       (long long)size);
        off = hoodie_cursor_offset(&f->c);
        data = hoodie_cursor_bytes(&f->c, (size_t)size);
        sync = hoodie_cursor_bytes(&f->c, 16);
        if (!sync) return f->c.status;
        if (memcmp(sync, f->sync, 16)) return hoodie_cursor__fail(&f->c, "Avro sync marker mismatch");
        if (f->deflate) HOODIE_TRY(ocf_inflate(f, data, (size_t)size, off));
        else hoodie_cursor_init(&f->bc, data, (size_t)size, off, f->what);
        f->block_left = count;
    }
    HOODIE_TRY(hoodie_avro_decode_json(&f->schema, &f->bc, out));
    f->block_left--;
    return HOODIE_OK;
}

void hoodie_avro_ocf_close(hoodie_avro_ocf *f)
{
    hoodie_avro_jschema_dispose(&f->schema);
    free(f->block);
    f->block = NULL;
}
