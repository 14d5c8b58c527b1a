/* The inbox's configuration keys (wh_inbox_keys.h). */
#include "wh_inbox_keys.h"
#include "verify/wh_account.h"

/* The longest retention a key takes: a century, for ever in practice
 * (0 says it plainly). */
#define WH_RETENTION_MAX_S (APR_INT64_C(36500) * 86400)

/* The name is apr_dbd's driver name, kept in its canonical spelling
 * whatever case the file used. */
static const wh_choice drivers[] = {
    { "sqlite3", WH_INBOX_SQLITE3 },
    { "pgsql", WH_INBOX_PGSQL },
    { "mysql", WH_INBOX_MYSQL },
    { NULL, 0 }
};

const wh_key wh_inbox_keys[] = {
    WH_KEY_ENUM_NAMED_ROW("InboxDriver", inbox_driver, inbox_driver_name,
                          drivers, "sqlite3", "apr_dbd driver of the inbox"),
    /* Kept as written: whether it is a path to resolve depends on
     * InboxDriver, which may come later, so wh_config_finalize()
     * resolves it. */
    WH_KEY_STRING_ROW("InboxParams", inbox_params, wh_parse_path, "TEXT",
                      NULL, "sqlite3 file, pgsql conninfo or mysql "
                      "parameters (unset: no inbox)"),
    WH_KEY_STRING_ROW("InboxGroup", inbox_group, wh_parse_group, "NAME", NULL,
                      "sqlite3 inbox files 0640 in this group (unset: 0600)"),
    WH_KEY_INT_ROW("InboxBatchMax", inbox_batch_max, 1, 1000, "64",
                   "most stores sharing one commit in a module child"),
    WH_KEY_DURATION_ROW("InboxBatchWait", inbox_batch_wait, 1, 1, 0, 100000,
                        "0", "wait for more stores before a commit (bare "
                        "digits: microseconds)"),
    /* Seconds, bare digits too; 0 keeps for ever. The floor (ReplayWindow
     * + TimestampTolerance) and the order between the three are
     * wh_config_finalize()'s: the keys may come in any order. */
    WH_KEY_DURATION_ROW("InboxRetention", inbox_retention, WH_US_S, WH_US_S, 0,
                        WH_RETENTION_MAX_S, NULL, "events older than this are "
                        "purged (unset or 0: every event is kept)"),
    WH_KEY_DURATION_ROW("InboxQuarantineRetention", inbox_quarantine_retention,
                        WH_US_S, WH_US_S, 0, WH_RETENTION_MAX_S, NULL,
                        "quarantined bodies older than this are purged "
                        "(unset: InboxRetention; 0: kept)"),
    WH_KEY_DURATION_ROW("InboxDeadLetterRetention", inbox_dead_retention,
                        WH_US_S, WH_US_S, 0, WH_RETENTION_MAX_S, NULL,
                        "dead letters are kept this long after they died, "
                        "at least InboxRetention (unset: InboxRetention; 0: kept)"),
    WH_KEY_DURATION_ROW("InboxTombstoneRetention", inbox_tombstone_retention,
                        WH_US_S, WH_US_S, 0, WH_RETENTION_MAX_S, NULL,
                        "a purged event's notificationId is still known this "
                        "long after it arrived (unset or 0: for ever)"),
    WH_KEY_INT_ROW("ListDefaultLimit", list_default_limit, 1, 10000, "25",
                   "list page size when none is asked"),
    WH_KEY_INT_ROW("ListMaxLimit", list_max_limit, 1, 10000, "100",
                   "largest list page size"),
    WH_KEY_END
};
