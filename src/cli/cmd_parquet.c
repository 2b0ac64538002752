#include "cli.h"

#include <stdio.h>

int cmd_parquet(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "hoodie parquet: not built yet\n");
    return CLI_ERROR;
}
