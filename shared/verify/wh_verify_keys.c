/* verify/'s configuration keys (wh_verify_keys.h). Cross-key rules are
 * wh_config_finalize()'s: the keys may come in any order. */
#include "wh_verify_keys.h"

static const wh_choice ts_units[] = {
    { "auto", WH_TS_AUTO },
    { "seconds", WH_TS_SECONDS },
    { "milliseconds", WH_TS_MILLISECONDS },
    { NULL, 0 }
};

static const wh_choice url_forms[] = {
    { "absolute", WH_URL_ABSOLUTE },
    { "path", WH_URL_PATH },
    { NULL, 0 }
};

static const wh_choice unknown_status[] = {
    { "accept", 0 },
    { "reject", 1 },
    { NULL, 0 }
};

static const wh_choice log_levels[] = {
    { "error", WH_LOG_ERROR },
    { "warn", WH_LOG_WARN },
    { "info", WH_LOG_INFO },
    { "debug", WH_LOG_DEBUG },
    { NULL, 0 }
};

const wh_key wh_verify_keys[] = {
    WH_KEY_PATH_ROW("SigningSecretFile", signing_secret_file,
                    "HMAC secrets, one per line (required)"),
    WH_KEY_PATH_ROW("BasicAuthFile", basic_auth_file,
                    "htpasswd file for Basic auth (required)"),
    WH_KEY_STRING_ROW("TimestampHeader", timestamp_header,
                      wh_parse_header_name, "NAME", "X-Timestamp",
                      "header with the timestamp"),
    WH_KEY_STRING_ROW("SignatureHeader", signature_header,
                      wh_parse_header_name, "NAME", "X-Signature",
                      "header with the hex signature"),
    WH_KEY_ENUM_ROW("TimestampUnit", timestamp_unit, ts_units, "auto",
                    "unit of the timestamp (auto: 13 or more digits are "
                    "milliseconds)"),
    WH_KEY_DURATION_ROW("TimestampTolerance", timestamp_tolerance, WH_US_S,
                        WH_US_S, 1, 86400, "5m",
                        "accepted clock skew each way"),
    WH_KEY_STRING_ROW("SignedUrl", signed_url, wh_parse_url, "URL", NULL,
                      "exact URL (absolute, or a /path) the sender signs "
                      "(unset: the request's)"),
    WH_KEY_ENUM_ROW("SignedUrlForm", signed_url_form, url_forms, "absolute",
                    "URL form signed when SignedUrl is unset"),
    WH_KEY_BYTES_ROW("MaxBodySize", max_body_size, 1, 67108864, "65536",
                     "largest accepted body"),
    WH_KEY_ENUM_ROW("UnknownStatus", unknown_status_reject, unknown_status,
                    "accept", "statuses outside the spec's list"),
    WH_KEY_STRING_ROW("AuthRealm", auth_realm, wh_parse_realm, "TEXT",
                      "wirehook", "Basic auth realm, printable ASCII"),
    WH_KEY_DURATION_ROW("AuthCacheTTL", auth_cache_ttl, WH_US_S, WH_US_S, 0,
                        3600, "60s", "cache of good bcrypt checks (0: off)"),
    WH_KEY_ENUM_ROW("CGILogLevel", cgi_log_level, log_levels, "warn",
                    "what wirehook.cgi logs"),
    WH_KEY_END
};
