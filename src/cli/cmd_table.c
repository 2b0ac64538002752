/* hoodie timeline | fsview | describe: inspect a table. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SHOW_TIMELINE, SHOW_FSVIEW, SHOW_DESCRIBE } show_kind;

static int show(int argc, char **argv, show_kind kind)
{
    const char *table = NULL, *as_of = NULL;
    int json = 0;
    hoodie_table_open_opts to = HOODIE_TABLE_OPEN_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: hoodie %s TABLE [--json]%s\n", argv[0],
                   kind == SHOW_FSVIEW ? " [--as-of INSTANT] [--metadata-table]\n\n"
                                         "  --metadata-table  the files as the table's metadata table records them"
                                       : "");
            return CLI_OK;
        } else if (!strcmp(a, "--json")) json = 1;
        else if (kind == SHOW_FSVIEW && !strcmp(a, "--as-of")) {
            if (i + 1 >= argc) return cli_usage("%s: --as-of needs an instant", argv[0]);
            as_of = argv[++i];
        } else if (kind == SHOW_FSVIEW && !strcmp(a, "--metadata-table")) {
            to.flags |= HOODIE_OPEN_METADATA_TABLE;
        } else if (a[0] == '-' && a[1]) return cli_usage("%s: unknown option '%s'", argv[0], a);
        else if (!table) table = a;
        else return cli_usage("%s: unexpected argument '%s'", argv[0], a);
    }
    if (!table) return cli_usage("%s: missing TABLE", argv[0]);
    hoodie_table *t = NULL;
    char *text = NULL;
    hoodie_status rc = hoodie_table_open(&t, table, &to);
    if (rc == HOODIE_OK) {
        switch (kind) {
        case SHOW_TIMELINE: rc = hoodie_table_timeline_render(t, json, &text); break;
        case SHOW_FSVIEW: rc = hoodie_table_fsview_render(t, as_of, json, &text); break;
        case SHOW_DESCRIBE: rc = hoodie_table_describe(t, json, &text); break;
        }
    }
    hoodie_table_free(t);
    if (rc < 0) return cli_fail(rc, NULL);
    fputs(text, stdout);
    if (json) fputc('\n', stdout);
    free(text);
    return CLI_OK;
}

int cmd_timeline(int argc, char **argv) { return show(argc, argv, SHOW_TIMELINE); }
int cmd_fsview(int argc, char **argv) { return show(argc, argv, SHOW_FSVIEW); }
int cmd_describe(int argc, char **argv) { return show(argc, argv, SHOW_DESCRIBE); }
