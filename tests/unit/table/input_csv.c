/* CSV input: RFC 4180 quoting, nulls vs empty strings, every type, errors naming file/line/column. */
#include "input_support.h"

HOODIE_TEST(table_input__csv_smoke)
{
    assert_reads("id,name\n1,a\n2,b\n3,c\n", "t.csv", "id:int64, name:string",
                 "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":3,\"name\":\"c\"}\n");
}
