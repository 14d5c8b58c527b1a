/* The console's configuration keys (wh_console_keys.h). The readers' and
 * operators' files are loaded by wh_config_finalize() with the other
 * credentials, for the parts that verify. */
#include "wh_console_keys.h"
#include "verify/wh_parse.h"

const wh_key wh_console_keys[] = {
    WH_KEY_FLAG_ROW("ConsoleActions", console_actions, "on",
                    "operators may retry and release in the console"),
    WH_KEY_STRING_ROW("ConsoleOrigin", console_origin, wh_parse_origin, "ORIGIN", NULL,
                      "the console's public origin (behind a proxy): its Host, its "
                      "Origin, a Secure cookie"),
    WH_KEY_PATH_ROW("ConsoleReaders", console_readers_file,
                    "htpasswd file of the CGI console's readers"),
    WH_KEY_PATH_ROW("ConsoleOperators", console_operators_file,
                    "htpasswd file of the CGI console's operators"),
    WH_KEY_END
};
